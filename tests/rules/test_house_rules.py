"""The house rules seven_zero and jump_in (rules/house_rules/seven_zero.py and jump_in.py, docs/rules.md "House
rules"), and all three house rules at once: each a per-game option, default off, through the referee, undo, table
mode, the bots and ``legal_moves`` (proven against ``handle``). Test names cite the house rule's ID (HR-70:
seven_zero, HR-JI: jump_in); stacking has its own module, test_stacking.py."""

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


@pytest.mark.parametrize(
    ("ruleset", "players", "seed"),
    [("classic", 3, 11), ("mario-kart", 4, 12), ("attack-original", 3, 13), ("classic", 2, 14)],
)
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


JUMP_IN = {"options": {"jump_in": True}}
JUMP_HANDS = {"ann": ["blue 1", "green 2"], "bob": ["red 6", "red skip"], "cy": ["yellow 1", "red 5", "wild"]}


def test_hrji_off_by_default_an_identical_card_waits_its_turn() -> None:
    ref, _ = start("classic", JUMP_HANDS, "red 5")
    refused(ref, {"type": "play", "player": "cy", "card": "red 5"}, "not_your_turn")
    assert not [m for m in ref.legal_moves("cy") if m["type"] == "play"]


def test_hrji_an_identical_card_is_played_out_of_turn_and_play_goes_on_from_the_jumper() -> None:
    ref, _ = start("classic", JUMP_HANDS, "red 5", **JUMP_IN)  # ann is to play
    assert {"type": "play", "player": "cy", "card": "red 5"} in ref.legal_moves("cy")
    assert not [m for m in ref.legal_moves("bob") if m["type"] == "play"]  # red 6 matches, is not identical
    events = ok(ref, {"type": "play", "player": "cy", "card": "red 5"})
    assert kinds(events) == ["played", "turn"] and events[-1]["player"] == "ann"  # after cy: ann again
    assert ref.hand("cy") == ["yellow 1", "wild"]


def test_hrji_only_the_identical_coloured_card_and_not_a_wild() -> None:
    hands = {"ann": ["blue 1", "wild"], "bob": ["red 6", "wild"], "cy": ["yellow 1", "red 9"]}
    ref, _ = start("classic", hands, "red 5", **JUMP_IN)
    refused(ref, {"type": "play", "player": "bob", "card": "red 6"}, "not_your_turn")  # matches, is not identical
    ok(ref, {"type": "play", "player": "ann", "card": "wild", "color": "red"})
    refused(ref, {"type": "play", "player": "cy", "card": "wild", "color": "red"}, "not_your_turn")


def test_hrji_a_jumped_in_skip_skips_the_player_after_the_jumper() -> None:
    hands = {"ann": ["red skip", "blue 1"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "red skip"]}
    ref, _ = start("classic", hands, "red 5", **JUMP_IN)
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})  # bob is skipped: cy's turn
    assert ref.public_state()["current"] == "cy"
    hands = {"ann": ["blue 9", "blue 1"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "red skip"]}
    ref, _ = start("classic", {**hands, "ann": ["red skip", "blue 1"]}, "red 5", **JUMP_IN)
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})  # cy to play; bob holds no skip
    ref, _ = start("classic", {"ann": ["blue 1", "blue 2"], "bob": ["green 3", "green 4"],
                               "cy": ["yellow 1", "red skip"]}, "red skip", **JUMP_IN)  # fmt: skip
    events = ok(ref, {"type": "play", "player": "cy", "card": "red skip"})  # out of ann's turn: ann is skipped
    assert of(events, "skipped") == [{"type": "skipped", "player": "ann"}] and events[-1]["player"] == "bob"


def test_hrji_not_while_hits_are_owed_a_chain_is_on_or_after_the_current_player_drew() -> None:
    hands = {"ann": ["red skip", "blue 1", "blue 2"], "bob": ["green 3", "red skip"], "cy": ["yellow 1", "red 5"]}
    ref, _ = start("attack-original", hands, "red 5", **JUMP_IN)
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})  # ATK-08: ann may play on
    assert ref.public_state()["chain"] is True
    refused(ref, {"type": "play", "player": "bob", "card": "red skip"}, "not_your_turn")
    classic, _ = start("classic", JUMP_HANDS, "red 5", **JUMP_IN)
    ok(classic, {"type": "draw", "player": "ann"})
    refused(classic, {"type": "play", "player": "cy", "card": "red 5"}, "not_your_turn")


def test_hrji_in_table_mode_the_table_reports_who_jumped_in() -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob", "cy"], "mode": "table",
             "options": {"jump_in": True},
             "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 3, "bob": 5, "cy": 8}}})  # fmt: skip
    events = ok(ref, {"type": "play", "player": "cy", "card": "red 5"})
    assert events[-1] == {"type": "turn", "player": "ann"} and ref.public_state()["hands"]["cy"] == 7


@pytest.mark.parametrize(
    ("ruleset", "players", "seed"), [("classic", 3, 21), ("mario-kart", 4, 22), ("attack", 3, 23), ("classic", 4, 24)]
)
def test_hrji_listed_moves_are_accepted_and_unlisted_ones_refused(ruleset: str, players: int, seed: int) -> None:
    names = [f"p{i}" for i in range(players)]
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed,
             "options": {"target_score": 150, "jump_in": True, "hand_size": 12}})  # fmt: skip
    bot, rng = Bot("random", seed=seed, uno_rate=0.5), random.Random(seed)
    jumps = 0
    for _ in range(300):
        if ref.state.phase == "playing":
            check_both_ways(ref, rng, sample=6)
            s = ref.state
            jumps += sum(1 for i, p in enumerate(s.players) if i != s.current
                         for m in ref.legal_moves(p) if m["type"] == "play")  # fmt: skip
        command = bot.next_command(ref)
        if command is None:
            break
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", events
    assert jumps  # the games reached positions where someone could jump in


@pytest.mark.parametrize(("ruleset", "players", "seed"), [("classic", 3, 31), ("attack", 3, 32), ("mario-kart", 4, 33)])
def test_all_three_house_rules_at_once_listed_moves_are_accepted_and_unlisted_ones_refused(
    ruleset: str, players: int, seed: int
) -> None:
    """jump_in, seven_zero and stacking (with stacking_wd4 where it exists) in one game: their hooks meet (nobody
    jumps in on an open stack, a jumped-in 7 swaps), and ``legal_moves`` still agrees with ``handle`` both ways."""
    names = [f"p{i}" for i in range(players)]
    options: dict[str, Any] = {"target_score": 150, "hand_size": 12, "jump_in": True, "seven_zero": True}
    options |= {"stacking": True} | ({} if ruleset == "attack" else {"stacking_wd4": True})
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed, "options": options})
    bot, rng = Bot("random", seed=seed, uno_rate=0.5), random.Random(seed)
    seen: set[str] = set()
    for _ in range(400):
        if ref.state.phase == "playing":
            check_both_ways(ref, rng, sample=6)
            s = ref.state
            if s.house:
                seen.add("stack")
            if any(m["type"] == "play" for i, p in enumerate(s.players) if i != s.current for m in ref.legal_moves(p)):
                seen.add("jump")
        command = bot.next_command(ref)
        if command is None:
            break
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", events
        seen |= {e["type"] for e in events} & {"traded", "rotated"}
    assert "jump" in seen and "stack" in seen and {"traded", "rotated"} & seen, seen  # each rule was reached
