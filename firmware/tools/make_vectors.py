"""Regenerate ``firmware/test_vectors.json`` from the host implementation (run from the repository root).

The vectors are data both test suites read: the firmware's ``unofw.wire`` and the host's ``serial_protocol`` must
each produce and accept exactly these bytes. Regenerate only when the protocol version changes.

    .venv/bin/python firmware/tools/make_vectors.py
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from unolauncher.launcher.backends.gpio.settings import BRAKE_MS
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.interface import FirePlan

OUT = Path(__file__).resolve().parents[1] / "test_vectors.json"


def frame(name: str, msg_type: int, seq: int, body: bytes, fields: dict[str, object]) -> dict[str, object]:
    return {
        "name": name,
        "type": msg_type,
        "seq": seq,
        "body": body.hex(),
        "wire": sp.encode_frame(msg_type, seq, body).hex(),
        "fields": fields,
    }


def main() -> None:
    crc = [{"data": d.hex(), "crc": sp.crc16(d)} for d in (b"123456789", b"", b"\x00", b"\xff\xff", bytes(range(32)))]
    cobs_cases = [
        b"",
        b"\x00",
        b"\x00\x00",
        b"\x11\x22\x00\x33",
        b"\x11\x22\x33\x44",
        b"\x11\x00\x00\x00",
        bytes(range(1, 255)),
        bytes(range(0, 255)),
        bytes(range(1, 256)),
    ]
    from cobs import cobs

    cobs_vectors = [{"data": d.hex(), "encoded": cobs.encode(d).hex()} for d in cobs_cases]
    plan = FirePlan(fire=True, cards=3, run_ms=900, power=0.8, suspense_ms=250)
    frames = [
        frame("hello", sp.HELLO, 1, bytes([1]), {"version": 1}),
        frame(
            "config_defaults",
            sp.CONFIG,
            2,
            sp.DeviceConfig().encode(),
            {
                "deadman_ms": 1500,
                "max_run_ms": 4000,
                "jam_ms": 800,
                "retract_ms": 120,
                "retract_power": 60,
                "has_sensor": 1,
                "debounce_ms": 25,
            },
        ),
        frame(
            "fire",
            sp.FIRE,
            3,
            sp.encode_fire(plan),
            {"fire": 1, "cards": 3, "run_ms": 900, "power": 80, "suspense_ms": 250},
        ),
        frame(
            "fire_no_fire",
            sp.FIRE,
            4,
            sp.encode_fire(FirePlan(fire=False)),
            {"fire": 0, "cards": 0, "run_ms": 0, "power": 100, "suspense_ms": 0},
        ),
        frame("stop", sp.STOP, 0xFFFF, b"", {}),
        frame("status", sp.STATUS, 0x1234, b"", {}),
        frame("event_ack", sp.EVENT_ACK, 9, struct.pack(">H", 0x0042), {"acked": 0x42}),
        frame("signal", sp.SIGNAL, 10, struct.pack(sp.SIGNAL_FMT, 1, 3), {"chime": 1, "tension": 3}),
        frame("release", sp.RELEASE, 11, b"", {}),
        frame("ack_ok", sp.ACK, 5, struct.pack(sp.ACK_FMT, 3, 0), {"acked": 3, "code": 0}),
        frame("ack_busy", sp.ACK, 6, struct.pack(sp.ACK_FMT, 4, 1), {"acked": 4, "code": 1}),
        frame(
            "hello_reply",
            sp.HELLO_REPLY,
            0,
            struct.pack(sp.HELLO_REPLY_FMT, 1, 1, 3, 0) + b"1.0.0",
            {"acked": 1, "version": 1, "flags": 3, "reset_cause": 0, "firmware": "1.0.0"},
        ),
        frame(
            "status_reply",
            sp.STATUS_REPLY,
            7,
            struct.pack(sp.STATUS_REPLY_FMT, 0x1234, 0x13, 2, 300, 0, 3600),
            {"acked": 0x1234, "flags": 0x13, "run_cards": 2, "total_cards": 300, "last_fault": 0, "uptime_s": 3600},
        ),
        frame("press", sp.PRESS, 8, b"", {}),
        frame("uno", sp.UNO, 9, b"", {}),
        frame("lid_open", sp.LID, 10, b"\x01", {"open": 1}),
        frame("card", sp.CARD, 11, b"\x02", {"count": 2}),
        frame(
            "done_ok",
            sp.DONE,
            12,
            struct.pack(sp.DONE_FMT, 3, 3, 142, 0, 1, 0),
            {"fire_seq": 3, "cards_out": 3, "ran_ms": 142, "outcome": 0, "counted": 1, "reason": 0},
        ),
        frame(
            "done_deadman",
            sp.DONE,
            13,
            struct.pack(sp.DONE_FMT, 3, 1, 1500, 6, 1, 1),
            {"fire_seq": 3, "cards_out": 1, "ran_ms": 1500, "outcome": 6, "counted": 1, "reason": 1},
        ),
        frame(
            "fault_deadman",
            sp.FAULT,
            14,
            struct.pack(sp.FAULT_FMT, 1) + b"host silent",
            {"code": 1, "detail": "host silent"},
        ),
    ]
    good = bytes.fromhex(str(frames[2]["wire"]))
    bad = [
        {"name": "crc_flipped", "wire": (good[:-3] + bytes([good[-3] ^ 0x01]) + good[-2:]).hex()},
        {"name": "truncated", "wire": (good[:-4] + b"\x00").hex()},
        {"name": "too_short", "wire": (b"\x00" + cobs.encode(b"\x03\x00") + b"\x00").hex()},
        {"name": "bad_cobs", "wire": "0009414243000000"},
        {"name": "too_long", "wire": (b"\x00" + cobs.encode(bytes(70)) + b"\x00").hex()},
    ]
    replay = {
        "window": sp.WINDOW,
        "steps": [
            [10, "new"],
            [10, "duplicate"],
            [11, "new"],
            [9, "new"],
            [9, "duplicate"],
            [40, "new"],
            [16, "stale"],
            [17, "new"],
            [17, "duplicate"],
            [65535, "stale"],
            [41, "new"],
            [41 + 0x8000, "stale"],
            [41 + 0x7FFF, "new"],
        ],
    }
    data = {
        "protocol_version": sp.PROTOCOL_VERSION,
        "crc": {
            "name": "CRC-16/CCITT-FALSE",
            "poly": "0x1021",
            "init": "0xFFFF",
            "refin": False,
            "refout": False,
            "xorout": "0x0000",
            "check": "0x29B1",
            "vectors": crc,
        },
        "cobs": cobs_vectors,
        "frames": frames,
        "bad_frames": bad,
        "replay": replay,
        # Shared with the firmware (runner.BRAKE_MS, runner.LIMITS): the GPIO backend's brake before a reversal,
        # and the ceilings of every CONFIG value.
        "motor": {"brake_ms": BRAKE_MS},
        "config_limits": {name: list(limits) for name, limits in sp.DEVICE_LIMITS.items()},
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
