"""A house rule says its own banner (``HouseRule.banner``, ``rules/house_banner.py``): the stacking rule's templates
word each kind of open stack a real game leaves in the state's ``house``; the daemon's rule catalogue carries every
rule's templates by its ``house`` entry, so a made-up rule's banner reaches the phone with no page change (the page's
side: ``tests/web/test_house_banners.py``); a malformed template is refused when the rule is declared."""

from __future__ import annotations

from typing import Any

import pytest

from unolauncher.daemon import catalogue as catalogue_module
from unolauncher.rules.checks import Option, boolean
from unolauncher.rules.house_banner import Banner, choose
from unolauncher.rules.house_rules import HouseRule, rules
from unolauncher.rules.house_rules.stacking import RULE as STACKING

from .rigs import ok, start

DRAWS = {"ann": ["red draw-2", "red 1"], "bob": ["blue draw-2", "blue 1"], "cy": ["green 1", "green 2"]}
FOURS = {"ann": ["wild draw-4", "blue 1"], "bob": ["wild draw-4", "green 1"], "cy": ["yellow 1", "yellow 2"]}
HITS = {"ann": ["red hit-2", "red 1"], "bob": ["blue hit-2", "blue 1"], "cy": ["green 1", "green 2"]}


class Curfew(HouseRule):
    """A made-up house rule with an open entry of its own and a banner worded by an existing message."""

    name = "curfew"
    options = (Option("curfew", False, boolean, "made up for a test", optional=True),)

    def banner(self) -> tuple[Banner, ...]:
        return (Banner("banner.must_hit", {"player": "who", "count": "left"}, tone="hit"),)


def stack_after(ruleset: str, hands: dict[str, list[str]], options: dict[str, Any], *plays: dict[str, Any]) -> Any:
    """The open stack after ``plays`` from a rigged game (starter: red 5), as the public state shows it."""
    ref, _ = start(ruleset, hands, "red 5", options=options)
    for command in plays:
        ok(ref, {"type": "play", **command})
    return ref.public_state()["house"]["stacking"]


def test_an_open_draw_two_stack_is_worded_with_its_card_and_sum() -> None:
    entry = stack_after("classic", DRAWS, {"stacking": True}, {"player": "ann", "card": "red draw-2"},
                        {"player": "bob", "card": "blue draw-2"})  # fmt: skip
    chosen = choose(STACKING.banner(), entry)
    assert chosen is not None
    banner, params = chosen
    assert (banner.key, banner.tone, params) == (
        "banner.stack_draw",
        "turn",
        {"player": "cy", "card": "draw-2", "count": 4},
    )
    assert banner.faces == ("card",)


def test_an_open_wild_draw_four_stack_names_its_card() -> None:
    ann = {"player": "ann", "card": "wild draw-4", "color": "green"}
    entry = stack_after("classic", FOURS, {"stacking_wd4": True}, ann, {**ann, "player": "bob", "color": "red"})
    chosen = choose(STACKING.banner(), entry)
    assert chosen is not None and chosen[0].key == "banner.stack_draw"
    assert chosen[1] == {"player": "cy", "card": "wild draw-4", "count": 8}


def test_an_open_hit_two_stack_is_worded_by_its_hits_in_the_hit_tone() -> None:
    entry = stack_after("attack", HITS, {"stacking": True}, {"player": "ann", "card": "red hit-2"})
    chosen = choose(STACKING.banner(), entry)
    assert chosen is not None
    assert (chosen[0].key, chosen[0].tone, chosen[1]) == (
        "banner.stack_hits",
        "hit",
        {"player": "bob", "card": "hit-2", "count": 2},
    )


def test_an_entry_no_template_fits_leaves_the_usual_banner() -> None:
    assert choose(STACKING.banner(), {"kind": "draw-2"}) is None  # nobody named
    assert choose((), {"player": "cy"}) is None


def test_the_catalogue_carries_every_rules_banner_by_its_house_entry() -> None:
    banners = catalogue_module.catalogue(())["banners"]
    expected = {rule.name: [b.to_json() for b in rule.banner()] for rule in rules() if rule.banner()}
    assert banners == expected
    assert [b["key"] for b in banners["stacking"]] == ["banner.stack_hits", "banner.stack_draw"]


def test_a_made_up_rules_banner_is_in_the_catalogue_with_no_other_change(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalogue_module, "house_rules", lambda: (*rules(), Curfew()))
    banners = catalogue_module.catalogue(())["banners"]
    assert banners["curfew"] == [
        {"key": "banner.must_hit", "params": {"player": "who", "count": "left"}, "faces": [], "when": "", "tone": "hit"}
    ]
    assert "stacking" in banners


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"key": "stack", "params": {"player": "p"}}, "starts with 'banner.'"),
        ({"key": "banner.x", "params": {"player": "p"}, "tone": "red"}, "tone is 'turn' or 'hit'"),
        ({"key": "banner.x", "params": {"who": "p"}}, "names nobody"),
        ({"key": "banner.x", "params": {"player": "p"}, "faces": ("card",)}, "shows a face in 'card'"),
    ],
)
def test_a_malformed_banner_is_refused_when_declared(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Banner(**kwargs)
