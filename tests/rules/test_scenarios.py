"""Longer scenarios across rules: chains that end in attacks, catches inside chains, Item Boxes as last cards,
every Customizable action, rounds and dealer rotation, doc examples."""

from __future__ import annotations

import pytest

from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused, start

A = "attack"
PLAYERS4 = ["ann", "bob", "cy", "dee"]


def test_atk08_skip_then_hit2_hits_the_player_after_the_skipped_one() -> None:
    hands = {"ann": ["red skip", "red hit-2", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"], "dee": ["green 4"]}
    ref, _ = start(A, hands, "red 5", players=PLAYERS4, dealer="dee")
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    events = ok(ref, {"type": "play", "player": "ann", "card": "red hit-2"})
    assert of(events, "skipped")[0]["player"] == "bob"
    assert ref.public_state()["owed"] == [{"player": "cy", "hits": 2}]
    ok(ref, {"type": "hit", "cards": 0})
    assert ok(ref, {"type": "hit", "cards": 0})[-1] == {"type": "turn", "player": "dee"}


def test_atk08_two_players_skip_then_hit2_targets_the_opponent() -> None:
    hands = {"ann": ["red skip", "red hit-2", "blue 1"], "bob": ["blue 7"]}
    ref, _ = start(A, hands, "red 5", players=["ann", "bob"])
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    ok(ref, {"type": "play", "player": "ann", "card": "red hit-2"})
    assert ref.public_state()["owed"] == [{"player": "bob", "hits": 2}]
    ok(ref, {"type": "hit", "cards": 0})
    assert ok(ref, {"type": "hit", "cards": 0})[-1] == {"type": "turn", "player": "ann"}


def test_atk08_reverse_inside_a_chain_turns_play_around() -> None:
    hands = {"ann": ["red skip", "red reverse", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"], "dee": ["green 4"]}
    ref, _ = start(A, hands, "red 5", players=PLAYERS4, dealer="dee")
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    ok(ref, {"type": "play", "player": "ann", "card": "red reverse"})
    assert ref.public_state()["chain"] and ref.public_state()["direction"] == -1
    events = ok(ref, {"type": "pass", "player": "ann"})
    assert of(events, "skipped")[0]["player"] == "dee" and events[-1] == {"type": "turn", "player": "cy"}


def test_atk18_a_catch_inside_a_chain_hits_first_then_the_chain_goes_on() -> None:
    hands = {"ann": ["red skip", "red 2"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})  # second-to-last card, no UNO call
    ok(ref, {"type": "catch", "player": "bob", "target": "ann"})
    assert ref.hitter() == "ann"
    ok(ref, {"type": "hit", "cards": 0})
    events = ok(ref, {"type": "hit", "cards": 0})
    assert events[-1] == {"type": "turn", "player": "ann"} and ref.public_state()["chain"]
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 2"})
    assert of(events, "round_ended")[0]["winner"] == "ann"


def test_atk19_all_hit_as_last_card_everyone_hits_before_scoring() -> None:
    hands = {"ann": ["wild all-hit"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start("attack-original", hands, "red 5", stock_top=["red 1", "red 2"])
    ok(ref, {"type": "play", "player": "ann", "card": "wild all-hit", "color": "red"})
    ok(ref, {"type": "hit", "cards": 1})
    events = ok(ref, {"type": "hit", "cards": 1})
    assert of(events, "round_ended")[0]["points"] == 7 + 1 + 3 + 2
    assert ref.public_state()["phase"] == "between" and ref.hitter() is None
    events = ok(ref, {"type": "next_round"})
    assert of(events, "round_started")[0]["dealer"] == "ann" and ref.public_state()["round"] == 2


@pytest.mark.parametrize(
    ("definition", "extra", "owed", "current"),
    [
        ({"action": "attack", "count": 3}, {"target": "cy"}, [{"player": "cy", "hits": 3}], "cy"),
        ({"action": "hit-fire"}, {}, [{"player": "bob", "hits": 1, "until_card": True}], "bob"),
        ({"action": "reverse"}, {}, [], "cy"),
        ({"action": "trade-hands"}, {"target": "bob"}, [], "bob"),
        ({"action": "wild"}, {}, [], "bob"),
    ],
)
def test_atk16_every_customizable_action(
    definition: dict[str, object], extra: dict[str, str], owed: list[dict[str, object]], current: str
) -> None:
    hands = {"ann": ["wild customizable", "red 1"], "bob": ["blue 7", "blue 8"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5", options={"customizable": definition})
    ok(ref, {"type": "play", "player": "ann", "card": "wild customizable", "color": "red", **extra})
    assert ref.public_state()["owed"] == owed and ref.public_state()["current"] == current
    if definition["action"] == "trade-hands":
        assert ref.hand("ann") == ["blue 7", "blue 8"]


def test_mk07_item_box_as_the_last_card_still_hits_the_others() -> None:
    hands = {"ann": ["red 1", "wild item-box"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start("mario-kart", hands, "red 5", stock_top=["green 6", "green 7", "blue 4"])
    ok(ref, {"type": "uno", "player": "ann"})
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "draw", "player": "bob"})  # green 6 is not playable on red 1: turn ends
    ok(ref, {"type": "draw", "player": "cy"})
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "lightning"
    assert [d["player"] for d in of(events, "drew")] == ["bob", "cy"]
    assert kinds(events)[-1] == "round_ended" and "turn" not in kinds(events)


def test_table_mode_discard_all_lists_the_discarded_cards() -> None:
    ref = Referee()
    ok(
        ref,
        {
            "type": "new_game",
            "ruleset": A,
            "players": ["a", "b"],
            "mode": "table",
            "deal": {"dealer": "b", "starter": "red 5", "hands": {"a": 4, "b": 7}},
        },
    )
    refused(
        ref,
        {"type": "play", "player": "a", "card": "red discard-all", "discarded": ["red 1", "red 2", "red 3", "red 4"]},
        "bad_field",
    )
    events = ok(ref, {"type": "play", "player": "a", "card": "red discard-all", "discarded": ["red 1", "red 2"]})
    assert events[0]["discarded"] == ["red 1", "red 2"] and ref.public_state()["hands"]["a"] == 1
    assert ref.public_state()["uno_exposed"] == "a"


def test_a_new_game_mid_game_starts_over_and_undo_brings_the_old_game_back() -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1})
    first = ref.to_json()["state"]
    ok(ref, {"type": "new_game", "ruleset": A, "players": ["x", "y", "z"], "seed": 2})
    assert ref.public_state()["players"] == ["x", "y", "z"]
    ok(ref, {"type": "undo"})
    assert ref.to_json()["state"] == first
