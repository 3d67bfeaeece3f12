"""A real-cards (``table`` mode) round reported from the phone: UNO catch, hits owed, round scores, game over."""

from __future__ import annotations

from playwright.sync_api import expect

from support.net import wait_until

from .conftest import PhoneFactory, TableHandle
from .test_dashboard import live, seat, sent_so_far


def test_table_mode_round_catch_and_scores(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    reply = table.command(
        {
            "type": "new_game",
            "ruleset": "attack",
            "mode": "table",
            "players": ["ann", "bob", "cy"],
            "seed": 5,
            "options": {"target_score": 50},
            "deal": {"dealer": "cy", "hands": {"ann": 2, "bob": 7, "cy": 7}, "starter": "red 5"},
        }
    )
    assert reply["ok"], reply
    page = phones.open(dashboard_url)
    live(page)

    # ann plays her second-to-last card and forgets UNO: her seat warns (ATK-18).
    page.click("#btn-play")
    page.locator('#picker [data-card="red 9"]').click()
    page.click("#picker-send")
    expect(seat(page, "ann").locator(".uno-flag.warn")).to_have_text("UNO?")
    expect(page.locator("#pending-box")).to_have_attribute("data-kind", "uno")
    phones.shot(page, "uno-exposed")

    # bob catches her (the prompt opens ann's seat sheet): ann owes 2 hits, shown as big numbers.
    page.locator("#pending-box button", has_text="Catch ann").click()
    sheet = page.locator("#seat-sheet")
    expect(sheet).to_be_visible()
    sheet.locator(".chip", has_text="bob").click()
    expect(sheet).to_be_hidden()
    expect(page.locator(".owed-box[data-player=ann] .owed-num")).to_have_text("2")
    expect(page.locator("#banner")).to_contain_text("ann must hit 2 times")
    # This game's catch: an earlier test's game on the same daemon may have left a "caught" line in the feed.
    page.wait_for_function(
        """([start, text]) => [...document.querySelectorAll('#feed .feed-item[data-type="caught"]')]
            .some((item) => Number(item.dataset.seq) > start && item.textContent.includes(text))""",
        arg=[reply["seq"], "bob caught ann"],
    )

    # The table reports the rest of the round: two empty hits, bob and cy play, ann goes out on a red 4.
    for command in (
        {"type": "hit", "player": "ann", "cards": 0},
        {"type": "hit", "player": "ann", "cards": 0},
        {"type": "play", "player": "bob", "card": "red 2"},
        {"type": "play", "player": "cy", "card": "red 3"},
        {"type": "play", "player": "ann", "card": "red 4"},
    ):
        assert table.command(command)["ok"], command
    expect(page.locator("#banner")).to_contain_text("ann went out")
    prompt = page.locator("#pending-box")
    expect(prompt).to_have_attribute("data-kind", "score")
    prompt.locator("button", has_text="Enter scores").click()

    form = page.locator("#score-form")
    expect(form).to_be_visible()
    form.locator("input[name=bob]").fill("30")
    form.locator("input[name=cy]").fill("25")
    form.locator("input[name=ann]").fill("0")
    phones.shot(page, "score-form")
    form.locator("button[type=submit]").click()

    # 55 points >= the 50 target: ann wins the game; the score table shows the round and the total.
    expect(page.locator(".score-table tr.winner .total")).to_have_text("55")
    expect(page.locator(".score-table th", has_text="R1")).to_have_count(1)
    expect(form).to_be_hidden()
    assert wait_until(lambda: table.state["winner"] == "ann", 5)
    phones.shot(page, "scores")
    page.click("[data-tab=table]")
    expect(page.locator("#banner")).to_contain_text("ann wins the game")


def test_colour_choice_prompt_on_a_wild_start(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    # Classic UNO, Wild start card: the first player names the colour (MK-03 family) from the prompt.
    reply = table.command(
        {
            "type": "new_game",
            "ruleset": "classic",
            "mode": "table",
            "players": ["ann", "bob"],
            "seed": 2,
            "deal": {"dealer": "bob", "starter": "wild"},
        }
    )
    assert reply["ok"], reply
    page = phones.open(dashboard_url)
    live(page)
    prompt = page.locator("#pending-box")
    expect(prompt).to_have_attribute("data-kind", "color")
    expect(prompt).to_contain_text("ann: choose the colour")
    expect(page.locator("#banner")).to_have_text("ann chooses the colour ↓")  # the question is under the buttons
    expect(page.locator("#press-box")).to_be_hidden()  # no launcher button outside UNO Attack
    prompt.locator('[data-color="yellow"]').click()
    expect(prompt).to_be_hidden()
    expect(page.locator("#colour-in-play")).to_have_attribute("data-color", "yellow")
    assert wait_until(lambda: table.state["color"] == "yellow", 5)


def test_table_mode_discard_all_reports_the_other_cards(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    # ATK-09 in table mode: the referee cannot see the hand, so the picker asks what else went down with it.
    reply = table.command(
        {
            "type": "new_game",
            "ruleset": "attack",
            "mode": "table",
            "players": ["ann", "bob"],
            "seed": 8,
            "deal": {"dealer": "bob", "starter": "red 5"},
        }
    )
    assert reply["ok"], reply
    page = phones.open(dashboard_url)
    live(page)
    page.click("#btn-play")
    picker = page.locator("#picker")
    picker.locator('[data-card="red discard-all"]').click()
    extra = picker.locator("#picker-discarded")
    expect(extra).to_be_visible()
    extra.locator('[data-card="red 3"]').click()
    extra.locator('[data-card="red 3"]').click()
    extra.locator('[data-card="red skip"]').click()
    expect(picker.locator("#picker-discard-list")).to_have_text("Red 3, Red 3, Red Skip")
    phones.shot(page, "discard-all")
    picker.locator("#picker-send").click()
    expect(picker).to_be_hidden()
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("3")  # 7 - the Discard All - 3 others
    expect(page.locator('#feed .feed-item[data-type="played"]').first).to_contain_text("(+3 discarded)")
    played = [c for c in sent_so_far(page, table) if c["type"] == "play"][-1]
    assert played["discarded"] == ["red 3", "red 3", "red skip"]


def test_mario_kart_draw_pass_and_item_box_green_shell(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    reply = table.command(
        {
            "type": "new_game",
            "ruleset": "mario-kart",
            "mode": "table",
            "players": ["ann", "bob", "cy"],
            "seed": 9,
            "deal": {"dealer": "cy", "starter": "blue 4"},
        }
    )
    assert reply["ok"], reply
    page = phones.open(dashboard_url)
    live(page)
    expect(page.locator("#press-box")).to_be_hidden()
    # MK-05: ann cannot (or will not) play: she draws, then passes.
    page.click("#btn-draw")
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("8")
    page.click("#btn-pass")
    expect(page.locator(".seat.current")).to_have_attribute("data-player", "bob")

    # bob plays a Wild Item Box; the table reports the turned card, a green one: Green Shell (MK-10).
    page.click("#btn-play")
    picker = page.locator("#picker")
    picker.locator(".colour-tab.c-wild").click()
    picker.locator('[data-card="wild item-box"]').click()
    expect(picker.locator("#picker-wild")).to_be_hidden()  # the turned card sets the colour, not the player
    expect(picker.locator("#picker-send")).to_be_disabled()
    turned = picker.locator("#picker-turned")
    turned.locator(".colour-tab.c-green").click()  # the turned card is picked like any card, not from a long list
    turned.locator('[data-card="green 7"]').click()
    picker.locator("#picker-send").click()
    expect(picker).to_be_hidden()
    prompt = page.locator("#pending-box")
    expect(prompt).to_have_attribute("data-kind", "target")
    phones.shot(page, "green-shell")
    prompt.locator("button", has_text="cy").click()
    expect(prompt).to_be_hidden()
    expect(seat(page, "cy").locator(".hand-count")).to_have_text("8")  # the shell hit cy: one card drawn
    assert wait_until(lambda: table.state["hands"]["cy"] == 8, 5)
