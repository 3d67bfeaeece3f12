"""Pure firmware logic under MicroPython: every module imports, the wire vectors, debounce, the output queue."""

import json
import struct

import vclock
from mpcheck import run

with open("/vectors.json") as f:
    VECTORS = json.load(f)
MODULES = (
    "unofw",
    "unofw.msgs",
    "unofw.wire",
    "unofw.outq",
    "unofw.debounce",
    "unofw.board",
    "unofw.runner",
    "unofw.feedback",
    "unofw.app",
    "unofw.rp2040",
)


def unhex(text):
    return bytes.fromhex(text)


def test_the_interpreter_is_micropython():
    import sys

    assert sys.implementation.name == "micropython"
    assert tuple(sys.implementation.version[:2]) >= (1, 27), sys.implementation.version


def test_every_unofw_module_imports():
    import sys

    for name in MODULES:
        __import__(name)
        assert name in sys.modules, name
    from unofw import rp2040

    assert rp2040.runtime_problem() is None  # this interpreter is a MicroPython new enough for the firmware


def test_ticks_wrap_at_two_to_the_thirty():
    assert vclock.ticks_add(vclock.PERIOD - 1, 1) == 0
    assert vclock.ticks_diff(2, vclock.PERIOD - 3) == 5


def test_crc_vectors():
    from unofw import wire

    assert wire.crc16(b"123456789") == int(VECTORS["crc"]["check"], 16) == 0x29B1
    for case in VECTORS["crc"]["vectors"]:
        assert wire.crc16(unhex(case["data"])) == case["crc"], case


def test_cobs_vectors():
    from unofw import wire

    for case in VECTORS["cobs"]:
        data, encoded = unhex(case["data"]), unhex(case["encoded"])
        assert wire.cobs_encode(data) == encoded, case
        assert wire.cobs_decode(encoded) == data, case


def test_frame_vectors():
    from unofw import wire

    assert len(VECTORS["frames"]) >= 15
    for case in VECTORS["frames"]:
        body, on_wire = unhex(case["body"]), unhex(case["wire"])
        assert wire.encode_frame(case["type"], case["seq"], body) == on_wire, case["name"]
        assert wire.FrameReader().feed(on_wire) == [(case["type"], case["seq"], body)], case["name"]


def test_frames_split_anywhere_decode_the_same():
    from unofw import wire

    stream = b"".join(unhex(case["wire"]) for case in VECTORS["frames"])
    for size in (1, 3, 7, 64):
        reader, got = wire.FrameReader(), []
        for i in range(0, len(stream), size):
            got.extend(reader.feed(stream[i : i + size]))
        assert len(got) == len(VECTORS["frames"]), size


def test_bad_frame_vectors_are_rejected():
    from unofw import wire

    for case in VECTORS["bad_frames"]:
        reader = wire.FrameReader()
        assert reader.feed(unhex(case["wire"])) == [], case["name"]
        assert reader.errors >= 1, case["name"]


def test_replay_window_vectors():
    from unofw import wire

    verdicts = {"new": wire.NEW, "duplicate": wire.DUPLICATE, "stale": wire.STALE}
    assert VECTORS["replay"]["window"] == wire.WINDOW
    window = wire.ReplayWindow()
    for seq, expected in VECTORS["replay"]["steps"]:
        assert window.check(seq) == verdicts[expected], (seq, expected)
        if expected == "new":
            window.accept(seq)


def test_message_layouts_match_the_vectors():
    from unofw import msgs, runner

    frames = {case["name"]: case for case in VECTORS["frames"]}
    assert struct.unpack(msgs.FIRE_FMT, unhex(frames["fire"]["body"])) == (1, 3, 900, 80, 250)
    fields = frames["config_defaults"]["fields"]
    values = struct.unpack(msgs.CONFIG_FMT, unhex(frames["config_defaults"]["body"]))
    assert list(values) == [fields[name] for name in runner.CONFIG_ORDER]
    assert VECTORS["motor"]["brake_ms"] == runner.BRAKE_MS
    for name, (low, high) in VECTORS["config_limits"].items():
        assert tuple(runner.LIMITS[name]) == (low, high), name


def test_config_limits_refuse_each_value_just_outside():
    from unofw import runner

    defaults = [VECTORS["frames"][1]["fields"][name] for name in runner.CONFIG_ORDER]
    assert runner.config_problem(defaults) is None
    for i, name in enumerate(runner.CONFIG_ORDER):
        low, high = runner.LIMITS[name]
        for bad in (low - 1, high + 1):
            values = list(defaults)
            values[i] = bad
            assert runner.config_problem(values) == name, (name, bad)


def test_debounce_leading_reports_the_first_edge_and_ignores_bounce_across_the_wrap():
    from unofw.debounce import Debouncer

    diff = vclock.ticks_diff
    t0 = vclock.PERIOD - 5
    deb = Debouncer(20, leading=True)
    assert deb.update(True, t0, diff) is True
    for i, level in enumerate((False, True, False, True)):
        assert deb.update(level, vclock.ticks_add(t0, i + 1), diff) is None
    assert deb.update(False, vclock.ticks_add(t0, 25), diff) is False


def test_debounce_trailing_waits_for_a_stable_level():
    from unofw.debounce import Debouncer

    diff = vclock.ticks_diff
    deb = Debouncer(20, leading=False)
    t0 = vclock.PERIOD - 10
    assert deb.update(True, t0, diff) is None
    assert deb.update(False, vclock.ticks_add(t0, 5), diff) is None  # a knock: back to the old level
    assert deb.update(True, vclock.ticks_add(t0, 6), diff) is None
    assert deb.update(True, vclock.ticks_add(t0, 25), diff) is None
    assert deb.update(True, vclock.ticks_add(t0, 26), diff) is True


def test_output_queue_wraps_and_drops_whole_frames():
    from unofw.outq import CHUNK, OutQueue

    q = OutQueue(10)
    assert q.put(b"abcdef") and q.free() == 4
    assert bytes(q.peek(4)) == b"abcd"
    q.consume(4)
    assert q.put(b"ghijkl")  # wraps round the end of the buffer
    assert not q.put(b"xyz") and q.dropped == 1  # does not fit: dropped whole, nothing half-queued
    out = b""
    while q.size:
        view = q.peek(CHUNK)
        out += bytes(view)
        q.consume(len(view))
    assert out == b"efghijkl"


run(globals())
