"""Both sides of the wire against the same vectors (firmware/test_vectors.json), plus property checks that the
firmware's hand-written COBS/CRC/replay window agree with the host's library-backed ones."""

from __future__ import annotations

import json
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.mpfakes import FIRMWARE, ensure_firmware_path
from unolauncher.launcher.backends.serial import protocol as sp

ensure_firmware_path()
from unofw import msgs, wire  # noqa: E402

VECTORS = json.loads((FIRMWARE / "test_vectors.json").read_text())
VERDICTS = {"new": 0, "duplicate": 1, "stale": 2}


def test_crc_variant_is_ccitt_false_on_both_sides() -> None:
    assert VECTORS["crc"]["name"] == "CRC-16/CCITT-FALSE"
    assert wire.crc16(b"123456789") == sp.crc16(b"123456789") == 0x29B1  # the catalogue's check value
    for case in VECTORS["crc"]["vectors"]:
        data = bytes.fromhex(case["data"])
        assert wire.crc16(data) == case["crc"]
        assert sp.crc16(data) == case["crc"]


def test_cobs_vectors_on_both_sides() -> None:
    from cobs import cobs

    for case in VECTORS["cobs"]:
        data, encoded = bytes.fromhex(case["data"]), bytes.fromhex(case["encoded"])
        assert wire.cobs_encode(data) == encoded
        assert wire.cobs_decode(encoded) == data
        assert cobs.decode(encoded) == data


def test_frame_vectors_encode_and_decode_identically() -> None:
    assert len(VECTORS["frames"]) >= 15
    for case in VECTORS["frames"]:
        body, wire_bytes = bytes.fromhex(case["body"]), bytes.fromhex(case["wire"])
        assert wire.encode_frame(case["type"], case["seq"], body) == wire_bytes, case["name"]
        assert sp.encode_frame(case["type"], case["seq"], body) == wire_bytes, case["name"]
        assert wire.FrameReader().feed(wire_bytes) == [(case["type"], case["seq"], body)], case["name"]
        assert sp.FrameDecoder().feed(wire_bytes) == [sp.Frame(case["type"], case["seq"], body)], case["name"]


def test_frame_vector_bodies_mean_what_the_spec_says() -> None:
    frames = {case["name"]: case for case in VECTORS["frames"]}
    fire = frames["fire"]
    assert struct.unpack(msgs.FIRE_FMT, bytes.fromhex(fire["body"])) == (1, 3, 900, 80, 250)
    plan = sp.decode_fire(bytes.fromhex(fire["body"]))
    assert (plan.fire, plan.cards, plan.run_ms, plan.power, plan.suspense_ms) == (True, 3, 900, 0.8, 250)
    fire_seq, done = sp.decode_done(bytes.fromhex(frames["done_deadman"]["body"]))
    assert fire_seq == 3
    assert (done.cards_out, done.ran_ms, done.outcome, done.detail) == (1, 1500, "fault", "deadman")
    # message numbers and layouts are the same constants on both sides
    for name in (
        "HELLO",
        "CONFIG",
        "FIRE",
        "STOP",
        "STATUS",
        "EVENT_ACK",
        "RELEASE",
        "SIGNAL",
        "ACK",
        "HELLO_REPLY",
        "STATUS_REPLY",
        "PRESS",
        "UNO",
        "LID",
        "DONE",
        "FAULT",
        "CARD",
        "CONFIG_FMT",
        "FIRE_FMT",
        "ACK_FMT",
        "HELLO_REPLY_FMT",
        "STATUS_REPLY_FMT",
        "DONE_FMT",
        "FAULT_FMT",
    ):
        assert getattr(msgs, name) == getattr(sp, name), name
    assert msgs.OUTCOMES == sp.OUTCOMES and msgs.REASONS == sp.REASONS
    assert wire.WINDOW == sp.WINDOW == VECTORS["replay"]["window"]


def test_bad_frame_vectors_are_rejected_by_both_sides() -> None:
    for case in VECTORS["bad_frames"]:
        data = bytes.fromhex(case["wire"])
        reader, decoder = wire.FrameReader(), sp.FrameDecoder()
        assert reader.feed(data) == [], case["name"]
        assert decoder.feed(data) == [], case["name"]
        assert reader.errors >= 1 and decoder.errors >= 1, case["name"]


def test_replay_window_vectors_on_both_sides() -> None:
    fw, host = wire.ReplayWindow(), sp.ReplayWindow()
    for seq, expected in VECTORS["replay"]["steps"]:
        assert fw.check(seq) == VERDICTS[expected], (seq, expected)
        assert host.check(seq) == VERDICTS[expected], (seq, expected)
        if expected == "new":
            fw.accept(seq)
            host.accept(seq)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600))
def test_firmware_cobs_matches_the_cobs_package(data: bytes) -> None:
    from cobs import cobs

    assert wire.cobs_encode(data) == cobs.encode(data)
    assert wire.cobs_decode(cobs.encode(data)) == data


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=59))
def test_any_frame_round_trips_between_the_two_implementations(msg_type: int, seq: int, body: bytes) -> None:
    assert wire.encode_frame(msg_type, seq, body) == sp.encode_frame(msg_type, seq, body)
    assert wire.FrameReader().feed(sp.encode_frame(msg_type, seq, body)) == [(msg_type, seq, body)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 0xFFFF) | st.integers(0, 60), max_size=80))
def test_replay_windows_agree_on_any_sequence(seqs: list[int]) -> None:
    fw, host = wire.ReplayWindow(), sp.ReplayWindow()
    for seq in seqs:
        verdict = fw.check(seq)
        assert host.check(seq) == verdict
        if verdict == wire.NEW:
            fw.accept(seq)
            host.accept(seq)
            assert fw.check(seq) == wire.DUPLICATE  # accepted once, never again


def test_the_worked_example_in_the_spec_matches_the_vectors() -> None:
    spec = (FIRMWARE.parent / "docs" / "serial-protocol.md").read_text()
    line = next(row for row in spec.splitlines() if row.startswith("on wire "))
    documented = bytes.fromhex(line.removeprefix("on wire").replace("|", "").replace(" ", ""))
    fire = next(case for case in VECTORS["frames"] if case["name"] == "fire")
    assert documented == bytes.fromhex(fire["wire"])
