"""The pure standings logic behind ``unolauncher league``: seq checking, payload validation, ranking."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from support.fake_tables import state_payload as state
from unolauncher.league import MAX_REMEMBERED_MISSING, SeqTracker, Standings, render_text


def test_seq_tracker_in_order_stream_has_no_gaps() -> None:
    t = SeqTracker()
    outcomes = [t.add(s) for s in range(5, 105)]
    assert outcomes == ["ok"] * 100
    assert (t.first, t.last, t.count, t.gaps, t.duplicates, t.reordered) == (5, 104, 100, 0, 0, 0)


def test_seq_tracker_counts_gap_late_arrival_and_duplicate() -> None:
    t = SeqTracker()
    assert [t.add(s) for s in (1, 2, 5)] == ["ok", "ok", "gap"]
    assert t.gaps == 2
    assert t.add(4) == "reordered"
    assert t.add(4) == "duplicate"
    assert t.add(2) == "duplicate"
    assert (t.gaps, t.reordered, t.duplicates) == (1, 1, 2)


def test_seq_tracker_bounds_memory_on_a_hostile_jump() -> None:
    t = SeqTracker()
    t.add(0)
    t.add(10**12)
    assert t.gaps == MAX_REMEMBERED_MISSING
    assert t.last == 10**12


def test_standings_follow_state_events_and_status() -> None:
    league = Standings()
    assert league.feed("unolauncher/t1/status", b"online") is None
    assert league.feed("unolauncher/t1/state", state(["ann", "bob"], {"ann": 40, "bob": 120}, rnd=3)) is None
    assert league.feed("unolauncher/t2/state", state(["cy", "ann"], {"cy": 510, "ann": 30}, winner="cy")) is None
    assert league.feed("unolauncher/t2/status", b"offline") is None
    for seq in (1, 2, 3, 5):
        assert league.feed("unolauncher/t1/events", json.dumps({"type": "play", "seq": seq}).encode()) is None
    snap = league.snapshot()
    t1, t2 = snap["tables"]
    assert (t1["table"], t1["status"], t1["round"], t1["leader"], t1["last_seq"], t1["gaps"]) == (
        "t1",
        "online",
        3,
        "bob",
        5,
        1,
    )
    assert (t2["status"], t2["winner"], t2["leader"]) == ("offline", "cy", "cy")
    assert [r["player"] for r in snap["ranking"]] == ["cy", "bob", "ann"]
    ann = next(r for r in snap["ranking"] if r["player"] == "ann")
    assert (ann["tables"], ann["points"], ann["wins"]) == (2, 70, 0)
    assert snap["totals"] == {
        "tables": 2,
        "online": 1,
        "events": 4,
        "gaps": 1,
        "duplicates": 0,
        "reordered": 0,
        "invalid": 0,
    }
    text = render_text(snap)
    assert "t1" in text and "bob:120" in text and "offline" in text


def test_invalid_messages_are_counted_with_a_reason_and_change_nothing() -> None:
    league = Standings()
    league.feed("unolauncher/t1/state", state(["ann", "bob"], {"ann": 0, "bob": 10}))
    before = league.snapshot()["tables"][0]
    bad = [
        ("unolauncher/t1/state", b"{not json", "not valid JSON"),
        ("unolauncher/t1/state", b"[1, 2]", "JSON object"),
        ("unolauncher/t1/state", b'{"players": "ann"}', "'players'"),
        ("unolauncher/t1/state", b'{"players": ["a"], "scores": {"a": "lots"}}', "'scores'"),
        ("unolauncher/t1/state", b'{"players": ["a"], "round": 1.5}', "'round'"),
        ("unolauncher/t1/state", b'{"players": ["a"], "scores": {"a": Infinity}}', "'scores'"),
        ("unolauncher/t1/state", b"\xff\xfe", "UTF-8"),
        ("unolauncher/t1/state", b"[" * 100_000, "not valid JSON"),
        ("unolauncher/t1/state", b'{"players": [], "x": "' + b"a" * 300_000 + b'"}', "larger than"),
        ("unolauncher/t1/events", b'{"type": "play", "seq": -1}', "'seq'"),
        ("unolauncher/t1/events", b'{"type": "play", "seq": true}', "'seq'"),
        ("unolauncher/t1/events", b'{"type": "play", "seq": ' + b"9" * 5000 + b"}", "not valid JSON"),
        ("unolauncher/t1/events", b'{"seq": 3}', "'type'"),
        ("unolauncher/t1/status", b"maybe", "'online' or 'offline'"),
    ]
    for topic, payload, why in bad:
        reason = league.feed(topic, payload)
        assert reason is not None and why in reason, (payload[:40], reason)
    assert league.snapshot()["tables"][0] == {
        **before,
        "invalid": len(bad),
        "last_error": league.tables["t1"].last_error,
    }
    assert league.feed("unolauncher/t1/extra/state", b"{}") is not None
    assert league.feed("other/t1/state", b"{}") is not None
    assert league.invalid == 2
    assert league.snapshot()["totals"]["invalid"] == len(bad) + 2


def test_status_accepts_plain_and_json_forms() -> None:
    league = Standings()
    for payload, expected in ((b"online", "online"), (b'"offline"', "offline"), (b'{"status": "online"}', "online")):
        assert league.feed("unolauncher/t/status", payload) is None
        assert league.tables["t"].status == expected


def test_empty_retained_state_clears_the_table() -> None:
    league = Standings()
    league.feed("unolauncher/t/state", state(["ann", "bob"], {"ann": 1, "bob": 2}))
    assert league.feed("unolauncher/t/state", b"") is None
    assert league.tables["t"].players == [] and league.tables["t"].scores == {}


@settings(max_examples=300, deadline=None)
@given(
    table=st.text(min_size=0, max_size=20),
    kind=st.sampled_from(["state", "events", "status", "cmd", ""]),
    payload=st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
            max_leaves=20,
        ).map(lambda v: json.dumps(v).encode()),
    ),
)
def test_feed_never_raises_on_arbitrary_input(table: str, kind: str, payload: bytes) -> None:
    league = Standings()
    result = league.feed(f"unolauncher/{table}/{kind}", payload)
    assert result is None or isinstance(result, str)
    json.dumps(league.snapshot())  # the snapshot stays serialisable whatever came in
    render_text(league.snapshot())


def test_a_wildcard_base_spans_venues_and_names_tables_by_venue() -> None:
    league = Standings(base="venues/+/unolauncher")
    assert league.feed("venues/paris/unolauncher/t1/events", b'{"type": "play", "seq": 1}') is None
    assert league.feed("venues/lyon/unolauncher/t1/events", b'{"type": "play", "seq": 9}') is None
    assert sorted(league.tables) == ["lyon/t1", "paris/t1"]
    assert league.feed("venues//unolauncher/t1/events", b'{"type": "play", "seq": 1}') is not None
    assert league.feed("venues/paris/other/t1/events", b'{"type": "play", "seq": 1}') is not None
    assert league.feed("venues/paris/unolauncher/t1/x/events", b'{"type": "play", "seq": 1}') is not None
    assert league.tables["paris/t1"].seq.last == 1 and league.invalid == 3
