"""The dashboard greys out what the referee would refuse, from the referee's own answer (the daemon's ``moves``
query), not from rules written again in JavaScript: cards in the picker, and the Play / Draw / Pass buttons, both
ways when the state changes."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect
from rules.rigs import rig

from support.net import wait_until

from .conftest import PhoneFactory, TableHandle
from .test_dashboard import live, sent_so_far

# Classic, two players (a Skip gives the turn straight back, so the state changes while ann keeps the turn).
HANDS = {
    "ann": ["red skip", "green 5", "blue skip", "yellow 9", "green 8"],
    "bob": ["blue 2", "yellow 7", "green 1", "red 3", "blue 9"],
}


def face(picker: Any, card: str) -> Any:
    """The card's face in the picker, on its colour's tab."""
    colour = card.split(" ")[0]
    picker.locator(f".colour-tab.c-{colour}").click()
    return picker.locator(f'#picker-faces [data-card="{card}"]')


def test_cards_and_buttons_follow_the_referees_legal_moves(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    game = rig("classic", HANDS, "red 5", stock_top=["blue 4"], players=["ann", "bob"], dealer="bob")
    assert table.command(game)["ok"]
    page = phones.open(dashboard_url)
    live(page)
    expect(page.locator("#btn-draw")).to_be_visible()
    # ann's turn on a red 5: she may play or draw, not pass before drawing (MK-05).
    expect(page.locator("#btn-draw")).to_be_enabled()
    expect(page.locator("#btn-pass")).to_be_disabled()
    expect(page.locator("#btn-play")).to_be_enabled()

    page.click("#btn-play")
    picker = page.locator("#picker")
    expect(picker).to_be_visible()
    expect(face(picker, "green 5")).to_be_enabled()  # matches by number
    expect(face(picker, "red skip")).to_be_enabled()  # matches by colour
    expect(face(picker, "blue skip")).to_be_disabled()  # matches neither
    expect(face(picker, "yellow 9")).to_be_disabled()
    # A greyed card cannot be chosen, so nothing can be sent with it.
    before = len(table.commands)
    face(picker, "yellow 9").click(force=True)
    expect(page.locator("#picker-preview")).to_have_text("Pick a card")
    expect(page.locator("#picker-send")).to_be_disabled()
    face(picker, "green 5").click()
    expect(page.locator("#picker-send")).to_be_enabled()
    # The page asked the referee (the daemon's moves query), and the picker sent nothing. The page also sends on its
    # own timer, whatever the picker does: the catch-up of the recent past (``resend``, 400 ms after its first
    # state) and its entropy for an open round that catch-up shows — with replies as quick as they now are, the
    # picker's steps can be over before that timer fires, so those two are told apart by type, not by time.
    asked = sent_so_far(page, table)
    assert {"type": "moves", "player": "ann"} in [{k: v for k, v in c.items() if k != "id"} for c in asked]
    own_timer = {"moves", "resend", "entropy"}
    assert [c for c in asked[before:] if c.get("type") not in own_timer] == []

    # The state changes while the picker is open (another phone reports ann's red skip: bob is skipped, ann plays
    # again on it): the green 5 she had chosen no longer matches, the blue skip now does.
    assert table.command({"type": "play", "player": "ann", "card": "red skip"})["ok"]
    expect(page.locator("#picker-send")).to_be_disabled()
    expect(face(picker, "green 5")).to_be_disabled()
    expect(face(picker, "blue skip")).to_be_enabled()
    face(picker, "blue skip").click()
    expect(page.locator("#picker-send")).to_be_enabled()
    page.click("#picker-send")
    expect(picker).to_be_hidden()
    assert wait_until(lambda: table.state["top"] == "blue skip", 5)

    # The buttons follow the same way: once ann has drawn (a playable blue 4), Pass is on and Draw is off.
    expect(page.locator("#btn-draw")).to_be_enabled()
    expect(page.locator("#btn-pass")).to_be_disabled()
    assert table.command({"type": "draw", "player": "ann"})["ok"]
    expect(page.locator("#btn-pass")).to_be_enabled()
    expect(page.locator("#btn-draw")).to_be_disabled()
    page.click("#btn-play")
    expect(face(picker, "blue 4")).to_be_enabled()  # after a draw only the drawn card (MK-05)
    expect(face(picker, "green 8")).to_be_disabled()
    page.keyboard.press("Escape")
    page.click("#btn-pass")
    assert wait_until(lambda: table.state["current"] == "bob", 5)
    phones.shot(page, "legal-moves")


def test_the_picker_follows_the_player_it_reports_for(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    """Choosing another player in the picker asks the referee about them: not their turn, nothing to play."""
    game = rig("classic", HANDS, "red 5", players=["ann", "bob"], dealer="bob")
    assert table.command(game)["ok"]
    page = phones.open(dashboard_url)
    live(page)
    page.click("#btn-play")
    picker = page.locator("#picker")
    expect(face(picker, "red skip")).to_be_enabled()
    page.select_option("#picker-player", "bob")
    expect(face(picker, "red 3")).to_be_disabled()  # bob's red 3 would match, but it is ann's turn
    expect(face(picker, "red skip")).to_be_disabled()
    page.select_option("#picker-player", "ann")
    expect(face(picker, "red skip")).to_be_enabled()


def test_uno_and_catch_buttons_follow_the_referee(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    """The seat sheet's UNO call and catches, and the big UNO button, are on exactly when the referee lists them."""
    hands = {"ann": ["red 1", "red 2"], "bob": HANDS["bob"]}
    assert table.command(rig("classic", hands, "red 5", players=["ann", "bob"], dealer="bob"))["ok"]
    page = phones.open(dashboard_url)
    live(page)
    page.locator('.seat[data-player="ann"]').click()
    sheet = page.locator("#seat-sheet")
    expect(sheet).to_be_visible()
    calls = sheet.locator("button", has_text="ann calls UNO")
    caught_by_bob = sheet.locator("#seat-actions .chip", has_text="bob")
    expect(calls).to_be_enabled()  # two cards, UNO not called yet
    expect(caught_by_bob).to_be_disabled()  # nobody can catch ann before she is down to one card uncalled

    # ann plays her second-to-last card without calling UNO (another phone reports it): now bob may catch her.
    assert table.command({"type": "play", "player": "ann", "card": "red 1"})["ok"]
    expect(caught_by_bob).to_be_enabled()
    expect(calls).to_be_enabled()
    page.keyboard.press("Escape")
    expect(page.locator("#btn-uno")).to_be_enabled()  # ann is the one with one card: the button calls it for her

    # ann calls it: nothing left to call, nobody to catch.
    assert table.command({"type": "uno", "player": "ann"})["ok"]
    expect(page.locator("#btn-uno")).to_be_disabled()
    page.locator('.seat[data-player="ann"]').click()
    expect(calls).to_be_disabled()
    expect(caught_by_bob).to_be_disabled()
    page.keyboard.press("Escape")
    page.locator('.seat[data-player="bob"]').click()
    expect(sheet.locator("button", has_text="bob calls UNO")).to_be_disabled()  # five cards
