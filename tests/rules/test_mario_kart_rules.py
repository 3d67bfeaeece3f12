"""UNO Mario Kart rules (MK-01 … MK-18) and classic UNO, one test (at least) per rule ID of RULES.md."""

from __future__ import annotations

from collections import Counter

from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.cards import DECKS, ITEMS, RULESETS, dealer_draw_value
from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused, rig, start

MK = "mario-kart"


def test_mk01_deck_has_112_cards_and_items_by_colour() -> None:
    deck = Counter(DECKS[MK])
    assert sum(deck.values()) == 112
    assert deck["red 0"] == 1 and deck["red 9"] == 2 and deck["red draw-2"] == 2
    assert deck["red reverse"] == 2 and deck["red skip"] == 2
    assert deck["wild draw-4"] == 4 and deck["wild item-box"] == 8
    assert ITEMS == {
        "red": "mushroom",
        "yellow": "banana",
        "green": "green-shell",
        "blue": "lightning",
        None: "bob-omb",
    }


def test_mk02_highest_draw_deals_and_the_deal_passes_left() -> None:
    for seed in range(5):
        ref = Referee()
        events = ok(ref, {"type": "new_game", "ruleset": MK, "players": ["a", "b", "c", "d"], "seed": seed})
        chosen = of(events, "dealer_chosen")[0]
        first_round = {p: dealer_draw_value(cards[0]) for p, cards in chosen["draws"].items()}
        assert first_round[chosen["dealer"]] == max(first_round.values())
    hands = {"ann": ["red 1"], "bob": ["blue 7", "blue 8"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    events = ok(ref, {"type": "next_round"})
    assert of(events, "round_started")[0]["dealer"] == "ann"  # cy dealt round 1; the deal passes to the left


def test_mk03_wild_draw4_never_starts_and_item_box_start_lets_the_dealer_choose() -> None:
    for seed in range(40):
        ref = Referee()
        events = ok(ref, {"type": "new_game", "ruleset": MK, "players": ["a", "b"], "seed": seed})
        assert of(events, "round_started")[0]["starter"] != "wild draw-4"
    refused(Referee(), rig(MK, {"ann": ["red 1"], "bob": ["red 2"], "cy": ["red 3"]}, "wild draw-4"), "bad_deal")
    ref, events = start(MK, {"ann": ["red 1"], "bob": ["red 2"], "cy": ["red 3"]}, "wild item-box")
    assert of(events, "pending")[0] == {"type": "pending", "kind": "color", "player": "cy", "reason": "start"}
    assert "item" not in kinds(events)
    refused(ref, {"type": "play", "player": "ann", "card": "red 1"}, "pending_choice")
    refused(ref, {"type": "choose", "player": "ann", "color": "red"}, "not_your_choice")
    events = ok(ref, {"type": "choose", "player": "cy", "color": "blue"})
    assert events == [
        {"type": "color_chosen", "player": "cy", "color": "blue"},
        {"type": "turn", "player": "ann"},
    ]


def test_mk04_start_card_effects() -> None:
    hands = {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "green reverse")
    assert ref.public_state()["current"] == "cy" and ref.public_state()["direction"] == -1
    ref, events = start(MK, hands, "green draw-2")
    assert of(events, "drew")[0]["player"] == "ann" and ref.public_state()["hands"]["ann"] == 3
    assert ref.public_state()["current"] == "bob"
    ref, _ = start(MK, hands, "green skip")
    assert ref.public_state()["current"] == "bob"


def test_mk05_draw_one_then_play_it_if_playable_else_the_turn_ends() -> None:
    hands = {"ann": ["blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["green 2", "red 9", "red 8"])
    refused(ref, {"type": "pass", "player": "ann"}, "must_draw_first")
    events = ok(ref, {"type": "draw", "player": "ann"})
    assert kinds(events) == ["dispense", "drew", "turn"] and events[-1]["player"] == "bob"
    events = ok(ref, {"type": "draw", "player": "bob"})  # red 9 is playable: bob may play it
    assert events[0] == {"type": "dispense", "player": "bob", "count": 1}
    assert ref.public_state()["current"] == "bob"
    refused(ref, {"type": "draw", "player": "bob"}, "already_drew")
    refused(ref, {"type": "play", "player": "bob", "card": "blue 7"}, "must_play_drawn")
    ok(ref, {"type": "play", "player": "bob", "card": "red 9"})
    ok(ref, {"type": "draw", "player": "cy"})  # red 8 playable, cy passes instead
    assert ok(ref, {"type": "pass", "player": "cy"})[-1] == {"type": "turn", "player": "ann"}


def test_mk05_wild_draw4_and_item_box_may_be_played_on_anything() -> None:
    hands = {"ann": ["wild draw-4", "blue 1"], "bob": ["wild item-box", "blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "wild draw-4", "color": "green"})


def test_mk06_draw2_reverse_skip() -> None:
    hands = {"ann": ["red draw-2", "red 1"], "bob": ["red reverse", "red 2"], "cy": ["red skip", "red 3"]}
    ref, _ = start(MK, hands, "red 5")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red draw-2"})
    assert of(events, "drew")[0]["player"] == "bob" and ref.public_state()["current"] == "cy"
    events = ok(ref, {"type": "play", "player": "cy", "card": "red skip"})
    assert of(events, "skipped")[0]["player"] == "ann" and ref.public_state()["current"] == "bob"
    ok(ref, {"type": "play", "player": "bob", "card": "red reverse"})
    assert ref.public_state()["direction"] == -1 and ref.public_state()["current"] == "ann"


def test_mk07_item_box_turns_the_stock_top_whose_own_action_does_not_happen() -> None:
    hands = {"ann": ["wild item-box", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["red draw-2"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    item = of(events, "item")[0]
    assert item == {"type": "item", "player": "ann", "card": "red draw-2", "item": "mushroom", "color": "red"}
    assert "drew" not in kinds(events)  # the Draw Two's own action does not happen
    assert ref.public_state()["top"] == "red draw-2" and ref.public_state()["color"] == "red"


def test_mk08_mushroom_gives_another_turn() -> None:
    hands = {"ann": ["wild item-box", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["red 4"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    assert events[-1] == {"type": "turn", "player": "ann", "again": True}
    ok(ref, {"type": "draw", "player": "ann"})  # drawing as usual if they cannot play


def test_mk09_banana_the_player_before_draws_two() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["wild item-box", "blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["yellow 4"])
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    events = ok(ref, {"type": "play", "player": "bob", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "banana"
    ann_hand = ref.hand("ann")
    assert ann_hand is not None
    assert of(events, "drew")[0] == {"type": "drew", "player": "ann", "count": 2, "cards": ann_hand[-2:]}
    assert ref.public_state()["current"] == "cy" and ref.public_state()["color"] == "yellow"


def test_mk09_banana_a_turn_spent_drawing_and_passing_counts() -> None:
    # MK-09: ann plays, bob draws and passes, cy plays the Item Box: bob went directly before cy, not ann.
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "blue 8"], "cy": ["wild item-box", "green 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["blue 9", "yellow 4"])
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "draw", "player": "bob"})  # blue 9 does not match red 1: the turn ends at once (MK-05)
    assert ref.public_state()["current"] == "cy"
    events = ok(ref, {"type": "play", "player": "cy", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "banana"
    assert [e["player"] for e in of(events, "drew")] == ["bob"]
    assert ref.public_state()["hands"] == {"ann": 1, "bob": 5, "cy": 1}


def test_mk09_banana_a_turn_drawn_then_passed_counts_in_table_mode() -> None:
    # MK-09 in table mode: bob draws, may play, passes instead; cy's Banana (turned yellow 4) hits bob.
    ref = Referee()
    ok(
        ref,
        {
            "type": "new_game",
            "ruleset": MK,
            "mode": "table",
            "players": ["ann", "bob", "cy"],
            "seed": 2,
            "deal": {"dealer": "cy", "starter": "red 5"},
        },
    )
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "draw", "player": "bob"})
    ok(ref, {"type": "pass", "player": "bob"})
    events = ok(ref, {"type": "play", "player": "cy", "card": "wild item-box", "turned": "yellow 4"})
    assert [e["player"] for e in of(events, "drew")] == ["bob"]
    assert ref.public_state()["hands"] == {"ann": 6, "bob": 10, "cy": 6}


def test_mk09_banana_a_skipped_player_had_no_turn() -> None:
    # MK-09: ann's Skip makes bob lose his turn; cy plays the Item Box: ann took the turn before cy's.
    hands = {"ann": ["red skip", "red 2"], "bob": ["blue 7", "blue 8"], "cy": ["wild item-box", "green 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["yellow 4"])
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    events = ok(ref, {"type": "play", "player": "cy", "card": "wild item-box"})
    assert [e["player"] for e in of(events, "drew")] == ["ann"]


def test_mk09_banana_extra_turns_of_the_item_box_player_count_once() -> None:
    # MK-08 then MK-09: a Mushroom gives cy another turn; her second Item Box turns a Banana. The player who went
    # before cy's (consecutive) turns is bob, who drew; cy herself never draws for her own Banana.
    box = "wild item-box"
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "blue 8"], "cy": [box, box, "green 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["blue 9", "red 4", "yellow 4"])
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "draw", "player": "bob"})
    events = ok(ref, {"type": "play", "player": "cy", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "mushroom" and events[-1] == {"type": "turn", "player": "cy", "again": True}
    events = ok(ref, {"type": "play", "player": "cy", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "banana"
    assert [e["player"] for e in of(events, "drew")] == ["bob"]


def test_mk09_banana_nobody_went_before_the_first_turn() -> None:
    hands = {"ann": ["wild item-box", "red 2"], "bob": ["blue 7"], "cy": ["green 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["yellow 4"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "banana" and of(events, "drew") == []


def test_mk10_green_shell_the_chosen_opponent_draws_one() -> None:
    hands = {"ann": ["wild item-box", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["green 4"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    assert events[-1] == {"type": "pending", "kind": "target", "player": "ann", "reason": "green-shell"}
    refused(ref, {"type": "choose", "player": "ann", "target": "ann"}, "bad_target")
    events = ok(ref, {"type": "choose", "player": "ann", "target": "cy"})
    assert of(events, "drew")[0]["player"] == "cy" and ref.public_state()["hands"]["cy"] == 2
    assert ref.public_state()["current"] == "bob"
    ref, _ = start(MK, hands, "red 5", stock_top=["green 4"])  # the target can come with the play
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box", "target": "bob"})
    assert of(events, "drew")[0]["player"] == "bob"


def test_mk11_lightning_every_other_player_draws_one_then_another_turn() -> None:
    hands = {"ann": ["wild item-box", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["blue 4"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    assert [e["player"] for e in of(events, "drew")] == ["bob", "cy"]
    assert events[-1] == {"type": "turn", "player": "ann", "again": True}


def test_mk12_bob_omb_the_player_draws_two_and_chooses_the_colour() -> None:
    hands = {"ann": ["wild item-box", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["wild draw-4", "red 6", "red 7"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild item-box"})
    assert of(events, "item")[0]["item"] == "bob-omb" and of(events, "drew")[0]["player"] == "ann"
    assert ref.public_state()["pending"] == {"kind": "color", "player": "ann", "reason": "bob-omb"}
    assert ref.public_state()["hands"]["ann"] == 3
    events = ok(ref, {"type": "choose", "player": "ann", "color": "green"})
    assert ref.public_state()["color"] == "green" and events[-1] == {"type": "turn", "player": "bob"}


def test_mk13_wild_draw4_next_player_accepts_draws_four_and_loses_the_turn() -> None:
    hands = {"ann": ["wild draw-4", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5")
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild draw-4", "color": "blue"})
    assert events[-1] == {"type": "pending", "kind": "challenge", "player": "bob", "by": "ann"}
    refused(ref, {"type": "draw", "player": "bob"}, "pending_choice")
    refused(ref, {"type": "accept", "player": "cy"}, "not_your_choice")
    events = ok(ref, {"type": "accept", "player": "bob"})
    assert of(events, "drew")[0]["count"] == 4 and ref.public_state()["current"] == "cy"


def test_mk14_challenge_guilty_player_draws_four_and_challenger_plays_on() -> None:
    hands = {"ann": ["wild draw-4", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}  # ann held a red
    ref, _ = start(MK, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "wild draw-4", "color": "blue"})
    events = ok(ref, {"type": "challenge", "player": "bob"})
    assert events[0] == {"type": "challenged", "player": "bob", "target": "ann", "guilty": True}
    assert of(events, "drew")[0]["player"] == "ann" and ref.public_state()["hands"]["ann"] == 5
    assert ref.public_state()["current"] == "bob" and ref.public_state()["color"] == "blue"


def test_mk14_challenge_innocent_challenger_draws_six_and_loses_the_turn() -> None:
    hands = {"ann": ["wild draw-4", "blue 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}  # no red: a legal WD4
    ref, _ = start(MK, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "wild draw-4", "color": "blue"})
    events = ok(ref, {"type": "challenge", "player": "bob"})
    assert events[0]["guilty"] is False and of(events, "drew")[0]["count"] == 6
    assert ref.public_state()["current"] == "cy"


def test_mk15_caught_without_uno_draws_two() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "red 3"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    events = ok(ref, {"type": "catch", "player": "bob", "target": "ann"})
    assert kinds(events) == ["caught", "penalty", "dispense", "drew"] and ref.public_state()["hands"]["ann"] == 3
    assert ref.public_state()["current"] == "bob"


def test_mk16_a_final_draw2_is_still_drawn_before_scoring() -> None:
    hands = {"ann": ["red draw-2"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(MK, hands, "red 5", stock_top=["green 9", "blue skip"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "red draw-2"})
    assert kinds(events)[:5] == ["played", "went_out", "dispense", "drew", "round_ended"]
    assert of(events, "round_ended")[0]["points"] == 7 + 9 + 20 + 3


def test_mk17_scoring_values() -> None:
    values = RULESETS[MK].values
    assert values["red 0"] == 0 and values["red 9"] == 9
    assert values["red draw-2"] == values["red skip"] == values["red reverse"] == 20
    assert values["wild item-box"] == values["wild draw-4"] == 50
    assert RULESETS["classic"].values["wild"] == 50


def test_mk18_empty_stock_is_reshuffled_from_the_discard_pile() -> None:
    deck = [c for c in DECKS[MK] if c not in ("red 1", "red 5")]  # all four of those left out
    deck.remove("blue 2")
    hands = {"ann": ["red 1", "blue 2"], "bob": deck[:50], "cy": [*deck[50:], "red 5"]}
    ref, _ = start(MK, hands, "red 5")
    assert ref.public_state()["stock"] == 1  # the other red 1
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "draw", "player": "bob"})  # takes the last card (red 1, playable)
    ok(ref, {"type": "pass", "player": "bob"})
    events = ok(ref, {"type": "draw", "player": "cy"})
    assert of(events, "reshuffled")[0]["cards"] == 1 and of(events, "drew")[0]["cards"] == ["red 5"]
    # The reshuffle comes before the draw that lists a card from it (and before the dispense request that asks
    # the launcher for it): no event names a card before the event that put it into the stock.
    assert kinds(events)[:3] == ["reshuffled", "dispense", "drew"], events


def test_mk18_a_draw_of_two_that_empties_the_stock_mid_way_reshuffles_first() -> None:
    # MK-06 + MK-18: a Draw Two with one card left in the stock: bob takes it, the discard pile under the top (the
    # starter) is reshuffled, and bob takes that too. The reshuffle is announced before the drew that lists it.
    deck = [c for c in DECKS[MK] if c not in ("red 1", "red 5")]
    deck.remove("blue 2")
    deck.remove("red draw-2")
    hands = {"ann": ["red draw-2", "blue 2"], "bob": deck[:50], "cy": [*deck[50:], "red 1", "red 5"]}
    ref, _ = start(MK, hands, "red 5")
    assert ref.public_state()["stock"] == 1  # the other red 1
    events = ok(ref, {"type": "play", "player": "ann", "card": "red draw-2"})
    assert kinds(events)[:4] == ["played", "reshuffled", "dispense", "drew"], events
    assert of(events, "drew")[0] == {"type": "drew", "player": "bob", "count": 2, "cards": ["red 1", "red 5"]}
    assert of(events, "reshuffled")[0]["cards"] == 1


def test_classic_deck_has_108_cards_and_games_finish() -> None:
    deck = Counter(DECKS["classic"])
    assert sum(deck.values()) == 108 and deck["wild"] == 4 and deck["wild draw-4"] == 4 and deck["red 0"] == 1
    for players in (2, 4):
        ref = Referee()
        ok(ref, {"type": "new_game", "ruleset": "classic", "players": [f"p{i}" for i in range(players)], "seed": 9})
        play_game(ref, Bot("greedy", seed=9))
        state = ref.public_state()
        assert state["winner"] is not None and state["scores"][state["winner"]] >= 500


def test_classic_wild_start_lets_the_first_player_choose_and_there_are_no_items() -> None:
    ref, _ = start("classic", {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "wild")
    assert ref.public_state()["pending"] == {"kind": "color", "player": "ann", "reason": "start"}
    ok(ref, {"type": "choose", "player": "ann", "color": "yellow"})
    refused(ref, {"type": "play", "player": "ann", "card": "red 1"}, "card_does_not_match")
    refused(ref, {"type": "play", "player": "ann", "card": "wild item-box"}, "unknown_card")
