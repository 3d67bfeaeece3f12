"""The PROTOCOL.md contract: refusals, public state, hitter(), undo, serialisation, table mode, determinism."""

from __future__ import annotations

import json

import pytest

from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.ejection import commitment
from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused, start

PUBLIC_FIELDS = {
    "ruleset",
    "mode",
    "round",
    "direction",
    "players",
    "current",
    "top",
    "color",
    "hands",
    "owed",
    "pending",
    "scores",
    "winner",
}


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (None, "not_an_object"),
        ([1, 2], "not_an_object"),
        ("play", "not_an_object"),
        (3.5, "not_an_object"),
        ({}, "missing_type"),
        ({"type": 7}, "unknown_command"),
        ({"type": "fly"}, "unknown_command"),
        ({"type": "play", "player": "ann", "card": "red 1"}, "no_game"),
        ({"type": "choose", "player": "ann", "color": "red"}, "no_game"),
        ({"type": "undo"}, "nothing_to_undo"),
        ({"type": "new_game", "ruleset": "poker", "players": ["a", "b"]}, "bad_ruleset"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a"]}, "bad_players"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "a"]}, "bad_players"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", 2]}, "bad_players"),
        ({"type": "new_game", "ruleset": "attack", "players": [f"p{i}" for i in range(11)]}, "bad_players"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": "x"}, "bad_field"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": True}, "bad_field"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "mode": "half"}, "bad_mode"),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "options": {"x": 1}}, "unknown_field"),
        (
            {"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "options": {"target_score": 0}},
            "bad_option",
        ),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "launcher": {"script": [-1]}}, "bad_field"),
        (
            {"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "options": {"ejection_preset": "x"}},
            "bad_option",
        ),
        (
            {"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "options": {"ejection_preset": "custom"}},
            "bad_option",
        ),
        ({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "deal": {"dealer": "z"}}, "bad_deal"),
        (
            {"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "deal": {"hands": {"a": ["red 1"]}}},
            "bad_deal",
        ),
    ],
)
def test_bad_input_is_refused_with_a_stable_code(command: object, code: str) -> None:
    refused(Referee(), command, code)


def test_bad_input_during_a_game_is_refused_and_changes_nothing() -> None:
    hands = {"ann": ["red 1", "red 2"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start("attack", hands, "red 5")
    refused(ref, {"type": "play", "player": "zed", "card": "red 1"}, "unknown_player")
    refused(ref, {"type": "play", "player": 5, "card": "red 1"}, "bad_field")
    refused(ref, {"type": "play", "card": "red 1"}, "missing_field")
    refused(ref, {"type": "play", "player": "ann"}, "missing_field")
    refused(ref, {"type": "play", "player": "ann", "card": "red 99"}, "unknown_card")
    refused(ref, {"type": "play", "player": "ann", "card": "red 9"}, "card_not_held")
    refused(ref, {"type": "play", "player": "bob", "card": "blue 7"}, "not_your_turn")
    refused(ref, {"type": "hit", "player": "bob"}, "not_your_turn")
    refused(ref, {"type": "hit", "cards": -1}, "bad_field")
    refused(ref, {"type": "hit", "cards": "3"}, "bad_field")
    refused(ref, {"type": "draw", "player": "ann"}, "use_hit")
    refused(ref, {"type": "choose", "player": "ann", "color": "red"}, "nothing_pending")
    refused(ref, {"type": "accept", "player": "ann"}, "nothing_pending")
    refused(ref, {"type": "score", "hands": {}}, "nothing_to_score")
    refused(ref, {"type": "next_round"}, "round_in_progress")
    refused(ref, {"type": "catch", "player": "ann", "target": "ann"}, "bad_target")
    ok(ref, {"type": "play", "player": "ann", "card": "red 1", "id": "abc"})  # an MQTT id is allowed on any command


def test_absurdly_nested_input_is_refused_not_raised() -> None:
    deep: object = []
    for _ in range(100_000):
        deep = [deep]
    ref = Referee()
    events = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "x": deep})
    assert events[0]["type"] == "rejected" and events[0]["code"] == "unknown_field"
    assert ref.public_state()["phase"] == "idle"
    ok(ref, {"type": "new_game", "ruleset": "classic", "players": ["a", "b"]})
    assert ref.handle({"type": "uno", "player": "a", "x": deep})[0]["type"] == "rejected"
    assert ref.handle({"type": deep})[0]["code"] == "unknown_command"
    assert ref.handle({"type": "play", "player": deep})[0]["code"] == "bad_field"


def test_playing_after_the_game_ended_is_refused() -> None:
    ref, _ = start(
        "attack", {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "red 5", options={"target_score": 1}
    )
    events = ok(ref, {"type": "play", "player": "ann", "card": "red 1"})
    over = of(events, "game_over")[0]
    assert over["winner"] == "ann" and ref.public_state()["winner"] == "ann"
    refused(ref, {"type": "hit", "player": "bob"}, "game_over")
    refused(ref, {"type": "next_round"}, "game_over")
    assert ref.hitter() is None


def test_public_state_has_every_protocol_field_and_is_json() -> None:
    ref = Referee()
    assert set(ref.public_state()) >= PUBLIC_FIELDS
    ok(ref, {"type": "new_game", "ruleset": "attack", "players": ["a", "b", "c"], "seed": 4})
    state = ref.public_state()
    assert set(state) >= PUBLIC_FIELDS
    assert json.loads(json.dumps(state)) == state
    assert state["direction"] in (1, -1) and sum(state["hands"].values()) == 21


def test_hitter_follows_owed_hits_then_the_current_player_and_is_none_without_a_hit() -> None:
    assert Referee().hitter() is None
    hands = {"ann": ["red hit-2", "red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}
    ref, _ = start("attack", hands, "red 5")
    assert ref.hitter() == "ann"
    ok(ref, {"type": "play", "player": "ann", "card": "red hit-2"})
    assert ref.hitter() == "bob"
    ok(ref, {"type": "hit"})
    ok(ref, {"type": "hit"})
    assert ref.hitter() == "cy"
    classic, _ = start("classic", {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "red 5")
    assert classic.hitter() is None
    refused(classic, {"type": "hit"}, "not_in_ruleset")


def test_each_round_is_committed_at_its_start_and_revealed_at_its_end() -> None:
    ref = Referee()
    secrets_ = [f"{i:064x}" for i in range(1, 60)]
    start = {
        "type": "new_game",
        "ruleset": "attack",
        "players": ["a", "b"],
        "seed": 3,
        "secret": secrets_[0],
        "options": {"target_score": 500},
    }
    events = ok(ref, start)
    opened = of(events, "round_started")[0]
    assert opened["commitment"] == commitment(secrets_[0]) and opened["preset"] == "classic"
    assert "rigged" not in opened and secrets_[0] not in json.dumps(events)
    bot = Bot("greedy", seed=3)
    rounds = 1
    while ref.public_state()["phase"] != "over":
        command = bot.next_command(ref)
        assert command is not None
        if command["type"] == "next_round":
            command["secret"] = secrets_[rounds]
        events = ok(ref, command)
        for ended in of(events, "round_ended"):  # the secret comes out with the scores: the round can be audited
            assert ended["secret"] == secrets_[rounds - 1] and ended["commitment"] == commitment(ended["secret"])
        for started in of(events, "round_started"):
            rounds += 1
            assert started["commitment"] == commitment(secrets_[rounds - 1])
            assert secrets_[rounds - 1] not in json.dumps(events)
    assert rounds >= 2
    assert "ejection_seed" not in of(events, "game_over")[0]


def test_hits_without_a_count_use_the_script_then_the_seeded_model() -> None:
    ref, _ = start(
        "attack", {"ann": ["red 1"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "green 5", launcher={"script": [2, 0]}
    )
    assert ok(ref, {"type": "hit"})[0]["cards"] == 2
    assert ok(ref, {"type": "hit"})[0]["cards"] == 0
    plan = ref.next_fire_plan(ref.hitter())
    assert plan is not None
    events = ok(ref, {"type": "hit"})
    assert events[0]["cards"] == (plan.cards if plan.fire else 0)
    assert of(events, "press")[0]["plan"] == plan.to_json()  # a model decision is a press on the record
    assert kinds(ok(ref, {"type": "hit", "cards": 5})) == ["hit", "turn"]  # the table's count wins; no press


def test_undo_restores_the_previous_state_exactly_and_can_take_back_new_game() -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "mario-kart", "players": ["a", "b", "c"], "seed": 8})
    bot = Bot("random", seed=8)
    snapshots = [ref.to_json()]
    for _ in range(30):
        command = bot.next_command(ref)
        assert command is not None
        ok(ref, command)
        snapshots.append(ref.to_json())
    for expected in reversed(snapshots[:-1]):
        assert kinds(ref.handle({"type": "undo"})) == ["undone"]
        assert ref.to_json() == expected  # no press in Mario Kart: the launcher's record did not move either
    # Taking back new_game: no game again, and its round's launcher secret comes out.
    assert kinds(ref.handle({"type": "undo"})) == ["undone", "ejection_reveal"]
    assert ref.public_state()["phase"] == "idle"
    refused(ref, {"type": "undo"}, "nothing_to_undo")


def test_to_json_from_json_round_trip_continues_identically() -> None:
    ref = Referee()
    ok(ref, {"type": "new_game", "ruleset": "attack", "players": ["a", "b", "c"], "seed": 21})
    bot = Bot("random", seed=2)
    for _ in range(40):
        command = bot.next_command(ref)
        assert command is not None
        ok(ref, command)
    copy = Referee.from_json(json.loads(json.dumps(ref.to_json())))
    assert copy.to_json() == ref.to_json()
    for _ in range(40):
        cmd = bot.next_command(ref)
        assert copy.handle(cmd) == ref.handle(cmd)
    assert copy.to_json() == ref.to_json()


@pytest.mark.parametrize("data", [{}, {"version": 2}, {"version": 1}, {"version": 2, "state": {}, "history": []}, []])
def test_from_json_refuses_what_to_json_did_not_produce(data: object) -> None:
    with pytest.raises(ValueError, match="not a referee state"):
        Referee.from_json(data)  # type: ignore[arg-type]


def test_same_commands_give_identical_events() -> None:
    def run() -> str:
        ref = Referee()
        ok(ref, {"type": "new_game", "ruleset": "attack-original", "players": ["a", "b", "c", "d"], "seed": 77})
        _, events = play_game(ref, Bot("random", seed=77))
        return json.dumps(events, sort_keys=True)

    assert run() == run()


def test_table_mode_keeps_counts_and_asks_for_scores() -> None:
    ref = Referee()
    ok(
        ref,
        {
            "type": "new_game",
            "ruleset": "attack",
            "players": ["a", "b"],
            "mode": "table",
            "deal": {"dealer": "b", "starter": "red 5", "hands": {"a": 2, "b": 7}},
        },
    )
    assert ref.hand("a") is None and ref.public_state()["hands"] == {"a": 2, "b": 7}
    ok(ref, {"type": "uno", "player": "a"})
    ok(ref, {"type": "play", "player": "a", "card": "red 7"})
    ok(ref, {"type": "hit", "player": "b", "cards": 4})
    refused(ref, {"type": "play", "player": "a", "card": "red discard-all", "discarded": ["blue 1"]}, "bad_field")
    events = ok(ref, {"type": "play", "player": "a", "card": "red 3"})
    assert events[-1] == {"type": "pending", "kind": "score", "player": "a"}
    assert ref.public_state()["phase"] == "scoring" and ref.hitter() is None
    refused(ref, {"type": "score", "hands": {"a": 0}}, "missing_field")
    refused(ref, {"type": "score", "hands": {"b": -3}}, "bad_field")
    refused(ref, {"type": "next_round"}, "score_required")
    events = ok(ref, {"type": "score", "hands": {"b": 120}})
    assert of(events, "round_ended")[0]["scores"] == {"a": 120, "b": 0}
    # With real cards the referee never makes up the next round's starter: the table says which card was turned.
    refused(ref, {"type": "next_round"}, "starter_required")
    refused(ref, {"type": "next_round", "deal": {"dealer": "b"}}, "starter_required")
    events = ok(ref, {"type": "next_round", "deal": {"starter": "blue 2"}})
    assert of(events, "round_started")[0]["dealer"] == "a" and ref.public_state()["current"] == "b"


def test_table_mode_wd4_challenge_needs_the_outcome() -> None:
    ref = Referee()
    ok(
        ref,
        {
            "type": "new_game",
            "ruleset": "classic",
            "players": ["a", "b"],
            "mode": "table",
            "deal": {"dealer": "b", "starter": "red 5"},
        },
    )
    ok(ref, {"type": "play", "player": "a", "card": "wild draw-4", "color": "green"})
    refused(ref, {"type": "challenge", "player": "b"}, "guilty_required")
    events = ok(ref, {"type": "challenge", "player": "b", "guilty": True})
    assert of(events, "dispense")[0] == {"type": "dispense", "player": "a", "count": 4}
    assert ref.public_state()["hands"] == {"a": 10, "b": 7}


def test_table_mode_item_box_needs_the_turned_card() -> None:
    ref = Referee()
    ok(
        ref,
        {
            "type": "new_game",
            "ruleset": "mario-kart",
            "players": ["a", "b"],
            "mode": "table",
            "deal": {"dealer": "b", "starter": "red 5"},
        },
    )
    refused(ref, {"type": "play", "player": "a", "card": "wild item-box"}, "turned_required")
    events = ok(ref, {"type": "play", "player": "a", "card": "wild item-box", "turned": "blue 3"})
    assert of(events, "item")[0]["item"] == "lightning" and ref.public_state()["hands"] == {"a": 6, "b": 8}
