"""UNO Attack rules, one test (at least) per rule ID of RULES.md (ATK-01 … ATK-22)."""

from __future__ import annotations

from collections import Counter

from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.cards import DECKS, RULESETS
from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused, start

A = "attack"


def test_atk01_attack_deck_has_112_cards_with_the_seed_content() -> None:
    deck = Counter(DECKS[A])
    assert sum(deck.values()) == 112
    for color in ("red", "yellow", "green", "blue"):
        assert all(deck[f"{color} {n}"] == 2 for n in range(1, 10))
        assert deck[f"{color} 0"] == 0
        assert (deck[f"{color} reverse"], deck[f"{color} hit-2"], deck[f"{color} skip"]) == (1, 2, 2)
        assert deck[f"{color} discard-all"] == 2
    assert (deck["wild"], deck["wild attack-attack"], deck["wild customizable"], deck["wild hit-4"]) == (4, 4, 3, 1)


def test_atk02_original_deck_has_112_cards_and_is_playable() -> None:
    deck = Counter(DECKS["attack-original"])
    assert sum(deck.values()) == 112
    assert (deck["red hit-2"], deck["red reverse"], deck["red skip"], deck["red discard-all"]) == (2, 2, 2, 1)
    assert deck["red trade-hands"] == 1
    assert (deck["wild"], deck["wild all-hit"], deck["wild hit-fire"]) == (4, 2, 2)
    for ruleset in ("attack", "attack-original"):
        ref = Referee()
        ok(ref, {"type": "new_game", "ruleset": ruleset, "players": ["a", "b", "c"], "seed": 5})
        play_game(ref, Bot("random", seed=5))
        assert ref.public_state()["winner"] is not None


def test_atk03_setup_deals_seven_turns_a_starter_and_loads_the_rest() -> None:
    ref = Referee()
    events = ok(ref, {"type": "new_game", "ruleset": A, "players": ["a", "b", "c", "d"], "seed": 11})
    state = ref.public_state()
    assert state["hands"] == {"a": 7, "b": 7, "c": 7, "d": 7}
    assert state["stock"] == 112 - 28 - 1
    started = of(events, "round_started")[0]
    assert state["top"] == started["starter"]
    dealer = ref.state.players.index(started["dealer"])
    if started["starter"].split()[-1] not in ("skip", "reverse", "hit-2"):
        assert state["current"] == ref.state.players[(dealer + 1) % 4]


def test_atk04_play_must_match_colour_number_or_symbol_and_wilds_name_a_colour() -> None:
    hands = {"ann": ["red 1", "blue 5", "green 2", "wild"], "bob": ["blue 7", "red hit-2"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    refused(ref, {"type": "play", "player": "ann", "card": "green 2"}, "card_does_not_match")
    ok(ref, {"type": "play", "player": "ann", "card": "blue 5"})  # number
    ok(ref, {"type": "play", "player": "bob", "card": "blue 7"})  # colour
    refused(ref, {"type": "play", "player": "cy", "card": "yellow 3"}, "card_does_not_match")
    ok(ref, {"type": "hit", "player": "cy", "cards": 0})
    refused(ref, {"type": "play", "player": "ann", "card": "wild"}, "color_required")
    refused(ref, {"type": "play", "player": "ann", "card": "wild", "color": "pink"}, "bad_color")
    events = ok(ref, {"type": "play", "player": "ann", "card": "wild", "color": "green"})
    assert events[0]["color"] == "green" and ref.public_state()["color"] == "green"


def test_atk05_a_hit_ends_the_turn_even_if_a_playable_card_came_out_and_reneging_is_allowed() -> None:
    hands = {"ann": ["red 1", "blue 2"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5", stock_top=["red 9", "red 8"], launcher={"script": [1]})
    events = ok(ref, {"type": "hit", "player": "ann"})  # ann could play red 1 but hits instead (renege)
    assert events[0] == {"type": "hit", "player": "ann", "cards": 1, "owed_left": 0, "taken": ["red 9"]}
    assert ref.public_state()["current"] == "bob"
    assert ref.hand("ann") == ["red 1", "blue 2", "red 9"]


def test_atk06_a_zero_card_hit_still_ends_the_turn_and_the_hitter_keeps_what_came_out() -> None:
    ref, _ = start(A, {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "green 5")
    events = ok(ref, {"type": "hit", "cards": 0})
    assert events[0]["player"] == "ann" and events[0]["cards"] == 0
    assert ref.public_state()["current"] == "bob"
    ok(ref, {"type": "hit", "cards": 3})  # three cards came out (or stuck out): bob takes them
    assert ref.public_state()["hands"]["bob"] == 4


def test_atk07_reverse_changes_direction_and_skip_skips() -> None:
    hands = {"ann": ["red reverse", "red 2"], "bob": ["blue 7"], "cy": ["red skip", "red 4"]}
    ref, _ = start(A, hands, "red 5", options={"chain_after_skip_reverse": False})
    events = ok(ref, {"type": "play", "player": "ann", "card": "red reverse"})
    assert of(events, "direction")[0]["direction"] == -1
    assert ref.public_state()["current"] == "cy"
    events = ok(ref, {"type": "play", "player": "cy", "card": "red skip"})
    assert of(events, "skipped")[0]["player"] == "bob"
    assert ref.public_state()["current"] == "ann"


def test_atk07_with_two_players_reverse_acts_as_skip() -> None:
    hands = {"ann": ["red reverse", "red 2", "red 3"], "bob": ["blue 7"]}
    ref, _ = start(A, hands, "red 5", players=["ann", "bob"], options={"chain_after_skip_reverse": False})
    ok(ref, {"type": "play", "player": "ann", "card": "red reverse"})
    assert ref.public_state()["current"] == "ann"


def test_atk08_after_skip_the_same_player_may_keep_playing_then_pass() -> None:
    hands = {"ann": ["red skip", "red 2", "blue 9"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    assert "chain" in kinds(events) and ref.public_state()["current"] == "ann" and ref.public_state()["chain"]
    assert ref.hitter() is None
    refused(ref, {"type": "hit", "player": "ann"}, "finish_chain")
    refused(ref, {"type": "play", "player": "bob", "card": "blue 7"}, "not_your_turn")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 2"})  # chain ends with a number: skip applies
    assert of(events, "skipped")[0]["player"] == "bob"
    assert ref.public_state()["current"] == "cy"


def test_atk08_pass_ends_the_chain_and_the_option_can_turn_it_off() -> None:
    hands = {"ann": ["red skip", "blue 9"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    events = ok(ref, {"type": "pass", "player": "ann"})
    assert kinds(events) == ["passed", "skipped", "turn"] and events[-1]["player"] == "cy"
    ref, _ = start(A, hands, "red 5", options={"chain_after_skip_reverse": False})
    ok(ref, {"type": "play", "player": "ann", "card": "red skip"})
    assert ref.public_state()["current"] == "cy"
    refused(ref, {"type": "pass", "player": "cy"}, "cannot_pass")


def test_atk09_discard_all_discards_every_card_of_its_colour_and_ends_on_top() -> None:
    hands = {"ann": ["red discard-all", "red 1", "blue 2", "red hit-2", "wild"], "bob": ["blue discard-all"]}
    hands["cy"] = ["yellow 3", "yellow 4", "yellow 5"]
    ref, _ = start(A, hands, "red 5")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red discard-all"})
    assert events[0]["discarded"] == ["red 1", "red hit-2"]
    assert ref.hand("ann") == ["blue 2", "wild"]
    assert ref.public_state()["top"] == "red discard-all" and ref.public_state()["color"] == "red"
    assert ref.state.discard[-3:] == ["red 1", "red hit-2", "red discard-all"]
    assert ref.public_state()["owed"] == []  # the discarded Hit 2 has no effect
    ok(ref, {"type": "play", "player": "bob", "card": "blue discard-all"})  # matches by symbol, and bob is out


def test_atk10_trade_hands_swaps_with_a_chosen_opponent_but_cannot_be_the_last_card() -> None:
    hands = {"ann": ["red trade-hands", "red 1"], "bob": ["blue 7", "blue 8", "blue 9"], "cy": ["yellow 3"]}
    ref, _ = start("attack-original", hands, "red 5")
    refused(ref, {"type": "play", "player": "ann", "card": "red trade-hands"}, "missing_field")
    refused(ref, {"type": "play", "player": "ann", "card": "red trade-hands", "target": "ann"}, "bad_target")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red trade-hands", "target": "bob"})
    assert of(events, "traded")[0] == {"type": "traded", "player": "ann", "target": "bob"}
    assert ref.hand("ann") == ["blue 7", "blue 8", "blue 9"] and ref.hand("bob") == ["red 1"]
    ref, _ = start("attack-original", {"ann": ["red trade-hands"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "red 5")
    refused(
        ref, {"type": "play", "player": "ann", "card": "red trade-hands", "target": "bob"}, "cannot_go_out_on_trade"
    )


def test_atk11_hit2_next_player_hits_twice_then_loses_the_turn() -> None:
    hands = {"ann": ["red hit-2", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red hit-2"})
    state = ref.public_state()
    assert state["owed"] == [{"player": "bob", "hits": 2}] and ref.hitter() == "bob"
    refused(ref, {"type": "hit", "player": "cy"}, "not_your_hit")
    refused(ref, {"type": "play", "player": "bob", "card": "blue 7"}, "hits_owed")
    assert ok(ref, {"type": "hit", "cards": 0})[0]["owed_left"] == 1
    events = ok(ref, {"type": "hit", "cards": 2})
    assert events[0]["owed_left"] == 0 and events[-1] == {"type": "turn", "player": "cy"}
    assert ref.public_state()["hands"]["bob"] == 3


def test_atk11_hit2_as_start_card_makes_the_first_player_hit_twice() -> None:
    ref, events = start(A, {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "green hit-2")
    assert of(events, "owed")[0] == {"type": "owed", "player": "ann", "hits": 2}
    ok(ref, {"type": "hit", "cards": 1})
    ok(ref, {"type": "hit", "cards": 1})
    assert ref.public_state()["current"] == "bob"


def test_atk12_wild_hit4_names_a_colour_and_the_next_player_hits_four_times() -> None:
    hands = {"ann": ["wild hit-4", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "wild hit-4", "color": "blue"})
    assert ref.public_state()["owed"] == [{"player": "bob", "hits": 4}] and ref.public_state()["color"] == "blue"
    for _ in range(4):
        ok(ref, {"type": "hit", "cards": 0})
    assert ref.public_state()["current"] == "cy"


def test_atk13_attack_attack_targets_any_player_then_play_continues_from_the_player() -> None:
    hands = {"ann": ["wild attack-attack", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    refused(ref, {"type": "play", "player": "ann", "card": "wild attack-attack", "color": "red"}, "missing_field")
    ok(ref, {"type": "play", "player": "ann", "card": "wild attack-attack", "color": "red", "target": "cy"})
    assert ref.public_state()["owed"] == [{"player": "cy", "hits": 2}]
    ok(ref, {"type": "hit", "cards": 1})
    events = ok(ref, {"type": "hit", "cards": 1})
    assert events[-1] == {"type": "turn", "player": "bob"}


def test_atk14_hit_fire_hits_until_a_card_comes_out_and_loses_the_turn() -> None:
    hands = {"ann": ["wild hit-fire", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start("attack-original", hands, "red 5", launcher={"script": [0, 0, 3]})
    ok(ref, {"type": "play", "player": "ann", "card": "wild hit-fire", "color": "yellow"})
    assert ref.public_state()["owed"] == [{"player": "bob", "hits": 1, "until_card": True}]
    ok(ref, {"type": "hit"})
    ok(ref, {"type": "hit"})
    assert ref.hitter() == "bob"
    events = ok(ref, {"type": "hit"})
    assert events[0]["cards"] == 3 and events[-1] == {"type": "turn", "player": "cy"}


def test_atk15_all_hit_every_other_player_hits_once_starting_with_the_next_then_next_plays() -> None:
    hands = {"ann": ["wild all-hit", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start("attack-original", hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "wild all-hit", "color": "red"})
    assert [o["player"] for o in ref.public_state()["owed"]] == ["bob", "cy"]
    assert ok(ref, {"type": "hit", "cards": 0})[0]["player"] == "bob"
    events = ok(ref, {"type": "hit", "cards": 0})
    assert events[0]["player"] == "cy" and events[-1] == {"type": "turn", "player": "bob"}


def test_atk16_wild_customizable_follows_the_table_definition_or_is_a_plain_wild() -> None:
    hands = {"ann": ["wild customizable", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "wild customizable", "color": "red"})
    assert ref.public_state()["owed"] == [] and ref.public_state()["current"] == "bob"
    ref, _ = start(A, hands, "red 5", options={"customizable": {"action": "hit", "count": 3, "label": "hit 3"}})
    ok(ref, {"type": "play", "player": "ann", "card": "wild customizable", "color": "red"})
    assert ref.public_state()["owed"] == [{"player": "bob", "hits": 3}]
    ref, _ = start(A, hands, "red 5", options={"customizable": {"action": "all-hit"}})
    ok(ref, {"type": "play", "player": "ann", "card": "wild customizable", "color": "red"})
    assert [o["player"] for o in ref.public_state()["owed"]] == ["bob", "cy"]
    ref, _ = start(A, hands, "red 5", options={"customizable": {"action": "skip"}})
    ok(ref, {"type": "play", "player": "ann", "card": "wild customizable", "color": "red"})
    assert ref.public_state()["current"] == "cy" and not ref.public_state()["chain"]
    bad = Referee()
    refused(
        bad,
        {"type": "new_game", "ruleset": A, "players": ["a", "b"], "options": {"customizable": {"action": "x"}}},
        "bad_option",
    )


def test_atk17_start_card_skip_reverse_and_wild() -> None:
    hands = {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "green skip")
    assert ref.public_state()["current"] == "bob"
    ref, _ = start(A, hands, "green reverse")  # as if the dealer (cy) played it: cy's right (bob) goes first
    assert ref.public_state()["direction"] == -1 and ref.public_state()["current"] == "bob"
    ref, _ = start(A, hands, "wild hit-4")  # no effect; any card may be played
    assert ref.public_state()["owed"] == [] and ref.public_state()["color"] is None
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ref, _ = start(A, hands, "green discard-all")
    assert ref.public_state()["current"] == "ann" and ref.public_state()["color"] == "green"


def test_atk18_uno_caught_before_the_next_player_starts_hits_twice() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "red 9"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    assert ref.public_state()["uno_exposed"] == "ann"
    refused(ref, {"type": "catch", "player": "cy", "target": "bob"}, "nothing_to_catch")
    events = ok(ref, {"type": "catch", "player": "cy", "target": "ann"})
    assert kinds(events) == ["caught", "penalty", "owed"]
    assert ref.hitter() == "ann"
    ok(ref, {"type": "hit", "cards": 1})
    events = ok(ref, {"type": "hit", "cards": 1})
    assert events[-1] == {"type": "turn", "player": "bob"}  # play resumes with bob


def test_atk18_calling_uno_first_or_the_next_player_starting_makes_it_safe() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "red 9"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "uno", "player": "ann"})
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    refused(ref, {"type": "catch", "player": "cy", "target": "ann"}, "nothing_to_catch")
    refused(ref, {"type": "uno", "player": "ann"}, "already_called")
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "play", "player": "bob", "card": "red 9"})  # bob starts: ann is safe now
    refused(ref, {"type": "catch", "player": "cy", "target": "ann"}, "nothing_to_catch")


def test_atk18_an_attack_attack_target_who_is_not_next_hitting_leaves_the_catch_window_open() -> None:
    # ATK-13 + ATK-18: ann's Wild Attack-Attack leaves her one card and names cy; bob is the next player. cy's hits
    # are not bob starting, so ann can still be caught until bob acts.
    players = ["ann", "bob", "cy", "dee"]
    hands = {"ann": ["wild attack-attack", "red 2"], "bob": ["red 7", "red 9"], "cy": ["yellow 3"], "dee": ["blue 4"]}
    for catcher in ("dee", "cy"):
        ref, _ = start(A, hands, "red 5", players=players)
        ok(ref, {"type": "play", "player": "ann", "card": "wild attack-attack", "color": "red", "target": "cy"})
        assert ref.public_state()["uno_exposed"] == "ann"
        ok(ref, {"type": "hit", "player": "cy", "cards": 1})
        ok(ref, {"type": "hit", "player": "cy", "cards": 1})
        assert ref.public_state()["current"] == "bob" and ref.public_state()["uno_exposed"] == "ann"
        events = ok(ref, {"type": "catch", "player": catcher, "target": "ann"})
        assert kinds(events) == ["caught", "penalty", "owed"] and ref.hitter() == "ann"
    ref, _ = start(A, hands, "red 5", players=players)
    ok(ref, {"type": "play", "player": "ann", "card": "wild attack-attack", "color": "red", "target": "cy"})
    ok(ref, {"type": "hit", "player": "cy", "cards": 1})
    ok(ref, {"type": "hit", "player": "cy", "cards": 1})
    ok(ref, {"type": "play", "player": "bob", "card": "red 7"})  # the next player starts: the window closes
    refused(ref, {"type": "catch", "player": "dee", "target": "ann"}, "nothing_to_catch")


def test_atk18_a_penalty_hit_by_someone_else_leaves_the_catch_window_open() -> None:
    # ATK-22 then ATK-18: cy's suggestion penalty hits come before bob's turn but are not bob starting.
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "red 9"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5", options={"suggestion_penalty": True})
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    ok(ref, {"type": "suggest", "player": "cy"})
    for _ in range(4):
        ok(ref, {"type": "hit", "player": "cy", "cards": 0})
    assert ref.public_state()["current"] == "bob" and ref.public_state()["uno_exposed"] == "ann"
    ok(ref, {"type": "catch", "player": "cy", "target": "ann"})


def test_atk18_the_catch_window_survives_a_saved_state_from_before_it_knew_the_next_player() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7", "red 9", "red 8"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    saved = ref.to_json()
    del saved["state"]["uno_next"]  # a journal snapshot written before the field existed
    old = Referee.from_json(saved)
    assert old.public_state()["uno_exposed"] == "ann"
    ok(old, {"type": "play", "player": "bob", "card": "red 9"})
    assert old.public_state()["uno_exposed"] is None


def test_atk19_a_last_card_that_makes_someone_hit_is_hit_before_scoring() -> None:
    hands = {"ann": ["red hit-2"], "bob": ["blue 7", "blue 9"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5", stock_top=["green 8", "wild"])
    events = ok(ref, {"type": "play", "player": "ann", "card": "red hit-2"})
    assert "went_out" in kinds(events) and "round_ended" not in kinds(events)
    ok(ref, {"type": "hit", "cards": 1})
    events = ok(ref, {"type": "hit", "cards": 1})
    ended = of(events, "round_ended")[0]
    assert ended["winner"] == "ann" and ended["hands"]["bob"] == 7 + 9 + 8 + 50
    assert ended["points"] == 7 + 9 + 8 + 50 + 3


def test_atk20_scoring_values() -> None:
    values = RULESETS[A].values
    assert values["red 7"] == 7 and values["red reverse"] == 20 and values["red skip"] == 20
    assert values["red hit-2"] == 20 and values["red discard-all"] == 30 and values["wild hit-4"] == 40
    for wild in ("wild", "wild attack-attack", "wild customizable"):
        assert values[wild] == 50
    original = RULESETS["attack-original"].values
    assert original["red trade-hands"] == 30 and original["wild all-hit"] == 50 and original["wild hit-fire"] == 50
    hands = {"ann": ["red 1"], "bob": ["wild hit-4", "red discard-all"], "cy": ["yellow skip", "yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    assert of(events, "round_ended")[0]["points"] == 40 + 30 + 20 + 3
    assert ref.public_state()["scores"]["ann"] == 93 and ref.public_state()["current"] is None


def test_atk21_table_mode_asks_for_a_reload_and_the_table_confirms() -> None:
    t = Referee()
    deal = {"starter": "red 5", "hands": {"a": 50, "b": 50}}
    ok(t, {"type": "new_game", "ruleset": A, "players": ["a", "b"], "mode": "table", "deal": deal})
    assert t.public_state()["stock"] == 112 - 101 and t.public_state()["current"] == "a"
    refused(t, {"type": "reload"}, "no_reload_requested")
    ok(t, {"type": "play", "player": "a", "card": "red 6"})
    events = ok(t, {"type": "hit", "player": "b", "cards": 11})
    assert of(events, "reload_request")[0]["discard"] == 1
    events = ok(t, {"type": "reload"})
    assert of(events, "reloaded")[0]["cards"] == 1 and t.public_state()["stock"] == 1
    assert t.public_state()["top"] == "red 6"


def test_atk21_full_mode_reloads_the_launcher_as_soon_as_it_is_empty() -> None:
    deck = [c for c in DECKS[A] if c not in ("red 1", "red 2", "red 5")] + ["red 1", "red 2"]
    hands = {"ann": ["red 1", "red 2"], "bob": deck[:50], "cy": deck[50:106]}
    ref, _ = start(A, hands, "red 5")
    assert ref.public_state()["stock"] == 3
    ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    events = ok(ref, {"type": "hit", "player": "bob", "cards": 3})
    # Reloading means opening the lid: the launcher's press count restarts, on the record (docs/ejection.md).
    assert kinds(events) == ["hit", "reload_request", "reloaded", "ejection_lid", "turn"]
    assert ref.public_state()["stock"] == 1 and ref.public_state()["top"] == "red 1"
    assert ref.state.stock == ["red 5"]


def test_atk22_suggesting_a_card_costs_four_hits_when_the_option_is_on() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start(A, hands, "red 5")
    refused(ref, {"type": "suggest", "player": "cy"}, "option_off")
    ref, _ = start(A, hands, "red 5", options={"suggestion_penalty": True})
    events = ok(ref, {"type": "suggest", "player": "cy"})
    assert of(events, "penalty")[0] == {"type": "penalty", "player": "cy", "reason": "suggestion", "hits": 4}
    for _ in range(4):
        ok(ref, {"type": "hit", "cards": 0})
    assert ref.public_state()["current"] == "ann"
