"""Host side of the co-processor wire protocol (version 1); the spec is ``docs/serial-protocol.md``.

A frame on the wire is ``0x00 COBS(type:u8 | seq:u16be | body | crc:u16be) 0x00``. The CRC is
CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0 - ``binascii.crc_hqx(data, 0xFFFF)``)
over type, seq and body. The firmware implements the same thing in ``firmware/unofw/wire.py``; both sides' tests
check the vectors in ``firmware/test_vectors.json``.

Example::

    >>> wire = encode_frame(FIRE, 7, encode_fire(FirePlan(fire=True, cards=3, run_ms=900, power=0.8)))
    >>> decoder = FrameDecoder()
    >>> [frame] = decoder.feed(wire)
    >>> assert (frame.type, frame.seq) == (FIRE, 7)
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from cobs import cobs

from unolauncher.errors import UnolauncherError
from unolauncher.launcher.backends.serial.device_config import (  # noqa: F401 - CONFIG is part of the protocol
    CONFIG_FMT,
    DEVICE_LIMITS,
    DeviceConfig,
)
from unolauncher.launcher.interface import FirePlan, FireResult, Outcome

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 64
MAX_ENCODED = MAX_PAYLOAD + MAX_PAYLOAD // 254 + 2
WINDOW = 24

# host -> device
HELLO = 0x01
CONFIG = 0x02
FIRE = 0x03
STOP = 0x04
STATUS = 0x05
EVENT_ACK = 0x06
RELEASE = 0x07
SIGNAL = 0x08
PROBE = 0x09  # wiring selftest readings (unolauncher selftest --serial)
# device -> host replies
ACK = 0x80
HELLO_REPLY = 0x81
STATUS_REPLY = 0x85
PROBE_REPLY = 0x86
# device -> host events (0x90..0x9F reliable, 0xA0..0xAF best effort)
PRESS = 0x90
UNO = 0x91
LID = 0x92
DONE = 0x94
FAULT = 0x95
CARD = 0xA3

FIRE_FMT = ">BBHBH"
ACK_FMT = ">HB"
HELLO_REPLY_FMT = ">HBBB"
STATUS_REPLY_FMT = ">HBBHBI"
DONE_FMT = ">HBHBBB"  # FIRE seq, cards_out, ran_ms, outcome, counted, reason
FAULT_FMT = ">B"
# acked seq, input levels (P_* bits), motor lines reading high when released (bit 0 enable, 1 forward, 2 reverse),
# then the co-processor's GP number of each role in PROBE_ROLES
PROBE_REPLY_FMT = ">HBB9B"
PROBE_ROLES = ("motor_enable", "motor_forward", "motor_reverse", "sensor", "button", "uno", "lid", "led", "buzzer")
P_BUTTON_DOWN = 1
P_UNO_DOWN = 2
P_LID_OPEN = 4
P_BEAM_BLOCKED = 8

OUTCOMES: tuple[Outcome, ...] = ("ok", "no_fire", "jam", "empty", "max_run", "stopped", "fault")
SIGNAL_FMT = ">BB"  # chime (0/1), tension
REASONS = ("", "deadman", "max_run", "lid_opened", "host_stop", "guard_timer", "watchdog_reset")

# STATUS flags
F_MOTOR_ON = 1
F_RUNNING = 2
F_LID_OPEN = 4
F_JAMMED = 8
F_HAS_SENSOR = 16
F_RETRACTING = 32
F_HOST_ALIVE = 64
F_GUARD_TRIPPED = 128


class AckCode(IntEnum):
    OK = 0
    BUSY = 1
    BAD_REQUEST = 2
    UNKNOWN_TYPE = 3
    BAD_VERSION = 4
    STALE_SEQ = 5
    NO_HELLO = 6


class FrameError(UnolauncherError, ValueError):
    """Bytes between two delimiters that are not a valid frame (bad COBS, length or CRC)."""


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    body: bytes = b""

    def encode(self) -> bytes:
        return encode_frame(self.type, self.seq, self.body)


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; ``crc16(b"123456789") == 0x29B1``."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode_frame(msg_type: int, seq: int, body: bytes = b"") -> bytes:
    """Wire bytes of one frame, both delimiters included."""
    head = struct.pack(">BH", msg_type, seq & 0xFFFF) + body
    payload = head + struct.pack(">H", crc16(head))
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"frame payload of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    return b"\x00" + cobs.encode(payload) + b"\x00"


def decode_payload(encoded: bytes) -> Frame:
    """The frame inside one COBS chunk (delimiters stripped); raises :class:`FrameError`."""
    try:
        payload = cobs.decode(encoded)
    except cobs.DecodeError as exc:
        raise FrameError(f"bad COBS encoding: {exc}") from None
    if len(payload) < 5:
        raise FrameError(f"frame of {len(payload)} bytes is shorter than the 5-byte minimum")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"frame of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    (crc,) = struct.unpack(">H", payload[-2:])
    if crc16(payload[:-2]) != crc:
        raise FrameError("CRC mismatch")
    msg_type, seq = struct.unpack(">BH", payload[:3])
    return Frame(msg_type, seq, bytes(payload[3:-2]))


class FrameDecoder:
    """Incremental decoder: feed it bytes as they arrive, get whole frames back; garbage is counted and dropped.

    Example::

        >>> dec = FrameDecoder()
        >>> assert dec.feed(b"noise" + encode_frame(STATUS, 1)) == [Frame(STATUS, 1)]
        >>> assert dec.errors == 1
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.errors = 0
        self.last_error = ""

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            if end < 0:
                self._append(data[start:])
                return frames
            self._append(data[start:end])
            if self._overflow:
                self.errors += 1
                self.last_error = "chunk longer than any frame"
            elif self._buf:
                try:
                    frames.append(decode_payload(bytes(self._buf)))
                except FrameError as exc:
                    self.errors += 1
                    self.last_error = str(exc)
            self._buf.clear()
            self._overflow = False
            start = end + 1

    def _append(self, chunk: bytes) -> None:
        if self._overflow or not chunk:
            return
        if len(self._buf) + len(chunk) > MAX_ENCODED:
            self._overflow = True
            self._buf.clear()
        else:
            self._buf.extend(chunk)


class Verdict(IntEnum):
    NEW = 0
    DUPLICATE = 1
    STALE = 2


class ReplayWindow:
    """Anti-replay window over 16-bit sequence numbers, the same rule as the firmware's.

    Example::

        >>> win = ReplayWindow()
        >>> win.accept(5)
        >>> assert win.check(5) is Verdict.DUPLICATE and win.check(6) is Verdict.NEW
    """

    def __init__(self) -> None:
        self.top = -1
        self.bits = 0

    def reset(self) -> None:
        self.top, self.bits = -1, 0

    def check(self, seq: int) -> Verdict:
        if self.top < 0:
            return Verdict.NEW
        ahead = (seq - self.top) & 0xFFFF
        if ahead == 0:
            return Verdict.DUPLICATE
        if ahead < 0x8000:
            return Verdict.NEW
        behind = (self.top - seq) & 0xFFFF
        if behind >= WINDOW:
            return Verdict.STALE
        return Verdict.DUPLICATE if (self.bits >> behind) & 1 else Verdict.NEW

    def accept(self, seq: int) -> None:
        if self.top < 0:
            self.top, self.bits = seq, 1
            return
        ahead = (seq - self.top) & 0xFFFF
        if ahead and ahead < 0x8000:
            self.bits = 1 if ahead >= WINDOW else ((self.bits << ahead) | 1) & ((1 << WINDOW) - 1)
            self.top = seq
        else:
            behind = (self.top - seq) & 0xFFFF
            if behind < WINDOW:
                self.bits |= 1 << behind


def is_reliable_event(msg_type: int) -> bool:
    return 0x90 <= msg_type <= 0x9F


# ---- bodies ------------------------------------------------------------------------------------------------


def encode_fire(plan: FirePlan) -> bytes:
    """FIRE body; values are clamped to what the fields hold (power in whole percent, 1-100)."""
    power = max(1, min(100, round(plan.power * 100)))
    return struct.pack(
        FIRE_FMT,
        1 if plan.fire else 0,
        max(0, min(255, plan.cards)),
        max(0, min(0xFFFF, plan.run_ms)),
        power,
        max(0, min(0xFFFF, plan.suspense_ms)),
    )


def decode_fire(body: bytes) -> FirePlan:
    flags, cards, run_ms, power, suspense_ms = struct.unpack(FIRE_FMT, body)
    return FirePlan(fire=bool(flags & 1), cards=cards, run_ms=run_ms, power=power / 100, suspense_ms=suspense_ms)


def decode_done(body: bytes) -> tuple[int, FireResult]:
    """(seq of the FIRE this DONE ends, the result)."""
    fire_seq, cards, ran_ms, outcome, counted, reason = struct.unpack(DONE_FMT, body)
    if outcome >= len(OUTCOMES):
        raise FrameError(f"DONE carries unknown outcome code {outcome}")
    detail = REASONS[reason] if reason < len(REASONS) else f"reason {reason}"
    return fire_seq, FireResult(
        cards_out=cards, ran_ms=ran_ms, outcome=OUTCOMES[outcome], counted=bool(counted), detail=detail
    )


def decode_ack(body: bytes) -> tuple[int, int]:
    seq, code = struct.unpack(ACK_FMT, body)
    return seq, code


def decode_hello_reply(body: bytes) -> dict[str, Any]:
    size = struct.calcsize(HELLO_REPLY_FMT)
    seq, version, flags, reset_cause = struct.unpack(HELLO_REPLY_FMT, body[:size])
    return {
        "seq": seq,
        "version": version,
        "has_sensor": bool(flags & 1),
        "first_since_boot": bool(flags & 2),
        "reset_cause": reset_cause,
        "firmware": body[size:].decode("ascii", "replace"),
    }


def decode_status(body: bytes) -> dict[str, Any]:
    seq, flags, run_cards, total, fault, uptime = struct.unpack(STATUS_REPLY_FMT, body)
    return {
        "seq": seq,
        "motor_on": bool(flags & F_MOTOR_ON),
        "running": bool(flags & F_RUNNING),
        "lid_open": bool(flags & F_LID_OPEN),
        "jammed": bool(flags & F_JAMMED),
        "guard_tripped": bool(flags & F_GUARD_TRIPPED),
        "has_sensor": bool(flags & F_HAS_SENSOR),
        "retracting": bool(flags & F_RETRACTING),
        "run_cards": run_cards,
        "total_cards": total,
        "uptime_s": uptime,
        "last_fault": REASONS[fault] if fault < len(REASONS) else str(fault),
    }


def decode_probe(body: bytes) -> dict[str, Any]:
    """PROBE_REPLY: ``{"seq", "button_down", "uno_down", "lid_open", "beam_blocked", "released_high": {role: bool},
    "pins": {role: GP}}``."""
    seq, levels, released, *gpios = struct.unpack(PROBE_REPLY_FMT, body)
    return {
        "seq": seq,
        "button_down": bool(levels & P_BUTTON_DOWN),
        "uno_down": bool(levels & P_UNO_DOWN),
        "lid_open": bool(levels & P_LID_OPEN),
        "beam_blocked": bool(levels & P_BEAM_BLOCKED),
        "released_high": {role: bool(released & (1 << bit)) for bit, role in enumerate(PROBE_ROLES[:3])},
        "pins": dict(zip(PROBE_ROLES, gpios, strict=True)),
    }


def decode_fault(body: bytes) -> tuple[str, str]:
    code = body[0]
    name = REASONS[code] if code < len(REASONS) else f"fault_{code}"
    return name, body[1:].decode("ascii", "replace")
