"""The action table (rules/actions.py) is complete and true: every action a game can give a face is in it, none is
dead, and what it says a play needs (a target, not the last card, a colour) is what the referee accepts and refuses;
the fast-path table is keyed on the whole face -> action map (a house rule giving a face an action must not reuse
the plain table: the 7-0 trap of issue #31)."""

from __future__ import annotations

from typing import Any

import pytest

from unolauncher.rules.actions import ACTIONS, to_json
from unolauncher.rules.cards import CARD_INFO, RULESETS
from unolauncher.rules.options import CUSTOM_ACTIONS
from unolauncher.rules.play import choosy_cards, quick_table
from unolauncher.rules.referee import Referee

from .rigs import ok, refused, start

# Every game whose face -> action map differs: each rule set, and UNO Attack with each Customizable action.
# The house rules are options of their own (a game's map with seven_zero: "options" instead of a Customizable).
GAMES: list[tuple[str, dict[str, Any] | None]] = [
    ("classic", None),
    ("mario-kart", None),
    ("attack-original", None),
    *[("attack", {"action": action}) for action in CUSTOM_ACTIONS],
    ("classic", {"options": {"seven_zero": True}}),
    ("attack-original", {"options": {"seven_zero": True}}),
]


def game_options(custom: dict[str, Any] | None) -> dict[str, Any]:
    if custom is None:
        return {}
    return dict(custom["options"]) if "options" in custom else {"customizable": custom}


def action_map(ruleset: str, custom: dict[str, Any] | None) -> dict[str, str]:
    ref = Referee()
    options = game_options(custom)
    events = ref.handle({"type": "new_game", "ruleset": ruleset, "players": ["a", "b"], "options": options})
    assert events[0]["type"] == "game_started", events
    return dict(ref._actions)


def test_every_action_a_game_can_give_a_face_is_in_the_table_and_none_is_dead() -> None:
    seen = {""}  # number cards and plain Wilds
    for ruleset, custom in GAMES:
        actions = action_map(ruleset, custom)
        assert set(actions.values()) <= set(ACTIONS), (ruleset, custom, set(actions.values()) - set(ACTIONS))
        seen |= set(actions.values())
    assert seen == set(ACTIONS), f"actions no game produces: {set(ACTIONS) - seen}"
    assert set(to_json()) == set(ACTIONS)


def cases() -> list[tuple[str, dict[str, Any] | None, str]]:
    out = []
    for ruleset, custom in GAMES:
        actions = action_map(ruleset, custom)
        for card in sorted(set(RULESETS[ruleset].deck)):
            color, face = CARD_INFO[card]
            if face in actions and (color in (None, "red")) and face != "wild item-box":
                out.append((ruleset, custom, card))
    return out


@pytest.mark.parametrize(("ruleset", "custom", "card"), cases())
def test_what_the_table_says_a_play_needs_is_what_the_referee_wants(
    ruleset: str, custom: dict[str, Any] | None, card: str
) -> None:
    options = {"options": game_options(custom)}
    hands = {"ann": [card, "red 1", "red 2"], "bob": ["blue 1", "blue 2", "blue 3"], "cy": ["green 1", "green 2"]}
    ref, _ = start(ruleset, hands, "red 5", **options)
    facts = ACTIONS[ref._actions.get(CARD_INFO[card][1], "")]
    assert ref.play_choices(card) == (CARD_INFO[card][0] is None and facts.color, facts.target)
    play: dict[str, Any] = {"type": "play", "player": "ann", "card": card}
    if CARD_INFO[card][0] is None:
        play["color"] = "red"
    if facts.target:
        refused(ref, play, "missing_field")
        ok(ref, {**play, "target": "bob"})
    else:
        ok(ref, play)


@pytest.mark.parametrize(
    ("ruleset", "custom"), [("attack-original", None), ("attack", {"action": "trade-hands"})], ids=str
)
def test_a_card_that_may_not_be_last_is_refused_as_the_last(ruleset: str, custom: dict[str, Any] | None) -> None:
    actions = action_map(ruleset, custom)
    not_last = sorted({c for c in RULESETS[ruleset].deck if not ACTIONS[actions.get(CARD_INFO[c][1], "")].last})
    assert not_last  # the games above each have one
    for card in not_last:
        options = {"options": game_options(custom)}
        hands = {"ann": [card], "bob": ["blue 1", "blue 2"], "cy": ["green 1", "green 2"]}
        ref, _ = start(ruleset, hands, f"{CARD_INFO[card][0] or 'red'} 5", **options)
        play = {"type": "play", "player": "ann", "card": card, "target": "bob"}
        if CARD_INFO[card][0] is None:
            play["color"] = "red"
        refused(ref, play, "cannot_go_out_on_trade")
        assert card not in ref.playable("ann")


def test_the_fast_path_table_is_keyed_on_the_whole_action_map() -> None:
    # Two classic games whose maps differ only in a face the Customizable has nothing to do with (as a 7-0 house
    # rule would give the 7 an action): the second must not get the first's cached table.
    rs = RULESETS["classic"]
    plain = action_map("classic", None)
    assert quick_table(rs, plain)["red 7"] == ("red", "7", "", True)
    with_seven = {**plain, "7": "trade-hands"}
    assert "red 7" not in quick_table(rs, with_seven)  # a targeting action keeps to the general path
    assert "red 7" in choosy_cards(rs, with_seven) and "red 7" not in choosy_cards(rs, plain)
    assert quick_table(rs, plain)["red 7"] == ("red", "7", "", True)  # and the plain one is still plain
