"""The registry of house rules written as modules (rules/house_rules/): the state they keep stays out of games that
do not use it, each rule module is complete, and ``simulate`` takes any option (docs/extending.md, "Add a house
rule")."""

from __future__ import annotations

import json

import pytest

from unolauncher.cli import main
from unolauncher.rules.actions import ACTIONS
from unolauncher.rules.house_rules import HouseRule, active, rules
from unolauncher.rules.options import OPTIONS_BY_NAME
from unolauncher.rules.referee import Referee
from unolauncher.rules.state import GameState

from .rigs import start


def test_the_house_state_is_absent_from_the_json_while_empty_and_kept_while_set() -> None:
    state = GameState()
    assert "house" not in state.to_json()  # snapshots and golden replays keep their bytes
    assert GameState.from_json(state.to_json()).house == {}
    state.house["a_rule"] = {"cards": 4}
    data = state.to_json()
    assert data["house"] == {"a_rule": {"cards": 4}}
    again = GameState.from_json(data)
    assert again.house == {"a_rule": {"cards": 4}} and again.clone().house == again.house
    again.clone().house["a_rule"]["cards"] = 9  # a clone is a copy
    assert again.house["a_rule"]["cards"] == 4


def test_the_house_state_shows_in_the_public_state_only_while_set_and_a_new_round_clears_it() -> None:
    ref, _ = start("classic", {"ann": ["red 1", "red 2"], "bob": ["blue 1", "blue 2"], "cy": ["green 1"]}, "red 5")
    assert "house" not in ref.public_state()
    ref.state.house["a_rule"] = {"player": "bob"}
    assert ref.public_state()["house"] == {"a_rule": {"player": "bob"}}
    ref._start_round(0, None, [], None)
    assert ref.state.house == {} and "house" not in ref.public_state()


def test_while_a_house_rule_holds_something_open_the_fast_paths_step_aside() -> None:
    ref, _ = start("classic", {"ann": ["red 1", "red 2"], "bob": ["blue 1", "blue 2"], "cy": ["green 1"]}, "red 5")
    ref.state.house["a_rule"] = {}
    assert ref._fast_play({"type": "play", "player": "ann", "card": "red 1"}) is None
    assert ref._fast_draw({"type": "draw", "player": "ann"}) is None
    del ref.state.house["a_rule"]
    assert ref._fast_play({"type": "play", "player": "ann", "card": "red 1"}) is not None


def test_every_house_rule_module_is_complete() -> None:
    for rule in rules():
        assert isinstance(rule, HouseRule)
        assert rule.name and rule.options, "a house rule names itself and declares its options"
        for option in rule.options:
            assert OPTIONS_BY_NAME[option.name] is option, "its options are in the option registry"
            assert option.optional and not option.default, f"{option.name}: optional and default off"
            assert rule in active({option.name: True})
        assert rule not in active({})


def test_a_rule_s_faces_get_its_actions_in_the_games_that_switch_it_on_and_only_there() -> None:
    declared = [rule for rule in rules() if rule.faces]
    assert declared, "at least one rule (seven_zero) gives faces an action"
    for rule in declared:
        for action, facts in rule.actions.items():
            assert ACTIONS[action] is facts, f"{rule.name}: its actions are in the action table"
        for option in rule.options:
            on, off = Referee(), Referee()
            for ref, options in ((on, {option.name: True}), (off, {})):
                ref.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "options": options})
            for face, action in rule.faces.items():
                assert action in rule.actions or action in ACTIONS
                assert on._actions.get(face) == action, f"{option.name} on: {face} does {action}"
                assert off._actions.get(face) != action, f"{option.name} off: {face} does not {action}"


def test_simulate_takes_any_option_and_refuses_a_malformed_one(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--ruleset", "classic", "--players", "3", "--games", "2", "--json", "--no-progress"]
    assert main([*args, "--option", "seven_zero=true"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2
    assert main([*args, "--option", "seven_zero=yes"]) == 2
    assert "NAME=JSON" in capsys.readouterr().err
    assert main([*args, "--option", "seven_zero=3"]) == 2  # the referee's refusal, in one sentence
    assert "seven_zero" in capsys.readouterr().err


def test_a_game_without_house_rule_options_plays_none() -> None:
    ref = Referee()
    ref.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1})
    assert ref._house == ()
