"""The ``stacking`` house rule (rules/house_rules/stacking.py; docs/rules.md "HR-ST stacking"): per rule ID and per
interaction with the rule sets' own cards, ``legal_moves`` against ``handle`` with the options on, bot games,
``simulate``, undo and replay."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from unolauncher.cli import main
from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.ejection_audit import audit
from unolauncher.rules.house_rules.stacking import ADDS
from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused, start
from .test_legal_moves import check_both_ways

ST = {"options": {"stacking": True}}
ST4 = {"options": {"stacking_wd4": True}}
BOTH = {"options": {"stacking": True, "stacking_wd4": True}}
DRAWS = {
    "ann": ["red draw-2", "red 1", "red 2"],
    "bob": ["blue draw-2", "blue 1", "green draw-2"],
    "cy": ["green 1", "yellow draw-2", "wild draw-4"],
}
FOURS = {
    "ann": ["wild draw-4", "blue 1", "blue 2"],
    "bob": ["wild draw-4", "green 1", "green 2"],
    "cy": ["yellow 1", "yellow 2", "wild draw-4"],
}
HITS = {
    "ann": ["red hit-2", "red 1", "red 2"],
    "bob": ["blue hit-2", "blue 1", "blue 2"],
    "cy": ["green 1", "yellow hit-2", "green 2"],
}


def play(ref: Referee, player: str, card: str, **extra: Any) -> list[dict[str, Any]]:
    return ok(ref, {"type": "play", "player": player, "card": card, **extra})


def drew(events: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(e["player"], e["count"]) for e in of(events, "drew")]


# -- HR-ST-1: Draw Two on Draw Two -----------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ["classic", "mario-kart"])
def test_hrst_off_by_default_a_draw_two_is_drawn_at_once(ruleset: str) -> None:
    ref, _ = start(ruleset, DRAWS, "red 5")
    events = play(ref, "ann", "red draw-2")
    assert drew(events) == [("bob", 2)] and ref.public_state()["current"] == "cy"
    assert "stacking" not in ref.state.options and "house" not in ref.state.to_json()


@pytest.mark.parametrize("ruleset", ["classic", "mario-kart"])
def test_hrst1_a_draw_two_on_a_draw_two_passes_the_sum_and_who_draws_takes_it_all(ruleset: str) -> None:
    ref, _ = start(ruleset, DRAWS, "red 5", **ST)
    events = play(ref, "ann", "red draw-2")
    assert kinds(events) == ["played", "turn"] and events[-1]["player"] == "bob"
    assert ref.public_state()["house"] == {"stacking": {"kind": "draw-2", "player": "bob", "cards": 2}}
    play(ref, "bob", "blue draw-2")  # any colour: a Draw Two matches a Draw Two
    play(ref, "cy", "yellow draw-2")
    assert ref.public_state()["house"]["stacking"] == {"kind": "draw-2", "player": "ann", "cards": 6}
    events = ok(ref, {"type": "draw", "player": "ann"})
    assert drew(events) == [("ann", 6)] and of(events, "skipped") == [{"type": "skipped", "player": "ann"}]
    assert ref.public_state()["current"] == "bob" and "house" not in ref.public_state()
    assert len(ref.hand("ann") or []) == 2 + 6
    assert "house" not in ref.state.to_json()  # the stack taken, the state's JSON is as without the rule


def test_hrst1_under_a_stack_only_a_draw_two_or_the_draw_and_nothing_changes_on_a_refusal() -> None:
    ref, _ = start("classic", DRAWS, "red 5", **ST)
    play(ref, "ann", "red draw-2")
    refused(ref, {"type": "play", "player": "bob", "card": "blue 1"}, "card_does_not_match")
    moves = ref.legal_moves("bob")
    plays = sorted(m["card"] for m in moves if m["type"] == "play")
    assert plays == ["blue draw-2", "green draw-2"] and {"type": "draw", "player": "bob"} in moves
    assert ref.playable("bob") == ["blue draw-2", "green draw-2"]


def test_hrst4_a_draw_two_as_the_last_card_ends_the_stack_and_the_round() -> None:
    hands = {"ann": ["red draw-2", "red 1"], "bob": ["blue draw-2"], "cy": ["green 1", "green 2"]}
    ref, _ = start("classic", hands, "red 5", **ST)
    play(ref, "ann", "red draw-2")
    events = play(ref, "bob", "blue draw-2")  # bob goes out on it: cy takes the whole stack at once
    assert drew(events) == [("cy", 4)] and "went_out" in kinds(events) and "round_ended" in kinds(events)


def test_hrst1_table_mode_the_table_reports_the_plays_and_the_draw_takes_the_sum() -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob", "cy"], "mode": "table",
             "deal": {"dealer": "cy", "starter": "red 5"}, **ST})  # fmt: skip
    play(ref, "ann", "red draw-2")
    play(ref, "bob", "green draw-2")
    events = ok(ref, {"type": "draw", "player": "cy"})
    assert drew(events) == [("cy", 4)] and ref.public_state()["hands"]["cy"] == 7 + 4


# -- HR-ST-2: Wild Draw Four on Wild Draw Four, and its challenge --------------------------------------------
def test_hrst2_off_the_victim_of_a_wild_draw_four_cannot_answer_with_one() -> None:
    ref, _ = start("classic", FOURS, "blue 5", **ST)  # stacking alone does not stack Wild Draw Fours
    play(ref, "ann", "wild draw-4", color="green")
    refused(ref, {"type": "play", "player": "bob", "card": "wild draw-4", "color": "red"}, "pending_choice")


def test_hrst2_a_wild_draw_four_on_one_passes_eight_and_accepting_draws_them() -> None:
    ref, _ = start("classic", FOURS, "blue 5", **ST4)
    play(ref, "ann", "wild draw-4", color="green")
    moves = ref.legal_moves("bob")
    assert {"type": "play", "player": "bob", "card": "wild draw-4", "color": "red"} in moves
    events = play(ref, "bob", "wild draw-4", color="yellow")
    assert of(events, "pending") == [{"type": "pending", "kind": "challenge", "player": "cy", "by": "bob"}]
    assert ref.public_state()["house"]["stacking"] == {"kind": "wild draw-4", "player": "cy", "cards": 8}
    events = ok(ref, {"type": "accept", "player": "cy"})
    assert drew(events) == [("cy", 8)] and ref.public_state()["current"] == "ann"


@pytest.mark.parametrize("guilty", [True, False])
def test_hrst2_only_the_last_victim_challenges_only_the_last_wild_draw_four(guilty: bool) -> None:
    # bob holds green when he stacks on ann's green Wild Draw Four (guilty) or holds none (not guilty)
    hands = {**FOURS, "bob": ["wild draw-4", "green 1" if guilty else "red 1", "red 2"]}
    ref, _ = start("classic", hands, "blue 5", **ST4)
    play(ref, "ann", "wild draw-4", color="green")
    play(ref, "bob", "wild draw-4", color="yellow")
    refused(ref, {"type": "challenge", "player": "bob"}, "not_your_choice")  # the first victim's chance is gone
    refused(ref, {"type": "accept", "player": "bob"}, "not_your_choice")
    events = ok(ref, {"type": "challenge", "player": "cy"})
    assert of(events, "challenged")[0]["target"] == "bob" and of(events, "challenged")[0]["guilty"] is guilty
    if guilty:  # the last Wild Draw Four was illegal: its player takes the whole stack, cy plays on
        assert drew(events) == [("bob", 8)] and ref.public_state()["current"] == "cy"
    else:  # a failed challenge: the stack and two more
        assert drew(events) == [("cy", 10)] and ref.public_state()["current"] == "ann"
    assert "house" not in ref.public_state() and ref.public_state()["pending"] is None


def test_hrst2_one_wild_draw_four_alone_keeps_mk13_and_mk14_counts() -> None:
    for answer, counts in (("accept", [("bob", 4)]), ("challenge", [("bob", 6)])):
        hands = {**FOURS, "ann": ["wild draw-4", "red 1", "red 2"]}  # ann holds no blue: not guilty
        ref, _ = start("classic", hands, "blue 5", **ST4)
        play(ref, "ann", "wild draw-4", color="green")
        assert drew(ok(ref, {"type": answer, "player": "bob"})) == counts


def test_hrst3_kinds_never_mix() -> None:
    ref, _ = start("classic", DRAWS, "red 5", **BOTH)
    play(ref, "ann", "red draw-2")
    play(ref, "bob", "blue draw-2")
    refused(ref, {"type": "play", "player": "cy", "card": "wild draw-4", "color": "red"}, "card_does_not_match")
    ref, _ = start("classic", {**FOURS, "bob": ["wild draw-4", "green draw-2", "green 2"]}, "blue 5", **BOTH)
    play(ref, "ann", "wild draw-4", color="green")
    refused(ref, {"type": "play", "player": "bob", "card": "green draw-2"}, "pending_choice")


def test_hrst_mk07_an_item_box_does_not_answer_a_draw_two_stack() -> None:
    hands = {**DRAWS, "bob": ["wild item-box", "blue 1", "blue 2"]}
    ref, _ = start("mario-kart", hands, "red 5", **ST)
    play(ref, "ann", "red draw-2")
    refused(ref, {"type": "play", "player": "bob", "card": "wild item-box"}, "card_does_not_match")


def test_hrst_jump_in_waits_while_a_stack_is_open() -> None:
    hands = {**DRAWS, "cy": ["red draw-2", "green 1", "green 2"]}  # cy holds the identical card
    ref, _ = start("classic", hands, "red 5", options={"stacking": True, "jump_in": True})
    play(ref, "ann", "red draw-2")
    refused(ref, {"type": "play", "player": "cy", "card": "red draw-2"}, "not_your_turn")


# -- HR-ST-3: UNO Attack, a Hit 2 on a Hit 2 stacks the hits ------------------------------------------------
@pytest.mark.parametrize("ruleset", ["attack", "attack-original"])
def test_hrst3_a_hit_two_on_a_hit_two_makes_the_next_player_owe_the_sum_taken_by_presses(ruleset: str) -> None:
    ref, _ = start(ruleset, HITS, "red 5", **ST)
    events = play(ref, "ann", "red hit-2")
    assert of(events, "owed") == [{"type": "owed", "player": "bob", "hits": 2}]
    assert {"type": "play", "player": "bob", "card": "blue hit-2"} in ref.legal_moves("bob")
    events = play(ref, "bob", "blue hit-2")  # bob owed 2 hits and answers before the first
    assert of(events, "owed") == [{"type": "owed", "player": "cy", "hits": 4}]
    assert ref.public_state()["owed"] == [{"player": "cy", "hits": 4}]
    events = play(ref, "cy", "yellow hit-2")
    assert ref.public_state()["owed"] == [{"player": "ann", "hits": 6}]
    assert ref.hitter() == "ann"
    left = [ok(ref, {"type": "hit", "cards": 1})[0]["owed_left"] for _ in range(6)]
    assert left == [5, 4, 3, 2, 1, 0] and ref.public_state()["current"] == "bob"
    assert "house" not in ref.public_state()


def test_hrst3_after_the_first_hit_the_rest_is_owed_and_a_hit_two_is_refused() -> None:
    hands = {**HITS, "bob": ["blue hit-2", "green hit-2", "blue 1"]}
    ref, _ = start("attack", hands, "red 5", **ST)
    play(ref, "ann", "red hit-2")
    ok(ref, {"type": "hit", "cards": 0})
    refused(ref, {"type": "play", "player": "bob", "card": "blue hit-2"}, "hits_owed")
    assert [m["type"] for m in ref.legal_moves("bob")] == ["hit"]


def test_hrst3_a_wild_hit_four_attack_attack_or_discard_all_does_not_answer_a_hit_two() -> None:
    hands = {**HITS, "bob": ["wild hit-4", "wild attack-attack", "red discard-all", "red 4"]}
    ref, _ = start("attack", hands, "red 5", **ST)
    play(ref, "ann", "red hit-2")
    refused(ref, {"type": "play", "player": "bob", "card": "wild hit-4", "color": "red"}, "hits_owed")
    refused(ref, {"type": "play", "player": "bob", "card": "wild attack-attack", "color": "red", "target": "cy"},
            "hits_owed")  # fmt: skip
    refused(ref, {"type": "play", "player": "bob", "card": "red discard-all"}, "hits_owed")


def test_hrst3_an_attack_attacks_hits_are_not_stacked_on_and_trade_hands_does_not_answer() -> None:
    hands = {"ann": ["wild attack-attack", "red hit-2", "red 1"], "bob": ["red hit-2", "red trade-hands", "red 4"],
             "cy": ["green 1", "green 2"]}  # fmt: skip
    ref, _ = start("attack-original", {**hands, "ann": ["red hit-2", "red 1", "red 2"]}, "red 5", **ST)
    play(ref, "ann", "red hit-2")
    refused(ref, {"type": "play", "player": "bob", "card": "red trade-hands", "target": "cy"}, "hits_owed")
    ref, _ = start("attack", {**hands, "bob": ["red hit-2", "red 3", "red 4"]}, "red 5", **ST)
    play(ref, "ann", "wild attack-attack", color="red", target="bob")  # ATK-13: bob owes 2, not a Hit 2's
    refused(ref, {"type": "play", "player": "bob", "card": "red hit-2"}, "hits_owed")
    assert "house" not in ref.public_state()


def test_hrst3_with_two_players_the_stack_goes_back_and_forth() -> None:
    hands = {"ann": ["red hit-2", "green hit-2", "red 1"], "bob": ["blue hit-2", "blue 1"]}
    ref, _ = start("attack", hands, "red 5", players=["ann", "bob"], **ST)
    play(ref, "ann", "red hit-2")
    play(ref, "bob", "blue hit-2")
    play(ref, "ann", "green hit-2")
    assert ref.public_state()["owed"] == [{"player": "bob", "hits": 6}]


def test_hrst3_atk08_a_hit_two_ending_a_skip_chain_counts_its_skips() -> None:
    hands = {"ann": ["red skip", "red hit-2", "red 1"], "bob": ["blue 1", "blue hit-2"], "cy": ["green 1", "green 2"]}
    ref, _ = start("attack", hands, "red 5", **ST)
    play(ref, "ann", "red skip")
    events = play(ref, "ann", "red hit-2")  # bob skipped: cy owes
    assert of(events, "skipped") == [{"type": "skipped", "player": "bob"}]
    assert of(events, "owed") == [{"type": "owed", "player": "cy", "hits": 2}]


def test_hrst4_a_hit_two_as_the_last_card_the_next_owes_the_sum_and_no_more_stacking() -> None:
    hands = {"ann": ["red hit-2", "red 1"], "bob": ["blue hit-2"], "cy": ["green hit-2", "green 2"]}
    ref, _ = start("attack", hands, "red 5", **ST)
    play(ref, "ann", "red hit-2")
    events = play(ref, "bob", "blue hit-2")  # bob goes out on it
    assert "went_out" in kinds(events) and ref.public_state()["owed"] == [{"player": "cy", "hits": 4}]
    refused(ref, {"type": "play", "player": "cy", "card": "green hit-2"}, "hits_owed")
    for _ in range(4):
        events = ok(ref, {"type": "hit", "cards": 0})
    assert "round_ended" in kinds(events)  # ATK-19: the hits happened, now the round is scored


def test_hrst_the_suggestion_penalty_comes_first_and_the_first_hit_closes_the_stack() -> None:
    ref, _ = start("attack", HITS, "red 5", options={"stacking": True, "suggestion_penalty": True})
    play(ref, "ann", "red hit-2")
    ok(ref, {"type": "suggest", "player": "cy"})  # cy's 4 hits come first: bob may not answer meanwhile
    refused(ref, {"type": "play", "player": "bob", "card": "blue hit-2"}, "hits_owed")
    for _ in range(4):
        ok(ref, {"type": "hit", "cards": 0})
    play(ref, "bob", "blue hit-2")  # his Hit 2's hits are owed untouched: he answers now
    assert ref.public_state()["owed"] == [{"player": "cy", "hits": 4}]


# -- properties: legal_moves against handle, bots, simulate, undo, replay --------------------------------
@pytest.mark.parametrize(
    ("ruleset", "players", "seed"),
    # seeds whose bot games reach a stack of two or more (a Hit 2 is 8 cards of 112: some seeds reach none)
    [("classic", 3, 31), ("classic", 2, 32), ("mario-kart", 4, 33), ("attack", 3, 32), ("attack-original", 2, 30)],
)
def test_hrst_listed_moves_are_accepted_and_unlisted_ones_refused(ruleset: str, players: int, seed: int) -> None:
    ref = Referee()
    options = {"target_score": 100, **BOTH["options"]} if ruleset in ("classic", "mario-kart") else ST["options"]
    ok(ref, {"type": "new_game", "ruleset": ruleset, "players": [f"p{i}" for i in range(players)], "seed": seed,
             "options": {"target_score": 100, **options}})  # fmt: skip
    bot, rng = Bot("random", seed=seed, uno_rate=0.5), random.Random(seed)
    stacked = steps = 0
    # 200 steps, and on until a stack of two or more was checked too (at most 500)
    while (steps < 200 or not stacked) and steps < 500 and ref.state.phase != "over":
        if ref.state.phase == "playing":
            check_both_ways(ref, rng, sample=6)
            stack = ref.state.house.get("stacking")
            stacked += stack is not None and stack.get("cards", stack.get("hits", 0)) > ADDS[stack["kind"]]
        cmd = bot.next_command(ref)
        if cmd is None:
            break
        ok(ref, cmd)
        steps += 1
    assert stacked, "the bots' games reached a stacked penalty"


@pytest.mark.parametrize("strategy", ["random", "greedy"])
@pytest.mark.parametrize("ruleset", ["classic", "mario-kart", "attack", "attack-original"])
def test_hrst_bots_finish_games_with_stacking_and_stack(strategy: str, ruleset: str) -> None:
    stacks = 0
    for seed in range(4):
        ref = Referee()
        ok(ref, {"type": "new_game", "ruleset": ruleset, "players": ["a", "b", "c", "d"], "seed": seed,
                 "options": {"target_score": 200, **BOTH["options"]}})  # fmt: skip
        _, events = play_game(ref, Bot(strategy, seed=seed))
        assert ref.state.phase == "over"
        stacks += sum(1 for e in of(events, "drew") if e["count"] >= 4) + sum(
            1 for e in of(events, "owed") if e["hits"] >= 4
        )
    assert stacks > 0


def test_hrst_simulate_plays_with_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    for ruleset, extra in (("classic", ["--option", "stacking_wd4=true"]), ("attack", [])):
        code = main(["simulate", "--ruleset", ruleset, "--players", "3", "--games", "3", "--json", "--no-progress",
                     "--option", "stacking=true", *extra])  # fmt: skip
        assert code == 0 and json.loads(capsys.readouterr().out)["games"] == 3


def test_hrst_undo_takes_a_stack_back_and_replay_is_deterministic() -> None:
    ref, _ = start("classic", DRAWS, "red 5", **ST)
    play(ref, "ann", "red draw-2")
    before = ref.to_json()
    play(ref, "bob", "blue draw-2")
    ok(ref, {"type": "undo"})
    assert ref.to_json()["state"] == before["state"]
    # the same commands give the same events and state, through a saved referee too
    commands: list[dict[str, Any]] = []
    first = Referee()
    first.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b", "c"], "seed": 5,
                  "options": BOTH["options"]})  # fmt: skip
    bot = Bot("random", seed=5)
    events_first: list[Any] = []
    for _ in range(300):
        cmd = bot.next_command(first)
        if cmd is None:
            break
        commands.append(cmd)
        events_first.append(first.handle(cmd))
    second = Referee()
    second.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b", "c"], "seed": 5,
                   "options": BOTH["options"]})  # fmt: skip
    events_second = [Referee.from_json(second.to_json()).handle(c) and second.handle(c) for c in commands]
    assert events_second == events_first and second.to_json() == first.to_json()


def test_hrst3_stacked_hits_are_launcher_presses_the_fairness_audit_verifies() -> None:
    """``verify``'s audit over a UNO Attack game with stacked Hit 2s: each owed hit is one press under the round's
    commitment, every commitment checks out (stacking changes how many hits are owed, never how a press decides)."""
    ref = Referee()
    events = ok(ref, {"type": "new_game", "ruleset": "attack", "players": ["a", "b", "c"], "seed": 606,
                      "secret": "5e" * 32, "options": {"target_score": 150, "stacking": True}})  # fmt: skip
    _, played = play_game(ref, Bot("random", seed=606))
    events += played
    assert any(e["type"] == "owed" and e["hits"] >= 4 for e in events), "a stacked Hit 2 happened"
    hits = [e for e in events if e["type"] == "hit"]
    assert len(of(events, "press")) == len(hits) > 0
    report = audit((str(i), e) for i, e in enumerate(events))
    assert report.ok(), report.lines()


def test_hrst_a_penalty_card_turned_as_the_starter_is_not_a_stack() -> None:
    ref, events = start("classic", DRAWS, "green draw-2", **ST)  # MK-03: the first player draws 2 and is skipped
    assert drew(events) == [("ann", 2)] and "house" not in ref.public_state()
    ref, _ = start("attack", HITS, "green hit-2", **ST)  # ATK-17: the first player owes 2 hits
    assert ref.public_state()["owed"] == [{"player": "ann", "hits": 2}]
    refused(ref, {"type": "play", "player": "ann", "card": "red hit-2"}, "hits_owed")
