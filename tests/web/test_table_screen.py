"""The table screen says what the table must do: HIT off with the reason (between rounds, during scoring, when
nobody may hit), the launcher empty with its reload there (RULES.md ATK-21), big short callouts for what a card did
(ATK-07, MK-06, MK-10), an undone hit asks for its cards back, Setup offers no seed to a table that refuses one, and
refusals carry no configuration keys or rule codes. Real Chromium against ``unolauncher run``."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from .conftest import PhoneFactory, TableHandle
from .games import run, table_game
from .test_dashboard import live, sent_so_far

PLAYERS = ["ann", "bob", "cy"]


def counted(table: TableHandle, ruleset: str, hands: dict[str, int]) -> None:
    run(table, table_game(PLAYERS, ruleset, dealer="cy", hands=hands))


def test_hit_is_off_with_the_reason_between_rounds_during_scoring_and_in_a_chain(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    counted(table, "attack", {"ann": 2, "bob": 7, "cy": 7})
    page = phones.open(dashboard_url)
    live(page)
    press, why = page.locator("#press"), page.locator("#press-who")
    expect(press).to_be_enabled()
    expect(why).to_have_text("for ann")  # ATK-05: ann may hit instead of playing
    run(table, {"type": "uno", "player": "ann"})
    run(table, {"type": "play", "player": "ann", "card": "red skip"})  # ATK-08: a chain, nobody may hit
    expect(press).to_be_disabled()
    expect(why).to_have_text("ann plays again or passes")
    run(table, {"type": "play", "player": "ann", "card": "red 3"})  # out: the round is scored next
    expect(press).to_be_disabled()
    expect(why).to_have_text("round over — enter the scores")
    run(table, {"type": "score", "hands": {"bob": 10, "cy": 20}})
    expect(press).to_be_disabled()
    expect(why).to_have_text("between rounds — deal the next round")


def test_an_empty_launcher_is_shown_on_the_table_with_its_reload(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    counted(table, "attack", {"ann": 7, "bob": 7, "cy": 7})
    page = phones.open(dashboard_url)
    live(page)
    run(table, {"type": "play", "player": "ann", "card": "red 7"})
    run(table, {"type": "hit", "player": "bob", "cards": 112})  # ATK-21: the launcher ran dry
    prompt = page.locator("#pending-box[data-kind=reload]")
    expect(prompt).to_contain_text("The launcher is empty")
    expect(page.locator("#press")).to_be_disabled()
    expect(page.locator("#press-who")).to_have_text("launcher empty — reload it first")
    page.click("[data-tab=launcher]")
    expect(page.locator("#launcher .mood")).to_contain_text("EMPTY")
    page.click("[data-tab=table]")
    prompt.locator("button", has_text="Launcher reloaded").click()
    expect(page.locator("#pending-box")).to_be_hidden()
    expect(page.locator("#press")).to_be_enabled()
    assert [c for c in sent_so_far(page, table) if c["type"] == "reload"]


def test_undoing_a_big_hit_says_to_put_the_cards_back(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    counted(table, "attack", {"ann": 7, "bob": 7, "cy": 7})
    page = phones.open(dashboard_url)
    live(page)
    run(table, {"type": "hit", "player": "ann", "cards": 7})
    expect(page.locator("#callout")).to_contain_text("ann +7")
    run(table, {"type": "undo"})
    expect(page.locator("#callout")).to_contain_text("put the 7 cards back in the launcher")
    expect(page.locator("#mini-feed")).to_contain_text("put the 7 cards back in the launcher")


def test_effects_get_big_short_callouts(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    counted(table, "mario-kart", {"ann": 7, "bob": 7, "cy": 7})
    page = phones.open(dashboard_url)
    live(page)
    callout = page.locator("#callout")
    run(table, {"type": "play", "player": "ann", "card": "red skip"})
    expect(callout).to_contain_text("bob skipped!")
    run(table, {"type": "play", "player": "cy", "card": "red draw-2"})  # MK-06
    expect(callout).to_contain_text("ann +2")
    run(table, {"type": "play", "player": "bob", "card": "wild item-box", "turned": "green 3"})  # MK-10
    expect(callout).to_contain_text("Green Shell!")
    expect(page.locator("#pending-box")).to_contain_text("Green Shell: bob chooses who draws 1")
    run(table, {"type": "choose", "player": "bob", "target": "cy"})
    expect(callout).to_contain_text("Green Shell → cy draws 1")
    phones.shot(page, "callout-green-shell")


def test_setup_offers_a_seed_only_to_a_table_that_takes_one_and_refusals_are_in_plain_words(
    phones: PhoneFactory, dashboard_url: str
) -> None:
    page = phones.open(dashboard_url)  # the test daemon takes rigged games (allow_rigged)
    live(page)
    expect(page.locator("#setup-seed")).to_be_attached()
    page.click("[data-tab=setup]")
    expect(page.locator("input[name=seed]")).to_be_visible()

    def refuse_rigging(route: Any) -> None:
        config = json.loads(route.fetch().text())
        route.fulfill(json={**config, "allow_rigged": False})

    context = phones.browser.new_context(viewport={"width": 360, "height": 640})
    phones.contexts.append(context)
    context.route("**/config.json", refuse_rigging)
    other = phones.open(dashboard_url, context)
    live(other)
    other.click("[data-tab=setup]")
    expect(other.locator("input[name=seed]")).to_be_hidden()
    refusals = [
        {"code": "option_off", "message": "The suggestion penalty is off in this game (option suggestion_penalty)."},
        {
            "code": "rigged_not_allowed",
            "message": "new_game may not carry seed (the table's [launcher] allow_rigged setting is off).",
        },
        {"code": "x", "message": "ATK-08: after a Skip, play another matching card or pass."},
    ]
    plain = other.evaluate(
        """async (refusals) => {
             const { plainRefusal } = await import("./js/screen.js");
             return refusals.map(plainRefusal);
           }""",
        refusals,
    )
    assert plain == [
        "The suggestion penalty is off in this game.",
        "This table does not take a chosen seed or deal: it shuffles and draws its own.",
        "after a Skip, play another matching card or pass.",
    ]


def test_one_commands_callouts_stand_together_however_late_the_second_arrives(
    phones: PhoneFactory, dashboard_url: str
) -> None:
    """A Draw Two's "+2" and "skipped!" (one command: the same journal ``ts``) both show even when the page handles
    them 1 s apart (a busy phone; the "+2" was once replaced by the "skipped!"); the next command's replaces them."""
    page = phones.open(dashboard_url)
    live(page)
    shown = page.evaluate(
        """async () => {
             const { showCallout } = await import("./js/screen.js");
             const node = document.createElement("div");
             node.hidden = true;
             const realNow = Date.now;
             let now = realNow();
             Date.now = () => now;
             try {
               showCallout(node, "ann +2", 12.5);
               now += 1000;
               showCallout(node, "ann skipped!", 12.5);
               const together = node.textContent;
               now += 100;
               showCallout(node, "bob +4", 13.25);
               return [together, node.textContent];
             } finally {
               Date.now = realNow;
             }
           }"""
    )
    assert shown == ["ann +2ann skipped!", "bob +4"]
