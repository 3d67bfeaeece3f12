"""House rules (rules/house.py, docs/rules.md "House rules"): each a per-game option, default off, through the
referee, undo, table mode, the bots and ``legal_moves`` (proven against ``handle``). Test names cite the house
rule's ID (HR-70: seven_zero)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused, start
from .test_legal_moves import check_both_ways

SEVEN_ZERO = {"options": {"seven_zero": True}}
HANDS = {"ann": ["red 7", "red 0", "blue 9"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "yellow 2", "blue 2"]}


def test_hr70_off_by_default_a_seven_and_a_zero_are_number_cards() -> None:
    ref, _ = start("classic", HANDS, "red 5")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 7"})
    assert kinds(events) == ["played", "turn"] and ref.hand("ann") == ["red 0", "blue 9"]
    assert "seven_zero" not in ref.state.options  # an optional option: absent, the game's JSON as before


def test_hr70_a_seven_swaps_hands_with_the_chosen_player_then_play_goes_on() -> None:
    ref, _ = start("classic", HANDS, "red 5", **SEVEN_ZERO)
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 7", "target": "cy"})
    assert of(events, "traded") == [{"type": "traded", "player": "ann", "target": "cy"}]
    assert ref.hand("ann") == ["yellow 1", "yellow 2", "blue 2"] and ref.hand("cy") == ["red 0", "blue 9"]
    assert ref.public_state()["current"] == "bob"


def test_hr70_a_seven_needs_another_player_as_its_target() -> None:
    ref, _ = start("classic", HANDS, "red 5", **SEVEN_ZERO)
    refused(ref, {"type": "play", "player": "ann", "card": "red 7"}, "missing_field")
    refused(ref, {"type": "play", "player": "ann", "card": "red 7", "target": "ann"}, "bad_target")
    assert {"type": "play", "player": "ann", "card": "red 7"} not in ref.legal_moves("ann")
    assert {"type": "play", "player": "ann", "card": "red 7", "target": "bob"} in ref.legal_moves("ann")


@pytest.mark.parametrize("reverse_first", [False, True])
def test_hr70_a_zero_passes_every_hand_along_the_direction(reverse_first: bool) -> None:
    hands = {"ann": ["red 0", "red 9", "red reverse"], "bob": ["green 3", "red 4"], "cy": ["yellow 1", "red 2"]}
    ref, _ = start("classic", hands, "red 5", **SEVEN_ZERO)
    if reverse_first:  # ann reverses, cy and bob play: ann's 0 sends the hands the other way round
        ok(ref, {"type": "play", "player": "ann", "card": "red reverse"})
        ok(ref, {"type": "play", "player": "cy", "card": "red 2"})
        ok(ref, {"type": "play", "player": "bob", "card": "red 4"})
        events = ok(ref, {"type": "play", "player": "ann", "card": "red 0"})
        assert of(events, "rotated") == [{"type": "rotated", "direction": -1}]
        assert ref.hand("cy") == ["red 9"] and ref.hand("bob") == ["yellow 1"] and ref.hand("ann") == ["green 3"]
        return
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 0"})
    assert of(events, "rotated") == [{"type": "rotated", "direction": 1}]
    assert ref.hand("bob") == ["red 9", "red reverse"] and ref.hand("cy") == ["green 3", "red 4"]
    assert ref.hand("ann") == ["yellow 1", "red 2"] and ref.public_state()["current"] == "bob"


def test_hr70_going_out_on_a_seven_swaps_nothing() -> None:
    hands = {"ann": ["red 7"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "yellow 2"]}
    ref, _ = start("classic", hands, "red 5", **SEVEN_ZERO)
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 7", "target": "bob"})
    assert "went_out" in kinds(events) and "traded" not in kinds(events)
    assert ref.hand("bob") == ["green 3", "green 4"]


def test_hr70_the_uno_call_goes_with_the_hand_and_a_one_card_hand_received_can_be_caught() -> None:
    hands = {"ann": ["red 7", "blue 9"], "bob": ["green 3"], "cy": ["yellow 1", "yellow 2"]}
    ref, _ = start("classic", hands, "red 5", **SEVEN_ZERO)
    ok(ref, {"type": "uno", "player": "ann"})
    ok(ref, {"type": "play", "player": "ann", "card": "red 7", "target": "bob"})  # ann now holds bob's one card
    assert ref.hand("ann") == ["green 3"] and ref.hand("bob") == ["blue 9"]
    assert ref.public_state()["uno_exposed"] == "ann"  # her call was for the hand she gave away
    events = ok(ref, {"type": "catch", "player": "cy", "target": "ann"})
    assert of(events, "caught") and ref.state.hands[0] != ["green 3"]


def test_hr70_undo_gives_the_hands_back() -> None:
    ref, _ = start("classic", HANDS, "red 5", **SEVEN_ZERO)
    before = ref.to_json()["state"]["hands"]
    ok(ref, {"type": "play", "player": "ann", "card": "red 0"})
    ok(ref, {"type": "undo"})
    assert ref.to_json()["state"]["hands"] == before


def test_hr70_in_table_mode_the_counts_move() -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob", "cy"], "mode": "table",
             "options": {"seven_zero": True},
             "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 3, "bob": 5, "cy": 8}}})  # fmt: skip
    ok(ref, {"type": "play", "player": "ann", "card": "red 7", "target": "cy"})
    assert ref.public_state()["hands"] == {"ann": 8, "bob": 5, "cy": 2}
    ok(ref, {"type": "play", "player": "bob", "card": "red 0"})
    assert ref.public_state()["hands"] == {"ann": 2, "bob": 8, "cy": 4}


def test_hr70_in_uno_attack_a_seven_swaps_and_ends_a_skip_chain() -> None:  # with ATK-08
    hands = {"ann": ["red skip", "red 7", "blue 9"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "yellow 2"]}
    ref, _ = start("attack-original", hands, "red 5", **SEVEN_ZERO)
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    assert ref.public_state()["chain"] is True
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 7", "target": "bob"})
    assert of(events, "traded") and ref.public_state()["chain"] is False
    assert of(events, "skipped") == [{"type": "skipped", "player": "bob"}]  # the Skip's skip still counts
    assert ref.hand("ann") == ["green 3", "green 4"] and ref.public_state()["current"] == "cy"


@pytest.mark.parametrize(("ruleset", "players", "seed"), [("classic", 3, 11), ("mario-kart", 4, 12),
                                                           ("attack-original", 3, 13), ("classic", 2, 14)])
def test_hr70_listed_moves_are_accepted_and_unlisted_ones_refused(ruleset: str, players: int, seed: int) -> None:
    names = [f"p{i}" for i in range(players)]
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed,
             "options": {"target_score": 150, "seven_zero": True}})  # fmt: skip
    bot, rng = Bot("random", seed=seed, uno_rate=0.5), random.Random(seed)
    played: set[str] = set()
    for _ in range(300):
        if ref.state.phase == "playing":
            check_both_ways(ref, rng, sample=6)
        command = bot.next_command(ref)
        if command is None:
            break
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", events
        played |= {e["type"] for e in events}
    assert {"traded", "rotated"} & played  # the games reached a 7 or a 0


@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_hr70_bots_finish_games_with_the_house_rule(strategy: str) -> None:
    house_events = 0
    for seed in range(6):
        ref = Referee()
        options: dict[str, Any] = {"target_score": 100, "seven_zero": True}
        ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["a", "b", "c"], "seed": seed,
                 "options": options})  # fmt: skip
        steps, events = play_game(ref, Bot(strategy, seed=seed))
        assert ref.state.phase == "over" and steps > 0
        house_events += sum(e["type"] in ("traded", "rotated") for e in events)
    assert house_events  # the bots played 7s and 0s
