"""The big UNO! button calls UNO for the player who taps it, or asks whom: it never credits a call to someone else
(RULES.md ATK-18: a player left with one card who did not call can be caught until the next player starts).
Real Chromium against ``unolauncher run``."""

from __future__ import annotations

from playwright.sync_api import expect
from rules.rigs import rig

from .conftest import PhoneFactory, TableHandle
from .test_dashboard import live, sent_so_far

PLAYERS = ["mom", "dad", "kid"]
HANDS = {"mom": ["red 1", "red 2"], "dad": ["red 3", "blue 4"], "kid": ["green 1", "green 2", "green 3", "blue 7"]}


def test_uno_asks_whom_while_someone_can_be_caught_and_never_credits_the_caught_player(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    # ATK-18: mom goes to one card without calling; it is dad's turn and he holds two cards.
    assert table.command(rig("attack", HANDS, "red 5", players=PLAYERS, dealer="kid"))["ok"]
    assert table.command({"type": "play", "player": "mom", "card": "red 1"})["ok"]
    assert table.state["uno_exposed"] == "mom" and table.state["current"] == "dad"
    page = phones.open(dashboard_url)
    live(page)
    sent = len(table.commands)
    uno = page.locator("#btn-uno")
    expect(uno).to_have_text("UNO!…")  # no one-tap name: it will ask
    uno.click()
    sheet = page.locator("#seat-sheet")
    expect(sheet).to_be_visible()
    expect(sheet.locator("#seat-title")).to_have_text("Who calls UNO?")
    assert not [c for c in sent_so_far(page, table)[sent:] if c["type"] == "uno"]  # the tap alone sent nothing
    # dad calls his own UNO: mom stays catchable.
    sheet.locator("#seat-actions > .chips:not(.catchers) .chip", has_text="dad").click()
    expect(sheet).to_be_hidden()
    expect(page.locator('.seat[data-player="mom"] .uno-flag.warn')).to_be_visible()
    # What the page sent, as the table heard it (mom's flag was already up: it shows nothing about the tap).
    calls = [c for c in sent_so_far(page, table)[sent:] if c["type"] == "uno"]
    assert [c["player"] for c in calls] == ["dad"], calls
    # The same button then lets kid catch mom (she never called).
    uno.click()
    expect(sheet).to_be_visible()
    catch = sheet.locator(".catchers .chip", has_text="kid")
    expect(catch).to_be_enabled()
    catch.click()
    expect(sheet).to_be_hidden()
    expect(page.locator("#owed")).to_contain_text("mom")
    heard = sent_so_far(page, table)[sent:]
    catches = [c for c in heard if c["type"] == "catch"]
    assert [(c["player"], c["target"]) for c in catches] == [("kid", "mom")], catches
    assert not [c for c in heard if c["type"] == "uno" and c["player"] == "mom"]
    phones.shot(page, "uno-asks-whom")


def test_uno_is_one_tap_and_names_the_player_when_only_one_may_call(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    hands = {**HANDS, "dad": ["red 3", "blue 4", "blue 5"]}  # only mom holds two cards; nobody can be caught
    assert table.command(rig("attack", hands, "red 5", players=PLAYERS, dealer="kid"))["ok"]
    page = phones.open(dashboard_url)
    live(page)
    uno = page.locator("#btn-uno")
    expect(uno).to_have_text("UNO! mom")
    expect(uno).to_be_enabled()
    sent = len(table.commands)
    uno.click()
    expect(page.locator("#seat-sheet")).to_be_hidden()
    expect(page.locator("#mini-feed")).to_contain_text("mom called UNO")
    assert [c["player"] for c in sent_so_far(page, table)[sent:] if c["type"] == "uno"] == ["mom"]
