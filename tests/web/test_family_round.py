"""A family of four with real cards plays a complete table-mode round through the dashboard alone (issue #27's
measurement, ``bench/family_round.py`` prints its figures): UNO Attack and Mario Kart on a 360×640 phone, from
Setup to the scores the counter adds up. Real Chromium against ``unolauncher run`` (virtual launcher).

Asserted: the round ends (``round_ended``) through taps on the page only — every game command on ``cmd`` came from
the page, none from the test's client; the family's real hands agree with the hand sizes the referee tracked; the
points the scoring counter sent are what the real hands are worth (ATK-20 / MK-17); no control tapped during play was
off the screen (a scroll). No timing is asserted."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import PhoneFactory, TableHandle
from .family import PLAYERS, FamilyRound
from .test_dashboard import live

PAGE_ID = re.compile(r"^[a-z0-9]{1,8}-\d+$")  # link.js: "<tab tag>-<n>"; the test client's are "c<n>"
QUERIES = {"moves", "resend", "status", "entropy"}


@pytest.mark.parametrize(("ruleset", "seed"), [("attack", 11), ("mario-kart", 12)])
def test_a_family_round_completes_through_the_page_alone(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, ruleset: str, seed: int
) -> None:
    context = phones.browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True)
    phones.contexts.append(context)
    page = phones.open(dashboard_url, context)
    live(page)
    sent_before = len(table.commands)
    family = FamilyRound(page, table, ruleset, PLAYERS, seed, viewport="360x640")
    result = family.play()
    print(result.summary())

    ended = table.events("round_ended")[-1]
    assert ended["winner"] in PLAYERS and not family.family.hands[ended["winner"]], ended
    commands = [c for c in table.commands[sent_before:] if c["type"] not in QUERIES]
    assert commands, "no command came from the page"
    not_the_page = [c for c in commands if not PAGE_ID.match(str(c.get("id")))]
    assert not_the_page == [], not_the_page
    kinds = {c["type"] for c in commands}
    assert {"new_game", "play", "score"} <= kinds, kinds
    assert ("press" in kinds) if ruleset == "attack" else ("draw" in kinds), kinds
    state: dict[str, Any] = table.state
    held = {p: len(cards) for p, cards in family.family.hands.items()}
    assert held == {p: state["hands"][p] for p in PLAYERS}, (held, state["hands"])
    assert result.scores_sent == result.hand_points  # the counter's sums: what the real hands are worth
    assert result.turns > 4 and result.total > result.turns
    # The whole turn on one screen, through a whole round: no control tapped while playing (the actions, the card
    # picker with what it asks about the card, every question, the catch) was off the 360×640 screen.
    assert result.summary()["scrolls_play"] == 0, sorted(result.scrolled)
