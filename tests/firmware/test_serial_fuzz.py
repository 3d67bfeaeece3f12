"""Protocol fuzzing (hypothesis, bounded): random bytes, truncated and corrupted frames, wrong CRCs, replayed
sequence numbers - on the firmware (virtual time) and on the host's SerialLauncher (real pty). No crash, no motor
run from a corrupt frame, resynchronisation within one frame."""

from __future__ import annotations

import os
import struct
import threading
import time
import tty
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from firmware.fwsim import Harness
from firmware.mpfakes import duties, mp_time
from support.net import wait_until
from unolauncher.clock import RealClock
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.launcher import SerialLauncher, SerialSettings
from unolauncher.launcher.interface import FirePlan, FireResult

FIRE_BODY = sp.encode_fire(FirePlan(fire=True, cards=3))
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def contains_valid(data: bytes, msg_type: int) -> bool:
    """Whether ``data`` happens to contain a well-formed frame of ``msg_type`` (then a run is legitimate)."""
    return any(f.type == msg_type for f in sp.FrameDecoder().feed(data + b"\x00"))


def fresh() -> Harness:
    h = Harness(magazine=50)
    h.hello()
    return h


@pytest.fixture(autouse=True)
def _real_time_after() -> Iterator[None]:
    yield
    mp_time.use_real()


# ---- firmware ------------------------------------------------------------------------------------------------


@FUZZ
@given(st.binary(min_size=1, max_size=400))
def test_random_bytes_never_crash_the_firmware_or_run_the_motor(data: bytes) -> None:
    h = fresh()
    h.send_raw(data)
    h.loop(30)
    if not contains_valid(data, sp.FIRE):
        assert h.physics.forward_ms == 0 and duties(h.board._pwm) == [0, 0]
        assert h.done() == []
    assert h.status()["uptime_s"] == 0  # still answering


@FUZZ
@given(st.data())
def test_corrupted_fire_frames_never_run_the_motor(data: st.DataObject) -> None:
    wire = bytearray(sp.encode_frame(sp.FIRE, 500, FIRE_BODY))
    kind = data.draw(st.sampled_from(["flip", "truncate", "insert", "delete", "crc"]))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 3))):
            pos = data.draw(st.integers(1, len(wire) - 2))
            wire[pos] ^= 1 << data.draw(st.integers(0, 7))
    elif kind == "truncate":
        wire = wire[: data.draw(st.integers(1, len(wire) - 2))] + b"\x00"
    elif kind == "insert":
        pos = data.draw(st.integers(1, len(wire) - 1))
        wire[pos:pos] = data.draw(st.binary(min_size=1, max_size=4).filter(lambda b: 0 not in b))
    elif kind == "delete":
        pos = data.draw(st.integers(1, len(wire) - 2))
        del wire[pos]
    else:  # a frame with a well-formed COBS layer but the wrong CRC
        payload = struct.pack(">BH", sp.FIRE, 500) + FIRE_BODY
        crc = (sp.crc16(payload) ^ data.draw(st.integers(1, 0xFFFF))) & 0xFFFF
        from cobs import cobs

        wire = bytearray(b"\x00" + cobs.encode(payload + struct.pack(">H", crc)) + b"\x00")
    assume(not contains_valid(bytes(wire), sp.FIRE))
    h = fresh()
    h.send_raw(bytes(wire))
    h.loop(40)
    assert h.physics.forward_ms == 0 and not h.motor_on() and h.done() == []
    assert h.fw.reader.errors >= 1 or not any(wire[1:-1])


@FUZZ
@given(st.binary(max_size=200), st.binary(max_size=30))
def test_resynchronises_within_one_frame(garbage: bytes, tail: bytes) -> None:
    h = fresh()
    # noise, then a frame: the frame's leading delimiter ends the noise, so the frame itself is not lost
    h.send_raw(garbage)
    seq = h.send(sp.STATUS)
    h.loop(3)
    assert h.replies_to(seq), "the frame right after the noise was lost"
    # a frame cut short by noise is lost (one frame), the next one is not
    cut = sp.encode_frame(sp.STATUS, h.seq + 1)[: len(sp.encode_frame(sp.STATUS, 0)) // 2]
    h.seq += 1
    h.send_raw(cut + tail)
    seq = h.send(sp.STATUS)
    h.loop(3)
    assert h.replies_to(seq)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 60), st.integers(0, 0xFFFF))
def test_a_replayed_fire_never_runs_twice(commands_between: int, start_seq: int) -> None:
    h = Harness(magazine=50)
    h.seq = start_seq  # sequence numbers anywhere in the 16-bit space, wrap-around included
    h.hello()
    fire_seq = (h.seq + 1) & 0xFFFF
    wire = sp.encode_frame(sp.FIRE, fire_seq, FIRE_BODY)
    h.seq = fire_seq
    h.send_raw(wire)
    h.loop(300)
    assert [r.cards_out for r in h.done()] == [3]
    for _ in range(commands_between):
        h.send(sp.STATUS)
    h.loop(2)
    h.received.clear()
    h.send_raw(wire)  # byte-for-byte replay
    h.loop(100)
    assert h.physics.ejected == 3 and h.done() == [] and not h.motor_on()
    [reply] = h.replies_to(fire_seq)
    code = sp.decode_ack(reply.body)[1]
    assert code in (sp.AckCode.OK, sp.AckCode.STALE_SEQ)  # the cached answer, or "too old"
    # The window counts sequence numbers, not commands: the host's EVENT_ACK for the run-finished event used one
    # too. Inside the window the cached answer comes back; beyond it, "too old".
    behind = (h.seq - fire_seq) & 0xFFFF
    assert behind >= commands_between
    assert (code == sp.AckCode.OK) == (behind < sp.WINDOW), (commands_between, behind)


# ---- host ----------------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    st.binary(max_size=300),
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.binary(max_size=40),
    st.lists(st.integers(1, 50), max_size=6),
)
def test_host_decoder_survives_noise_and_finds_the_frame(
    noise: bytes, msg_type: int, seq: int, body: bytes, cuts: list[int]
) -> None:
    stream = noise + sp.encode_frame(msg_type, seq, body)
    decoder = sp.FrameDecoder()
    frames: list[sp.Frame] = []
    pos = 0
    for cut in [*cuts, len(stream)]:  # arbitrary read boundaries
        frames += decoder.feed(stream[pos : pos + cut])
        pos += cut
    frames += decoder.feed(stream[pos:])
    assert frames[-1] == sp.Frame(msg_type, seq, body)


class ScriptedDevice:
    """A hand-played co-processor on a pty: answers HELLO/STATUS/commands, and sends whatever a test wants."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self.slave = slave
        os.set_blocking(self.master, False)
        self.decoder = sp.FrameDecoder()
        self.seq = 0
        self.heard: list[sp.Frame] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def send(self, msg_type: int, body: bytes = b"", seq: int | None = None) -> int:
        if seq is None:
            self.seq = (self.seq + 1) & 0xFFFF
            seq = self.seq
        self.raw(sp.encode_frame(msg_type, seq, body))
        return seq

    def raw(self, data: bytes) -> None:
        os.write(self.master, data)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, OSError):
                time.sleep(0.001)  # poll: nothing to read yet
                continue
            for frame in self.decoder.feed(data):
                self.heard.append(frame)
                if frame.type == sp.HELLO:
                    self.send(sp.HELLO_REPLY, struct.pack(sp.HELLO_REPLY_FMT, frame.seq, 1, 1, 0) + b"fuzz")
                elif frame.type == sp.STATUS:
                    self.send(sp.STATUS_REPLY, struct.pack(sp.STATUS_REPLY_FMT, frame.seq, 16, 0, 0, 0, 1))
                elif frame.type != sp.EVENT_ACK:
                    self.send(sp.ACK, struct.pack(sp.ACK_FMT, frame.seq, 0))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture(scope="module")
def scripted() -> Iterator[tuple[ScriptedDevice, SerialLauncher, dict[str, Any]]]:
    device = ScriptedDevice()
    launcher = SerialLauncher(SerialSettings(port=device.path, reply_timeout_s=0.05), RealClock())
    seen: dict[str, Any] = {"presses": 0, "events": []}
    launcher.on_press = lambda: seen.__setitem__("presses", seen["presses"] + 1)
    launcher.on_event = seen["events"].append
    assert wait_until(lambda: launcher.status().extra["connected"], 5)
    yield device, launcher, seen
    launcher.close()
    device.close()


def _press_gets_through(device: ScriptedDevice, seen: dict[str, Any]) -> bool:
    before = seen["presses"]
    device.send(sp.PRESS)
    return wait_until(lambda: seen["presses"] == before + 1, 3)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.integers(0x80, 0xAF), st.binary(max_size=12)), min_size=1, max_size=12),
    st.binary(max_size=100),
)
def test_host_survives_well_formed_frames_with_nonsense_bodies(
    scripted: tuple[ScriptedDevice, SerialLauncher, dict[str, Any]], frames: list[tuple[int, bytes]], noise: bytes
) -> None:
    device, launcher, seen = scripted
    for msg_type, body in frames:
        if msg_type == sp.PRESS:
            continue  # counted below
        device.send(msg_type, body)
    device.raw(noise)
    assert _press_gets_through(device, seen)  # the reader thread is alive and in sync
    assert launcher.status().extra["connected"]


def test_host_ignores_replayed_device_events(scripted: tuple[ScriptedDevice, SerialLauncher, dict[str, Any]]) -> None:
    device, launcher, seen = scripted
    before = seen["presses"]
    seq = device.send(sp.PRESS)
    assert wait_until(lambda: seen["presses"] == before + 1, 3)
    for _ in range(3):
        device.send(sp.PRESS, seq=seq)  # the firmware retransmitting an event we acknowledged
    device.send(sp.PRESS, seq=(seq - 40) & 0xFFFF)  # far behind the window: stale
    assert _press_gets_through(device, seen)
    assert seen["presses"] == before + 2
    assert launcher.status().extra["duplicates"] >= 4

    def acks() -> int:
        return [struct.unpack(">H", f.body)[0] for f in list(device.heard) if f.type == sp.EVENT_ACK].count(seq)

    assert wait_until(lambda: acks() == 4, 3), acks()  # every copy is acknowledged, so the firmware stops resending


def test_host_done_with_a_corrupt_outcome_does_not_end_the_run(
    scripted: tuple[ScriptedDevice, SerialLauncher, dict[str, Any]],
) -> None:
    device, launcher, _ = scripted
    results: list[FireResult] = []
    assert launcher.fire(FirePlan(fire=True, cards=2), results.append)
    assert wait_until(lambda: any(f.type == sp.FIRE for f in list(device.heard)), 2)
    fire_seq = next(f.seq for f in list(device.heard) if f.type == sp.FIRE)
    device.send(sp.DONE, struct.pack(sp.DONE_FMT, fire_seq, 2, 100, 99, 1, 0))  # outcome 99 does not exist
    device.send(sp.DONE, b"\x02")  # truncated body
    device.send(sp.DONE, struct.pack(sp.DONE_FMT, (fire_seq - 1) & 0xFFFF, 5, 100, 0, 1, 0))  # ends another FIRE
    # The link reads frames in order: once the third is counted, the first two were read, and they ended nothing.
    assert wait_until(lambda: launcher.status().extra["stale_done"] >= 1, 3)
    assert results == [] and launcher.status().running
    device.send(sp.DONE, struct.pack(sp.DONE_FMT, fire_seq, 2, 100, 0, 1, 0))
    assert wait_until(lambda: results, 3)
    assert [(r.cards_out, r.outcome) for r in results] == [(2, "ok")]
