"""The phone dashboard end to end: real Chromium at a phone viewport, served by ``unolauncher run`` (virtual launcher,
embedded broker).

Every test starts its own game; screenshots land in ``test-artifacts/dashboard-*.png``.
"""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import expect

from support.net import wait_until
from unolauncher.rules.referee import Referee

from .conftest import GameFactory, PhoneFactory, TableHandle

HANDS = {
    "ann": ["red 9", "blue 3", "green 4", "yellow 8", "red hit-2", "wild", "blue skip"],
    "bob": ["red 2", "green 7", "yellow 1", "blue 6", "green skip", "yellow reverse", "wild hit-4"],
    "cy": ["red 7", "blue 9", "green 1", "yellow 5", "green discard-all", "blue 2", "yellow 6"],
}
PLAYERS = ["ann", "bob", "cy"]


def seat(page: Any, player: str) -> Any:
    return page.locator(f'.seat[data-player="{player}"]')


def connected(page: Any) -> None:
    """The page's link to the broker is up (whether or not a table answers there)."""
    expect(page.locator("#conn")).to_have_attribute("data-state", "online", timeout=10_000)


def live(page: Any) -> None:
    """The page is connected and has taken the table's state it starts from: what the table does next is news to it
    (a callout, a spoken line, an unread badge). Waiting for "online" alone let a test's next command race the
    retained state: the page then took the command's own state as its starting point, and its events as history."""
    connected(page)
    expect(page.locator("body")).to_have_attribute("data-live-from", re.compile(r"^\d+$"), timeout=15_000)


def pumped_until(page: Any, predicate: Any, timeout: float) -> bool:
    """``wait_until`` that keeps Playwright's event loop turning: with the sync API, a routed WebSocket forwards
    frames only while the test is inside a Playwright call (a plain ``time.sleep`` would stall the link). The 20 ms
    is the poll's interval, not a wait for anything."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        page.wait_for_timeout(20)
    return bool(predicate())


def sent_so_far(page: Any, table: TableHandle) -> list[dict[str, Any]]:
    """Everything the page has sent up to now, as the table heard it: the commands before a marker (a ``status``) the
    page sends now. One connection, one topic, QoS 1: the broker hands them on in order, so a command the page sent
    before the marker is in the list, and one it never sent stays out without waiting for a time to pass."""
    marker = page.evaluate('window.unoDashboard.link.send({ type: "status" })')
    assert marker is not None, "the page could not send (not connected)"
    arrived = pumped_until(page, lambda: marker in [c.get("id") for c in table.commands], 15)
    assert arrived, "the page's marker never reached the table"
    commands = table.commands
    return commands[: [c.get("id") for c in commands].index(marker)]


def press_start(page: Any) -> None:
    """Tap the setup form's Start; when the page asks before ending a game still on (an earlier test's), replace it.
    The page decides from its own state and opens that dialog in the tap's handler, so the page is asked, not the
    test's copy of the state (which can be ahead of the page's)."""
    page.click("#setup-start")
    if page.locator("#confirm-new").is_visible():
        page.click("#confirm-new-yes")


def start_rigged(table: TableHandle, rigged: GameFactory, seed: int = 7) -> None:
    # cy deals, so ann (left of the dealer) plays first (ATK-03).
    reply = table.command(rigged(PLAYERS, HANDS, "red 5", seed=seed, dealer="cy"))
    assert reply["ok"], reply


def seed_where_first_press_fires(rigged: GameFactory) -> int:
    """A game seed whose seeded ejection model ejects cards on press 1 and nothing on press 2 (a mirror referee
    computes what the daemon's virtual launcher will do: same seed, same model)."""
    for seed in range(1, 500):
        mirror = Referee()
        mirror.handle(rigged(PLAYERS, HANDS, "red 5", seed=seed, dealer="cy"))
        first = mirror.handle({"type": "hit", "player": "ann"})[0]["cards"]
        second = mirror.handle({"type": "hit", "player": "bob"})[0]["cards"]
        if first > 0 and second == 0:
            return seed
    raise AssertionError("no seed in 1..499 gives a firing first press")


def test_set_up_a_game_at_phone_viewport(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    page = phones.open(dashboard_url)
    live(page)
    page.click("[data-tab=setup]")
    inputs = page.locator("#setup-players input")
    for i, name in enumerate(["Ana", "Ben", "Cleo"]):
        inputs.nth(i).fill(name)
    page.click("#setup-add")
    page.locator("#setup-players input").nth(3).fill("Dev")
    page.select_option("select[name=ruleset]", "attack")
    page.select_option("select[name=mode]", "full")
    page.select_option("select[name=preset]", "brutal")
    page.select_option("select[name=customizable]", "hit:3")
    page.fill("input[name=seed]", "11")
    phones.shot(page, "setup")
    press_start(page)

    expect(page.locator("#view-table")).to_be_visible()
    expect(page.locator(".seat")).to_have_count(4)
    assert wait_until(lambda: table.state["players"] == ["Ana", "Ben", "Cleo", "Dev"], 5)
    state = table.state
    assert state["players"] == ["Ana", "Ben", "Cleo", "Dev"]
    assert state["mode"] == "full" and state["ruleset"] == "attack"
    new_game = [c for c in sent_so_far(page, table) if c["type"] == "new_game"][-1]
    assert new_game["options"]["ejection_preset"] == "brutal"
    assert new_game["options"]["customizable"]["action"] == "hit"
    assert new_game["options"]["customizable"]["count"] == 3
    assert new_game["seed"] == 11
    # Whoever the referee says plays first is the highlighted seat, and the banner names them.
    first = state["current"]
    expect(page.locator(".seat.current")).to_have_attribute("data-player", first)
    expect(page.locator("#banner")).to_contain_text(first)
    for player, count in state["hands"].items():
        expect(seat(page, player).locator(".hand-count")).to_have_text(str(count))
    expect(page.locator(".top-card")).to_have_attribute("data-card", state["top"])
    phones.shot(page, "new-game")


def test_press_the_virtual_button_and_see_the_hit_and_cards(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged, seed=seed_where_first_press_fires(rigged))
    hits_before = len(table.events("hit"))
    page = phones.open(dashboard_url)
    live(page)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")
    expect(page.locator("#press-who")).to_have_text("for ann")

    page.click("#press")  # ATK-05: ann hits instead of playing; the virtual launcher spins and counts the cards
    assert wait_until(lambda: len(table.events("hit")) > hits_before, 10)
    hit = table.events("hit")[hits_before]
    assert hit["player"] == "ann" and hit["cards"] > 0
    n = hit["cards"]
    expect(page.locator(".hit-flash.fired")).to_have_text(f"+{n}")  # rises from ann's seat for a moment
    expect(page.locator('#feed .feed-item[data-type="hit"]').first).to_contain_text(
        f"ann hit — {n} card{'s' if n != 1 else ''} came out"
    )
    expect(seat(page, "ann").locator(".hand-count")).to_have_text(str(7 + n))
    expect(page.locator(".seat.current")).to_have_attribute("data-player", "bob")  # the hit ended ann's turn
    expect(page.locator("#mini-feed .feed-item").first).to_contain_text("ann hit")  # routine "turn" lines skipped
    phones.shot(page, "after-hit")

    page.click("#press")  # bob: a click, nothing comes out (ATK-06)
    expect(page.locator('#feed .feed-item[data-type="hit"]').first).to_contain_text("bob hit — click")
    expect(seat(page, "bob").locator(".hand-count")).to_have_text("7")
    page.click("[data-tab=launcher]")
    expect(page.locator(f'.bar-col[data-k="{min(n, 8)}"]')).to_have_attribute("data-n", "1")
    expect(page.locator('.bar-col[data-k="0"]')).to_have_attribute("data-n", "1")
    expect(page.locator(".last-hits li").first).to_contain_text("bob")
    expect(page.locator(".mood .tile-value")).to_have_text("Ready")
    expect(page.locator(".tile-value.big-num")).to_have_text(re.compile(r"^~\d+$"))
    phones.shot(page, "launcher")


def test_play_from_the_card_picker_shows_on_a_second_phone(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged)
    phone_a = phones.open(dashboard_url)
    phone_b = phones.open(dashboard_url)
    live(phone_a)
    live(phone_b)
    expect(seat(phone_b, "ann").locator(".hand-count")).to_have_text("7")

    phone_a.click("#btn-play")
    picker = phone_a.locator("#picker")
    expect(picker).to_be_visible()
    expect(phone_a.locator("#picker-player")).to_have_value("ann")  # defaults to whoever is to play
    # Red is in force (starter red 5): ann's red cards are playable, her blue 3 is not (ATK-04), and a blue 5 would
    # match but she holds none (full mode: the referee knows every hand, and the page asks it).
    expect(picker.locator('[data-card="red 9"]')).to_be_enabled()
    picker.locator(".colour-tab.c-blue").click()
    expect(picker.locator('[data-card="blue 3"]')).to_be_disabled()
    expect(picker.locator('[data-card="blue 5"]')).to_be_disabled()
    picker.locator(".colour-tab.c-red").click()
    picker.locator('[data-card="red 9"]').click()
    expect(phone_a.locator("#picker-send")).to_be_enabled()
    phones.shot(phone_a, "picker")
    phone_a.click("#picker-send")
    expect(picker).to_be_hidden()

    # The other phone follows: red 9 on top, ann holds 6, bob is to play.
    expect(phone_b.locator(".top-card")).to_have_attribute("data-card", "red 9")
    expect(seat(phone_b, "ann").locator(".hand-count")).to_have_text("6")
    expect(phone_b.locator(".seat.current")).to_have_attribute("data-player", "bob")
    expect(phone_b.locator('#feed .feed-item[data-type="played"]').first).to_contain_text("ann played Red 9")
    phones.shot(phone_b, "second-phone")

    # A Wild asks for the colour it names before it can be sent.
    phone_a.click("#btn-play")
    picker.locator(".colour-tab.c-wild").click()
    picker.locator('[data-card="wild hit-4"]').click()
    expect(phone_a.locator("#picker-send")).to_be_disabled()
    picker.locator('#picker-wild-colours [data-color="green"]').click()
    phone_a.click("#picker-send")
    expect(picker).to_be_hidden()
    expect(phone_b.locator("#colour-in-play")).to_have_attribute("data-color", "green")
    expect(phone_b.locator(".owed-box[data-player=cy] .owed-num")).to_have_text("4")  # ATK-12: cy hits 4 times
    expect(seat(phone_b, "cy").locator(".seat-owed")).to_have_text("4")
    phones.shot(phone_b, "owed")


def refused_after(table: TableHandle, before: int, kind: str) -> dict[str, Any]:
    """The refusal of the page's ``kind`` command among the replies after the first ``before`` (waits for it). Not
    just the first refusal: the page sends other commands of its own meanwhile (its entropy for a new round, which
    the table may refuse when that round's commitment is gone already, seen under load; moves queries)."""

    def refusal() -> dict[str, Any] | None:
        ids = {c.get("id") for c in table.commands if c.get("type") == kind}
        return next((r for r in table.replies[before:] if r.get("ok") is False and r.get("id") in ids), None)

    assert wait_until(lambda: refusal() is not None, timeout=5), table.replies[before:]
    found = refusal()
    assert found is not None
    return found


def report_a_refused_discard_all(page: Any, table: TableHandle) -> dict[str, Any]:
    """Start a real-cards game where ann holds 2 cards, and report from the picker a Discard All that takes 2 more
    with it: a detail the listed moves do not cover (table mode), which the referee refuses. Returns the refusal."""
    deal = {"dealer": "cy", "hands": {"ann": 2, "bob": 7, "cy": 7}, "starter": "red 5"}
    reply = table.command(
        {"type": "new_game", "ruleset": "attack", "mode": "table", "players": PLAYERS, "seed": 5, "deal": deal}
    )
    assert reply["ok"], reply
    page.click("#btn-play")
    picker = page.locator("#picker")
    picker.locator('[data-card="red discard-all"]').click()
    for face in ("1", "2"):
        picker.locator(f'#picker-discard-faces [data-card="red {face}"]').click()
    before = len(table.replies)
    page.click("#picker-send")
    refusal = refused_after(table, before, "play")
    assert refusal["code"] == "bad_field" and "More cards were discarded" in refusal["message"]
    return refusal


def test_a_refusal_shows_next_to_the_control(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    """The page offers only what the referee lists, but the referee stays the judge: what it refuses all the same
    (a detail the moves do not cover, or a state that changed meanwhile) shows next to the control that sent it."""
    page = phones.open(dashboard_url)
    live(page)
    reply = report_a_refused_discard_all(page, table)
    picker = page.locator("#picker")
    expect(picker.locator(".refusal")).to_have_text(reply["message"])
    expect(picker).to_be_visible()  # the picker stays open so the table can correct the report
    phones.shot(page, "refusal")
    assert table.state["hands"]["ann"] == 2  # a refusal changes nothing
    page.keyboard.press("Escape")
    expect(picker).to_be_hidden()

    # A table-view control's refusal appears under the table's controls: Undo once the table has undone it all.
    assert table.command({"type": "undo"})["ok"]  # takes back the new game, and its history with it
    expect(page.locator("#btn-undo")).to_be_enabled()
    before = len(table.replies)
    page.click("#btn-undo")
    reply = refused_after(table, before, "undo")
    assert reply["code"] == "nothing_to_undo"
    expect(page.locator(".actions > .refusal")).to_have_text(reply["message"])


def test_undo_takes_back_the_last_play_on_every_phone(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged)
    table.command({"type": "play", "player": "ann", "card": "red 9"})
    page = phones.open(dashboard_url)
    live(page)
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 9")
    page.click("#btn-undo")
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 5")
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")
    expect(page.locator('#feed .feed-item[data-type="undone"]').first).to_contain_text("Undone: play Red 9")


def test_garbage_on_the_topics_changes_nothing_on_the_page(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged)
    page = phones.open(dashboard_url)
    live(page)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")
    client = table.client.client
    for topic, payload in (
        ("state", b"not json"),
        ("state", b"[1, 2]"),
        ("state", b'{"players": "ann"}'),
        ("state", b"\xff\xfe"),
        ("events", b"{"),
        ("events", b'{"seq": 99999}'),
        ("events", b"42"),
        ("reply", b'{"id": null}'),
        ("launcher", b"[]"),
        ("status", b""),
    ):
        client.publish(f"{table.base}/{topic}", payload, qos=1).wait_for_publish(5)
    # Still the same game, still commanding it (a JS exception would also fail the test through the fixture).
    page.click("#btn-play")
    page.locator('#picker [data-card="red 9"]').click()
    page.click("#picker-send")
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 9")
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("6")
    expect(page.locator(".seat")).to_have_count(3)
    expect(page.locator("#link-notice")).to_be_hidden()  # an empty status is not "offline"
    page.click("[data-tab=launcher]")
    expect(page.locator(".mood .tile-label")).to_have_text("virtual launcher")  # the last good launcher status


def test_ten_players_fit_around_the_table_without_overlap(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    names = ["Alexandra", "Ben", "Cleo", "Dev", "Eli", "Fatima", "Gus", "Hiro", "Ines", "Jo"]  # 10 = the maximum
    assert table.command({"type": "new_game", "ruleset": "attack", "mode": "table", "players": names, "seed": 4})["ok"]
    page = phones.open(dashboard_url)
    live(page)
    expect(page.locator(".seat")).to_have_count(10)
    for name in names:
        expect(page.locator(f'.seat[data-player="{name}"]')).to_be_visible()
    # Measure every seat in one evaluation inside the page: a state message may re-render the seats between two
    # separate bounding_box() calls (seen under load as a detached seat with no box).
    measured: dict[str, dict[str, float]] = page.eval_on_selector_all(
        ".seat",
        """seats => Object.fromEntries(seats.map(seat => {
            const r = seat.getBoundingClientRect();
            return [seat.dataset.player, {x: r.x, y: r.y, width: r.width, height: r.height}];
        }))""",
    )
    boxes = [measured.get(name) for name in names]
    assert all(b is not None and b["width"] > 0 and b["height"] > 0 for b in boxes), measured
    for i, a in enumerate(boxes):
        assert a is not None and a["x"] >= 0 and a["x"] + a["width"] <= 390, (names[i], a)
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            assert b is not None
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, f"seats {names[i]} and {names[j]} overlap"
    phones.shot(page, "ten-players")


def test_virtual_lid_and_load_from_the_launcher_view(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    page = phones.open(dashboard_url)
    live(page)
    page.click("[data-tab=launcher]")
    expect(page.locator("#virtual-controls")).to_be_visible()
    page.click("#btn-lid")
    expect(page.locator(".mood .tile-value")).to_have_text("Lid open")
    expect(page.locator("#btn-lid")).to_have_text("Close the lid")
    phones.shot(page, "lid-open")
    # Opening the lid is a refill: the launcher's belief starts over at its configured magazine size.
    expect(page.locator(".tile-value.big-num")).to_have_text(re.compile(r"^~\d+$"))
    before = len(table.replies)
    page.click("#btn-load")  # cards into the simulated magazine (the launcher itself cannot see them)
    assert wait_until(lambda: any(r.get("message") == "Loaded 40 card(s)." for r in table.replies[before:]), 5)
    page.click("#btn-lid")
    expect(page.locator(".mood .tile-value")).to_have_text("Ready")
    expect(page.locator("#virtual-controls > .refusal")).to_be_empty()
