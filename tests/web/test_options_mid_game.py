"""A page loaded mid-game knows the game's house rules from the state the daemon publishes (public state
``options``), not from the game's ``game_started`` event: here that event is older than everything the page fetches
on a first visit, and the seven_zero picker still asks whom a 7 swaps with. Real Chromium, real daemon."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect
from rules.rigs import rig

from support.net import wait_until

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue, wait_for_state
from .test_dashboard import live

PLAYERS = ["ann", "bob", "cy"]
BACKFILL = 60  # main.js: the events a page asks for on a first visit
TURNS = 21  # draw + pass: 4 events a turn, and a multiple of 3 turns brings it back to ann


def test_a_page_opened_long_after_game_started_still_asks_a_sevens_target(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    hands = {"ann": ["red 7", "blue 9", "green 2"], "bob": ["green 3", "green 4"], "cy": ["yellow 1", "yellow 2"]}
    game: dict[str, Any] = rig("classic", hands, "red 5", players=PLAYERS, options={"seven_zero": True})
    assert table.command(game)["ok"]
    assert wait_until(lambda: table.state.get("options") == {"seven_zero": True}, 10)
    started = table.events("game_started")[-1]["seq"]
    for _ in range(TURNS):  # everyone draws and passes: the game goes on, the 7 stays in ann's hand
        player = table.state["current"]
        assert table.command({"type": "draw", "player": player})["ok"]
        assert table.command({"type": "pass", "player": player})["ok"]
    assert wait_until(lambda: table.state["current"] == "ann" and table.seq - started > BACKFILL + 10, 10)
    page = phones.open(dashboard_url)  # a new phone: nothing in its storage, only the recent past is fetched
    live(page)
    wait_for_catalogue(page)
    # The table's latest state (a launcher's own events, a dispense's cards, publish no state: the newest event's
    # seq can be past the state's, and a page never gets a state that new; 2 of 10 runs under the hog waited for it).
    wait_for_state(page, table.state["seq"])
    # The precondition: the page never saw this game's game_started (History marks the game it saw start).
    assert page.locator("body").get_attribute("data-game") is None
    before = dict(table.state["hands"])
    page.click("#btn-play")
    picker = page.locator("#picker")
    expect(picker).to_be_visible()
    picker.locator(".colour-tab.c-red").click()
    picker.locator('[data-card="red 7"]').click()
    expect(page.locator("#picker-target")).to_be_visible()  # the 7 names a player: the state said seven_zero
    picker.locator('#picker-targets [data-target="cy"]').click()
    page.click("#picker-send")
    expect(picker).to_be_hidden()
    assert wait_until(lambda: table.events("traded") and table.events("traded")[-1]["target"] == "cy", 10)
    after = {"ann": before["cy"], "bob": before["bob"], "cy": before["ann"] - 1}
    assert wait_until(lambda: table.state["hands"] == after, 10)
