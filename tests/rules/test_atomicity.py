"""A command is atomic in the referee: it applies whole, or the referee is exactly as before — undo history included.

The command schema keeps junk out (unknown fields, absurd nesting); for what gets past it, a handler that raises
half-way (a bug) is simulated by making one step of a real handler raise after it has changed the state.
"""

from __future__ import annotations

from typing import Any

import pytest

from unolauncher.rules import referee as referee_module
from unolauncher.rules.ejection import params_from_table
from unolauncher.rules.referee import COMMAND_TYPES, Referee
from unolauncher.rules.schema import COMMAND_FIELDS, EJECTION_CUSTOM, OPTIONS
from unolauncher.rules.state import DEFAULT_OPTIONS, OPTIONAL_OPTIONS

from .rigs import ok, refused, start

HANDS = {"ann": ["red hit-2", "red 1", "red 2"], "bob": ["blue 7", "blue 8"], "cy": ["yellow 3", "yellow 4"]}


def game_with_history() -> Referee:
    """An attack game three accepted commands in (a play, two hits): undo has something to take back."""
    ref, _ = start("attack", HANDS, "red 5", launcher={"script": [0, 2]})
    ok(ref, {"type": "play", "player": "ann", "card": "red hit-2"})
    ok(ref, {"type": "hit"})
    ok(ref, {"type": "hit"})
    return ref


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


def test_a_hit_with_a_deeply_nested_junk_field_is_refused_and_undo_stays_in_step() -> None:
    """Issue #18 (2): such a hit was accepted and journalled; the next undo then failed half-way."""
    ref = game_with_history()
    refused(ref, {"type": "hit", "cards": 2, "x": deep(600)}, "unknown_field")
    mirror = game_with_history()
    assert ref.handle({"type": "undo"})[0]["type"] == "undone"
    assert mirror.handle({"type": "undo"})[0]["type"] == "undone"
    assert ref.to_json() == mirror.to_json()


def test_a_refused_new_game_keeps_the_undo_history() -> None:
    """Issue #18 (2): a new_game refused for a 600-deep field had already emptied the undo history."""
    ref = game_with_history()
    new_game = {"type": "new_game", "ruleset": "classic", "players": ["a", "b"]}
    refused(ref, {**new_game, "x": deep(600)}, "unknown_field")
    refused(ref, {**new_game, "deal": {"x": deep(600)}}, "unknown_field")
    assert ref.handle({"type": "undo"})[0]["type"] == "undone"


def fails_once(real: Any, error: Exception) -> Any:
    """``real`` with its first call raising ``error`` instead (the rollback itself may call it again)."""
    calls = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise error
        return real(*args, **kwargs)

    return wrapper


def test_a_handler_that_raises_half_way_leaves_state_and_history_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    ref = game_with_history()
    before = ref.to_json()
    # _start_round runs after new_game has replaced the state, the undo history and the prior game.
    monkeypatch.setattr(Referee, "_start_round", fails_once(Referee._start_round, RuntimeError("simulated bug")))
    events = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 3})
    assert [e["code"] for e in events] == ["internal_error"]
    assert ref.to_json() == before
    mirror = game_with_history()
    assert ref.handle({"type": "undo"}) == mirror.handle({"type": "undo"})
    assert ref.to_json() == mirror.to_json()


def test_a_hit_that_raises_after_taking_cards_is_rolled_back(monkeypatch: pytest.MonkeyPatch) -> None:
    ref, _ = start("attack", HANDS, "red 5", launcher={"script": [3]})
    before = ref.to_json()
    real_take = Referee._take

    def take_then_fail(self: Referee, *args: Any, **kwargs: Any) -> int:
        real_take(self, *args, **kwargs)  # the cards moved to the hand ...
        raise ValueError("simulated bug")  # ... then the handler fails

    monkeypatch.setattr(Referee, "_take", take_then_fail)
    assert [e["code"] for e in ref.handle({"type": "hit"})] == ["internal_error"]
    assert ref.to_json() == before


@pytest.mark.parametrize("card", ["yellow skip", "wild"])
def test_a_play_on_the_fast_path_that_raises_after_playing_is_rolled_back(
    monkeypatch: pytest.MonkeyPatch, card: str
) -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 4})
    ok(ref, {"type": "play", "player": "ann", "card": "yellow 8"})  # something in the undo history
    ok(ref, {"type": "draw", "player": "bob"})
    if ref.state.current != 0:
        ok(ref, {"type": "pass", "player": "bob"})
    before = ref.to_json()
    real_apply = Referee._apply_play
    calls = []

    def apply_then_fail(self: Referee, *args: Any, **kwargs: Any) -> Any:
        events = real_apply(self, *args, **kwargs)  # the card left the hand, the turn moved on ...
        calls.append(1)
        if len(calls) == 1:  # ... then the fast path fails (the rollback replays the undo history: that works)
            raise ValueError("simulated bug")
        return events

    monkeypatch.setattr(Referee, "_apply_play", apply_then_fail)
    move = {"type": "play", "player": "ann", "card": card, **({"color": "red"} if card == "wild" else {})}
    assert [e["code"] for e in ref.handle(move)] == ["internal_error"]
    assert ref.to_json() == before


def test_an_undo_whose_rebuild_fails_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    ref = game_with_history()
    before = ref.to_json()
    # Undo rebuilds the game from its start by replaying the history (the play first): that replay fails.
    play = referee_module._HANDLERS["play"]
    monkeypatch.setitem(referee_module._HANDLERS, "play", fails_once(play, RuntimeError("simulated bug")))
    assert [e["code"] for e in ref.handle({"type": "undo"})] == ["internal_error"]
    assert ref.to_json() == before


def test_every_command_type_has_a_schema_and_the_options_tables_match_the_code() -> None:
    assert set(COMMAND_FIELDS) == set(COMMAND_TYPES)
    assert set(OPTIONS) == set(DEFAULT_OPTIONS) | set(OPTIONAL_OPTIONS)
    for key in EJECTION_CUSTOM:  # each key the schema lets through is one the ejection model knows
        with pytest.raises(ValueError) as info:
            params_from_table({key: "?"})
        assert "unknown custom ejection key" not in str(info.value)
    with pytest.raises(ValueError, match="unknown custom ejection key"):
        params_from_table({"jitter": 1})


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ({"type": "hit", "pad": "x" * 60_000}, "unknown_field"),
        ({"type": "play", "player": "ann", "card": "red 1", "colour": "red"}, "unknown_field"),
        ({"type": "undo", "x": 1}, "unknown_field"),
        ({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "options": {"x": 1}}, "unknown_field"),
        (
            {"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "launcher": {"script": [1], "x": 1}},
            "unknown_field",
        ),
        ({"type": "new_game", "ruleset": "classic", "players": ["\u202eevil", "b"]}, "bad_players"),
        ({"type": "new_game", "ruleset": "classic", "players": ["a\u0000", "b"]}, "bad_players"),
        ({"type": "new_game", "ruleset": "classic", "players": [" a", "b"]}, "bad_players"),
        ({"type": "new_game", "ruleset": "classic", "players": ["a\u2066", "b"]}, "bad_players"),
        ({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1.5}, "bad_field"),
        ({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": float("nan")}, "bad_field"),
        (
            {
                "type": "new_game",
                "ruleset": "attack",
                "players": ["a", "b"],
                "options": {"customizable": {"action": "hit", "label": "x\u202e"}},
            },
            "bad_option",
        ),
        (
            {
                "type": "new_game",
                "ruleset": "attack",
                "players": ["a", "b"],
                "options": {"ejection_preset": "custom", "ejection_custom": {"miss_hazard": [float("inf")]}},
            },
            "bad_option",
        ),
        ({"type": "hit", "cards": float("nan")}, "bad_field"),
        ({"type": "hit", "cards": 2**63}, "bad_field"),
        ({"type": "score", "hands": {"a": -1}}, "bad_field"),
        ({"type": "play", "id": [1], "player": "ann", "card": "red 1"}, "bad_field"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_what_the_schema_refuses(command: dict[str, Any], code: str) -> None:
    ref = game_with_history()
    event = refused(ref, command, code)
    assert len(event["message"]) < 300


@pytest.mark.parametrize(
    ("extra", "code"),
    [({"colour": "red"}, "unknown_field"), ({"pad": "x" * 60_000}, "unknown_field"), ({"id": [1]}, "bad_field")],
)
@pytest.mark.parametrize(
    "move",
    [
        {"type": "play", "player": "ann", "card": "yellow 8"},  # a number card
        {"type": "play", "player": "ann", "card": "yellow skip"},  # an action card
        {"type": "play", "player": "ann", "card": "wild", "color": "red"},
        {"type": "draw", "player": "ann"},
    ],
    ids=lambda value: value.get("card", value["type"]),
)
def test_the_schema_refuses_junk_on_an_otherwise_legal_play_or_draw(
    move: dict[str, Any], extra: dict[str, Any], code: str
) -> None:
    """The shape the referee's fast paths take (a legal play or draw) with one field too many or wrong: refused
    like any other command, and nothing changes."""
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 4})
    assert move in ref.legal_moves("ann")
    refused(ref, {**move, **extra}, code)  # (checks that nothing changed)
    ok(ref, move)


def test_a_player_name_with_accents_and_emoji_is_still_fine() -> None:
    ok(Referee(), {"type": "new_game", "ruleset": "classic", "players": ["Zoë", "李", "🙂 Bob"]})
