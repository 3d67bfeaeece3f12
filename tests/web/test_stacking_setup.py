"""The stacking house rule (HR-ST) on the dashboard, in real Chromium against a real daemon: the setup form's switches
start a game with the options on (the Wild Draw Four switch only where the deck has one), and a stacked draw played
by tapping shows on the phone: a Draw Two no longer skips the next player, a Draw Two on it passes the sum on, and
the draw takes all of it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect
from rules.rigs import rig

from support.net import wait_until

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue
from .test_dashboard import live

PLAYERS = ["ann", "bob", "cy"]


def test_the_setup_switches_start_a_stacking_game(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    page = phones.open(dashboard_url)
    live(page)
    page.click("[data-tab=setup]")
    inputs = page.locator("#setup-players input")
    for i, name in enumerate(PLAYERS):
        inputs.nth(i).fill(name)
    page.select_option("select[name=mode]", "full")
    page.select_option("select[name=ruleset]", "attack")
    expect(page.locator("input[name=stacking_wd4]")).to_be_hidden()  # UNO Attack has no Wild Draw Four
    page.select_option("select[name=ruleset]", "classic")
    page.check("input[name=stacking]")
    page.check("input[name=stacking_wd4]")
    running = table.state.get("phase") in ("playing", "scoring", "between") and not table.state.get("winner")
    before = len(table.events("game_started"))  # an earlier test's stacking game must not count as this one
    page.click("#setup-start")
    if running:  # an earlier test's game is still on: the page asks before ending it
        page.click("#confirm-new-yes")

    def started() -> bool:
        games = table.events("game_started")
        return len(games) > before and games[-1]["options"].get("stacking") is True

    assert wait_until(started, 10)
    assert table.events("game_started")[-1]["options"].get("stacking_wd4") is True


def play_by_tapping(page: Any, colour: str, card: str) -> None:
    page.click("#btn-play")
    picker = page.locator("#picker")
    expect(picker).to_be_visible()
    picker.locator(f".colour-tab.c-{colour}").click()
    picker.locator(f'[data-card="{card}"]').click()
    page.click("#picker-send")
    expect(picker).to_be_hidden()


def test_a_stacked_draw_played_on_the_phone(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    hands = {
        "ann": ["red draw-2", "red 1", "red 2"],
        "bob": ["blue draw-2", "blue 1", "blue 2"],
        "cy": ["green 1", "green 2", "yellow 3"],
    }
    game: dict[str, Any] = rig("classic", hands, "red 5", players=PLAYERS, options={"stacking": True})
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)
    before = len(table.events("game_started"))
    assert table.command(game)["ok"]
    assert wait_until(lambda: len(table.events("game_started")) > before, 10)
    expect(page.locator("body")).to_have_attribute("data-game", str(table.events("game_started")[-1]["seq"]))
    seat = lambda player: page.locator(f'.seat[data-player="{player}"]')  # noqa: E731

    play_by_tapping(page, "red", "red draw-2")
    # Stacking: bob is not skipped and draws nothing yet; it is his turn to answer
    expect(seat("bob")).to_have_class("seat current")
    expect(seat("bob").locator(".hand-count")).to_have_text("3")
    banner = page.locator("#banner")
    expect(banner).to_have_text("bob: stack a Draw 2 — or draw 2 cards")  # the open stack, from the state's house
    play_by_tapping(page, "blue", "blue draw-2")
    expect(seat("cy")).to_have_class("seat current")
    expect(seat("bob").locator(".hand-count")).to_have_text("2")
    expect(banner).to_have_text("cy: stack a Draw 2 — or draw 4 cards")
    page.click("#btn-draw")  # cy cannot answer: she draws the whole stack and loses her turn
    expect(seat("cy").locator(".hand-count")).to_have_text("7")
    expect(seat("ann")).to_have_class("seat current")
    expect(banner).to_have_text("ann’s turn")  # the stack is closed
    # the feed words the draw (a quiet event: not in the mini-feed)
    expect(page.locator("#feed")).to_contain_text("cy drew 4 cards")
    drew = [e for e in table.events("drew") if e["player"] == "cy"]
    assert drew and drew[-1]["count"] == 4


def test_an_open_hit_stack_is_in_the_banner_above_the_hits_owed(phones: PhoneFactory, dashboard_url: str) -> None:
    """UNO Attack (HR-ST-3): bob owes the stack's hits and may still answer with a Hit 2; the banner says both."""
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)  # the rule's banner templates come with the daemon's rule catalogue
    state = {
        "players": PLAYERS,
        "phase": "playing",
        "current": "bob",
        "owed": [{"player": "bob", "hits": 4}],
        "house": {"stacking": {"kind": "hit-2", "player": "bob", "hits": 4}},
    }
    text = page.evaluate(
        """async (state) => {
             const { renderBanner } = await import("./js/views.js");
             const node = document.createElement("div");
             renderBanner(node, state);
             return [node.textContent, node.className];
           }""",
        state,
    )
    assert text == ["bob: stack a Hit 2 — or hit 4 times", "banner hit"]
