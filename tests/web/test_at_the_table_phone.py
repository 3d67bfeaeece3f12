"""The phone on the table: the screen is kept on during a game (Screen Wake Lock) and off again after it, and a
phone that says whose it is signals that player's turn and their hits (RULES.md ATK-05, ATK-11), once each. Real
Chromium against ``unolauncher run``."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import PhoneFactory, TableHandle
from .test_dashboard import live

PLAYERS = ["ann", "bob", "cy"]


def test_the_screen_stays_on_during_a_game_and_my_turn_and_hits_are_signalled(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    page = phones.open(dashboard_url)
    live(page)
    page.click("[data-tab=setup]")
    assert table.command(
        {
            "type": "new_game",
            "ruleset": "attack",
            "mode": "table",
            "players": PLAYERS,
            "seed": 5,
            "deal": {"dealer": "cy", "starter": "red 5"},
        }
    )["ok"]
    state = page.locator("#this-phone .awake-state")
    expect(state).to_have_text("Screen kept on: held")  # localhost is a secure context: the real Wake Lock API
    page.select_option("#this-phone select[name=player]", "bob")
    page.check("#this-phone input[name=vibrate]")
    assert table.command({"type": "play", "player": "ann", "card": "red hit-2"})["ok"]  # ATK-11: bob must hit twice
    expect(page.locator("#banner")).to_contain_text("bob must hit")
    assert page.evaluate("window.unoDashboard.atTable.alerts") == ["hit"]
    assert table.command({"type": "hit", "player": "bob", "cards": 0})["ok"]
    expect(page.locator("#banner")).to_contain_text("must hit 1 time")
    assert page.evaluate("window.unoDashboard.atTable.alerts") == ["hit", "hit"]  # each owed hit
    assert table.command({"type": "hit", "player": "bob", "cards": 0})["ok"]
    assert table.command({"type": "play", "player": "cy", "card": "red 7"})["ok"]
    assert table.command({"type": "play", "player": "ann", "card": "red 8"})["ok"]  # bob's turn now
    expect(page.locator("#banner")).to_contain_text("bob’s turn")
    assert page.evaluate("window.unoDashboard.atTable.alerts") == ["hit", "hit", "turn"]
