"""The public state carries the game's options that differ from their defaults (``options``, an optional key), so a
page loaded mid-game knows the house rules and the Wild Customizable's action without the game's ``game_started``;
a game at its defaults has no such key (its public state, and the golden replays, keep their exact JSON)."""

from __future__ import annotations

import pytest

from unolauncher.rules.options import NOT_IN_PUBLIC_STATE, REGISTRY, Option
from unolauncher.rules.referee import Referee

from .rigs import ok
from .test_options_registry import EXAMPLES, new_game, ruleset_of


@pytest.mark.parametrize("option", REGISTRY, ids=lambda o: o.name)
def test_every_option_not_at_its_default_is_in_the_public_state(option: Option) -> None:
    ref = Referee()
    ok(ref, new_game(ruleset_of(option), {option.name: EXAMPLES[option.name]}))
    kept = ref.state.options[option.name]  # as the game keeps it (refined)
    public = ref.public_state()
    if option.name in NOT_IN_PUBLIC_STATE:
        assert option.name not in public.get("options", {})
    else:
        assert public["options"] == {option.name: kept}
        assert Referee.from_json(ref.to_json()).public_state()["options"] == {option.name: kept}


@pytest.mark.parametrize("ruleset", ["classic", "attack", "mario-kart"])
def test_a_game_at_its_defaults_has_no_options_key(ruleset: str) -> None:
    ref = Referee()
    assert "options" not in ref.public_state()  # no game yet
    ok(ref, new_game(ruleset, {"target_score": 150}))  # target_score has its own key
    assert "options" not in ref.public_state()
    assert ref.public_state()["target_score"] == 150


def test_the_options_follow_the_current_game() -> None:
    ref = Referee()
    ok(ref, new_game("classic", {"seven_zero": True}))
    assert ref.public_state()["options"] == {"seven_zero": True}
    ok(ref, {**new_game("classic", {}), "type": "new_game"})
    assert "options" not in ref.public_state()
