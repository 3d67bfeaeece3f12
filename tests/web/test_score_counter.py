"""The scoring counter: tapping each card left in a hand adds up the points the referee would count for it
(RULES.md ATK-20, MK-17), and the number of cards tapped is checked against the hand sizes the referee tracks.
Real Chromium against ``unolauncher run``; the expected points come from a full-mode referee dealt the same hands."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect
from rules.rigs import rig

from unolauncher.rules.cards import RULESETS
from unolauncher.rules.referee import Referee

from .conftest import PhoneFactory, TableHandle
from .test_dashboard import live

PLAYERS = ["ann", "bob", "cy"]


def referee_hand_values(ruleset: str, hands: dict[str, list[str]], last: str) -> dict[str, int]:
    """What a full-mode referee scores for these hands when ann goes out with ``last``."""
    ref = Referee()
    assert ref.handle(rig(ruleset, {"ann": [last], **hands}, "red 5", players=PLAYERS, dealer="cy"))[0]["type"] == (
        "game_started"
    )
    events = ref.handle({"type": "play", "player": "ann", "card": last})
    ended = next(e for e in events if e["type"] == "round_ended")
    return {p: v for p, v in ended["hands"].items() if p != "ann"}


def tap(page: Any, player: str, cards: list[str]) -> None:
    """Tap each card's value on the player's keypad (a number is its face, an action card or Wild "+20" … "+50")."""
    if not page.locator(f'.counter[data-player="{player}"]').is_visible():
        page.locator(".counter-open", has_text=f"Count {player}’s cards").click()
    box = page.locator(f'.counter[data-player="{player}"]')
    for card in cards:
        value = RULESETS["attack"].values[card]
        label = str(value) if value < 10 else f"+{value}"
        box.locator(".counter-key").filter(has_text=re.compile(f"^{re.escape(label)}$")).click()


def test_the_counter_adds_up_each_hand_as_the_referee_scores_it(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    hands = {"bob": ["red 7", "blue skip", "wild"], "cy": ["green 4", "wild hit-4", "yellow discard-all"]}
    expected = referee_hand_values("attack", hands, "red 3")
    assert expected == {"bob": 7 + 20 + 50, "cy": 4 + 40 + 30}  # ATK-20
    counts = {"ann": 1, "bob": len(hands["bob"]), "cy": len(hands["cy"])}
    assert table.command(
        {
            "type": "new_game",
            "ruleset": "attack",
            "mode": "table",
            "players": PLAYERS,
            "seed": 5,
            "deal": {"dealer": "cy", "starter": "red 5", "hands": counts},
        }
    )["ok"]
    assert table.command({"type": "play", "player": "ann", "card": "red 3"})["ok"]  # out: the round is scored
    page = phones.open(dashboard_url)
    live(page)
    page.click("[data-tab=scores]")
    expect(page.locator("#score-form")).to_be_visible()
    tap(page, "bob", hands["bob"][:2])
    expect(page.locator('.counter[data-player="bob"] .counter-check')).to_have_text(" · the referee counts 3 cards")
    tap(page, "bob", hands["bob"][2:])
    expect(page.locator('.counter[data-player="bob"] .counter-check')).to_have_text(" · ✓ all cards")
    tap(page, "cy", hands["cy"])
    assert page.locator("input[name=bob]").input_value() == str(expected["bob"])
    assert page.locator("input[name=cy]").input_value() == str(expected["cy"])
    phones.shot(page, "score-counter")
    page.locator("#score-form button[type=submit]").click()
    expect(page.locator("#score-form")).to_be_hidden()
    ended = table.events("round_ended")[-1]
    assert {p: ended["hands"][p] for p in ("bob", "cy")} == expected
