"""Commit-then-reveal of players' entropy in the referee (rules/ejection_entropy.py; docs/fairness.md): the window's
phases, the seal at the first press in commit order, a withheld contribution on the record, and ``verify``'s audit
agreeing with the referee."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from unolauncher.rules.ejection import EjectionModel
from unolauncher.rules.ejection_audit import audit
from unolauncher.rules.ejection_entropy import COMMIT_WINDOW_MS
from unolauncher.rules.referee import Referee

SECRET = "ab" * 32
GAME = {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "mode": "table", "secret": SECRET,
        "deal": {"dealer": "bob", "starter": "red 5", "hands": {"ann": 7, "bob": 7}}}  # fmt: skip


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Logged(Referee):
    """A referee that keeps every event it gave (refusals aside), as the journal does."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[dict[str, Any]] = []

    def handle(self, command: dict[str, Any]) -> list[dict[str, Any]]:
        events = super().handle(command)
        self.log.extend(e for e in events if e["type"] != "rejected")
        return events


def play() -> tuple[Logged, list[dict[str, Any]], str]:
    ref = Logged()
    ref.handle(GAME)
    return ref, ref.log, str(ref.log[1]["commitment"])


def replace_game(ref: Logged) -> None:
    ref.handle({**GAME, "secret": "cd" * 32})  # the round's secret comes out


def test_contributions_are_mixed_in_commit_order_at_the_first_press_and_a_withheld_one_is_recorded() -> None:
    ref, log, _ = play()
    a, b, c = "a1" * 8, "b2" * 8, "c3" * 8
    for n, (e, client) in enumerate(((b, "p1"), (a, "p2"), (c, "p3"))):
        assert ref.handle({"type": "entropy", "hash": sha(e), "client": client, "at": 1000 + n})[0]["type"] == (
            "ejection_entropy_commit"
        )
    early = ref.handle({"type": "entropy", "entropy": a, "at": 1000 + COMMIT_WINDOW_MS - 1})[0]
    assert early["code"] == "entropy_too_early"
    late = ref.handle({"type": "entropy", "hash": sha("d4" * 8), "client": "p4", "at": 1000 + COMMIT_WINDOW_MS})[0]
    assert late["code"] == "entropy_window_closed"
    for e in (a, b):  # revealed in the other order than committed: the order of commitment counts
        assert ref.handle({"type": "entropy", "entropy": e, "at": 2000})[0]["type"] == "ejection_entropy_revealed"
    plain = ref.handle({"type": "entropy", "entropy": "e5" * 8, "at": 2000})[0]
    assert plain["code"] == "entropy_not_committed"
    planned = ref.next_fire_plan("ann")
    events = ref.handle({"type": "pressed", "player": "ann"})
    assert [e["type"] for e in events] == ["ejection_entropy", "ejection_entropy", "ejection_entropy_withheld", "press"]
    assert [e.get("entropy") for e in events[:2]] == [b, a] and events[2]["client"] == "p3"
    model = EjectionModel("classic")
    state = model.with_entropy(model.with_entropy(model.start(SECRET), b), a)
    assert planned is not None
    assert model.plan(state, "ann")[0].to_json() == events[3]["plan"] == planned.to_json()  # the peek agreed
    assert ref.handle({"type": "entropy", "entropy": c, "at": 3000})[0]["code"] == "entropy_window_closed"
    replace_game(ref)
    report = audit([(f"line {i}", e) for i, e in enumerate(log, start=1)])
    assert report.ok() and not report.ok(strict=True)
    assert any("entropy withheld by client p3" in w for w in report.warnings)


@pytest.mark.parametrize("field", ["entropy", "hash"])
def test_verify_catches_entropy_that_was_not_committed(field: str) -> None:
    ref, log, _ = play()
    e = "a1" * 8
    ref.handle({"type": "entropy", "hash": sha(e), "client": "p1", "at": 0})
    ref.handle({"type": "entropy", "entropy": e, "at": COMMIT_WINDOW_MS})
    ref.handle({"type": "pressed", "player": "ann"})
    replace_game(ref)
    assert audit([(f"line {i}", e) for i, e in enumerate(log, start=1)]).ok(strict=True)
    mixed = next(e for e in log if e["type"] == "ejection_entropy")
    mixed[field] = "ff" * 8 if field == "entropy" else sha("ff" * 8)  # a box that swapped the phone's contribution
    report = audit([(f"line {i}", e) for i, e in enumerate(log, start=1)])
    assert not report.ok(allow_rigged=True)
