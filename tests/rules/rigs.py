"""Helpers that rig full-mode games for rule tests: exact hands, starter and stock top (PROTOCOL.md `deal`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from unolauncher.rules.cards import DECKS
from unolauncher.rules.referee import Referee

PLAYERS = ["ann", "bob", "cy"]


def rig(
    ruleset: str,
    hands: dict[str, list[str]],
    starter: str,
    stock_top: list[str] | tuple[str, ...] = (),
    players: list[str] | None = None,
    dealer: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A `new_game` command whose deal is exactly these hands/starter/stock top; the rest of the deck follows
    the stock top in canonical order. The dealer defaults to the last player, so the first player plays first."""
    players = players or list(PLAYERS)
    rest = Counter(DECKS[ruleset])
    used = Counter([starter, *stock_top])
    for cards in hands.values():
        used.update(cards)
    rest.subtract(used)
    if any(v < 0 for v in rest.values()):
        raise ValueError(f"rig uses cards the {ruleset} deck does not have: {[c for c, v in rest.items() if v < 0]}")
    remaining = [c for c in DECKS[ruleset] if rest[c] > 0 and not rest.subtract([c])]
    command: dict[str, Any] = {
        "type": "new_game",
        "ruleset": ruleset,
        "players": players,
        "seed": 1,
        "mode": "full",
        "deal": {
            "dealer": dealer or players[-1],
            "hands": hands,
            "starter": starter,
            "stock": [*stock_top, *remaining],
        },
    }
    command.update(extra)
    return command


def start(ruleset: str, hands: dict[str, list[str]], starter: str, **kw: Any) -> tuple[Referee, list[dict[str, Any]]]:
    ref = Referee()
    events = ref.handle(rig(ruleset, hands, starter, **kw))
    assert events[0]["type"] == "game_started", events
    return ref, events


def ok(ref: Referee, command: dict[str, Any]) -> list[dict[str, Any]]:
    """Apply a command that must be accepted."""
    events = ref.handle(command)
    assert events and events[0]["type"] != "rejected", events
    return events


def refused(ref: Referee, command: Any, code: str) -> dict[str, Any]:
    """Apply a command that must be refused with `code`, and check it changed nothing."""
    before = ref.to_json()
    events = ref.handle(command)
    assert len(events) == 1 and events[0]["type"] == "rejected", events
    assert events[0]["code"] == code, events[0]
    assert isinstance(events[0]["message"], str) and events[0]["message"].endswith(".")
    assert ref.to_json() == before
    return events[0]


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]
