"""The seven_zero house rule (HR-70) on the dashboard, in real Chromium against a real daemon: the setup form's
switch starts a game with the option on, and the card picker asks a 7's target (from the daemon's rule catalogue:
the page has no list of its own), which the referee then swaps."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect
from rules.rigs import rig

from support.net import wait_until

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue, wait_for_state
from .test_at_the_table import start_from_setup
from .test_dashboard import live, press_start

PLAYERS = ["ann", "bob", "cy"]


def test_the_setup_switch_starts_a_seven_zero_game(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    page = phones.open(dashboard_url)
    live(page)
    start_from_setup(page, PLAYERS, "classic", "full")
    page.check("input[name=seven_zero]")
    press_start(page)
    assert wait_until(
        lambda: table.events("game_started") and table.events("game_started")[-1]["options"].get("seven_zero") is True,
        10,
    )


def test_the_picker_asks_a_sevens_target_and_the_hands_swap(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    hands = {"ann": ["red 7", "blue 9", "green 2"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "yellow 2"]}
    game: dict[str, Any] = rig("classic", hands, "red 5", players=PLAYERS, options={"seven_zero": True})
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)
    # The game's house rules come with the state (its `options`), which may arrive after the connection is up: wait
    # for the page to have the new game's state (a tap before would ask no target, and the referee would refuse).
    before = len(table.events("game_started"))
    assert table.command(game)["ok"]
    assert wait_until(lambda: len(table.events("game_started")) > before, 10)  # the table's own copy has it too
    wait_for_state(page, table.events("game_started")[-1]["seq"])
    page.click("#btn-play")
    picker = page.locator("#picker")
    expect(picker).to_be_visible()
    picker.locator(".colour-tab.c-red").click()
    picker.locator('[data-card="red 7"]').click()
    expect(page.locator("#picker-target")).to_be_visible()  # the 7 names a player under seven_zero
    expect(page.locator("#picker-send")).to_be_disabled()
    picker.locator('#picker-targets [data-target="cy"]').click()
    page.click("#picker-send")
    expect(picker).to_be_hidden()
    assert wait_until(lambda: table.events("traded") and table.events("traded")[-1]["target"] == "cy", 10)
    assert wait_until(lambda: table.state["hands"] == {"ann": 2, "bob": 2, "cy": 2}, 10)
