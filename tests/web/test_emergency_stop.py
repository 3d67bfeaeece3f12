"""The dashboard's emergency stop (issue 12): STOP in one tap, "Launcher stopped" on every phone while the daemon's
retained ``launcher`` status says ``enabled: false`` (whoever stopped it), HIT off meanwhile, Enable asks first.

Runs ``unolauncher run`` (virtual launcher) on a mosquitto of its own, so the stop state this module sets never
reaches the other modules' shared daemon, and so the daemon can be frozen while the broker stays up (the refusal
test).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from support.net import wait_until

from .conftest import GameFactory, PhoneFactory, Stack, TableHandle, stack_on_mosquitto
from .test_at_the_table import small_targets
from .test_dashboard import live, sent_so_far, start_rigged

# Exactly what Home Assistant's "Launcher enabled" switch publishes (bus/discovery.py: payload_off / payload_on).
HA_SWITCH_OFF = '{"type": "disable"}'
HA_SWITCH_ON = '{"type": "enable"}'


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with stack_on_mosquitto(tmp_path_factory.mktemp("estop")) as running:
        yield running


@pytest.fixture
def table(stack: Stack) -> TableHandle:
    """The module's table, armed (a test that failed half-way may have left it stopped)."""
    handle = stack.table
    assert wait_until(lambda: launcher(handle) is not None, 10), "no retained launcher status"
    if launcher(handle)["enabled"] is False:
        assert handle.command({"type": "enable", "by": "test"})["ok"]
        assert wait_until(lambda: launcher(handle)["enabled"] is True, 10)
    return handle


def launcher(table: TableHandle) -> Any:
    """The daemon's latest retained ``launcher`` status as the test client received it."""
    return table.client.launcher


def stop_button(page: Any) -> Any:
    return page.get_by_role("button", name="STOP launcher")


def shows_stopped(page: Any) -> None:
    expect(page.locator("#estop-stopped")).to_be_visible()
    expect(page.locator("#estop-stopped")).to_contain_text("Launcher stopped")
    expect(stop_button(page)).to_be_hidden()
    expect(page.get_by_role("button", name="Enable launcher")).to_be_enabled()
    expect(page.locator("#press")).to_be_disabled()


def shows_armed(page: Any) -> None:
    expect(stop_button(page)).to_be_enabled()
    expect(page.locator("#estop-stopped")).to_be_hidden()
    expect(page.locator("#press")).to_be_enabled()


def test_one_tap_on_stop_disables_the_launcher_and_presses_are_refused(
    phones: PhoneFactory, stack: Stack, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged)
    page = phones.open(stack.url)
    live(page)
    shows_armed(page)
    # Big enough to hit without looking, on a phone: full width under the banner, at least 48 px tall.
    box = stop_button(page).bounding_box()
    assert box is not None and box["height"] >= 48 and box["width"] >= 300, box
    expect(stop_button(page)).to_have_accessible_description(
        "Emergency stop: switches the motor off at once and refuses every press until the launcher is enabled again."
    )

    ring = page.locator("#ring").bounding_box()
    before, seen = len(table.commands), table.seq
    stop_button(page).click()  # no question asked: it is a stop
    assert wait_until(lambda: launcher(table)["enabled"] is False, 10), launcher(table)
    sent = [c for c in sent_so_far(page, table)[before:] if c["type"] == "disable"]
    assert len(sent) == 1 and sent[0]["by"] == "dashboard", sent
    expect(page.locator("dialog[open]")).to_have_count(0)
    shows_stopped(page)
    assert page.locator("#ring").bounding_box() == ring, "the table did not move (both states are one row)"
    row = page.locator("#estop-stopped").bounding_box()
    assert row is not None and row["x"] >= 0 and row["x"] + row["width"] <= 390, row  # fits the phone's width
    assert wait_until(lambda: any(e["seq"] > seen for e in table.events("launcher_disabled")), 10)
    assert table.events("launcher_disabled")[-1]["by"] == "dashboard"
    phones.shot(page, "stopped")

    seen = table.seq
    assert table.command({"type": "press"})["ok"]  # the virtual button, pressed by another phone
    assert wait_until(lambda: any(e["seq"] > seen for e in table.events("press_refused")), 10)
    refused = [e for e in table.events("press_refused") if e["seq"] > seen]
    assert [e["reason"] for e in refused] == ["disabled"]
    assert not any(e["seq"] > seen for e in table.events("hit")), "nothing fired"
    expect(page.locator('#feed .feed-item[data-type="press_refused"]').first).to_contain_text(
        "Press refused — the launcher is switched off"
    )
    page.click("[data-tab=launcher]")
    expect(page.locator(".mood .tile-value")).to_have_text("STOPPED — enable it on the Table view")


def test_a_stop_from_home_assistant_reaches_every_dashboard_and_so_does_the_enable(
    phones: PhoneFactory, stack: Stack, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged)
    phone_a, phone_b = phones.open(stack.url), phones.open(stack.url)
    live(phone_a)
    live(phone_b)
    shows_armed(phone_a)
    shows_armed(phone_b)

    before = len(table.commands)
    ha = table.client.client  # another MQTT client on the table's cmd topic, publishing what the HA switch does
    ha.publish(f"{table.base}/cmd", HA_SWITCH_OFF, qos=1).wait_for_publish(5)
    shows_stopped(phone_a)
    shows_stopped(phone_b)
    assert launcher(table)["enabled"] is False

    ha.publish(f"{table.base}/cmd", HA_SWITCH_ON, qos=1).wait_for_publish(5)
    shows_armed(phone_a)
    shows_armed(phone_b)
    sent_so_far(phone_a, table)  # what either page sent is in the test's copy (the HA switch's two came first)
    switched = [c for c in sent_so_far(phone_b, table)[before:] if c["type"] in ("disable", "enable")]
    assert [c["type"] for c in switched] == ["disable", "enable"], "the pages sent no stop or enable of their own"


def test_enable_asks_first_then_re_arms_the_launcher(
    phones: PhoneFactory, stack: Stack, table: TableHandle, rigged: GameFactory
) -> None:
    start_rigged(table, rigged)
    assert table.command({"type": "disable", "by": "test"})["ok"]
    page = phones.open(stack.url)
    live(page)
    shows_stopped(page)  # a page opened while stopped reads it from the retained status
    assert small_targets(page) == [], "the stopped row"
    enable = page.get_by_role("button", name="Enable launcher")
    dialog = page.locator("#confirm-enable")

    enable.click()
    expect(dialog).to_be_visible()
    assert small_targets(page) == [], "the enable question"
    assert in_flight_after_close(page, lambda: dialog.get_by_role("button", name="Keep it stopped").click()) == 0
    shows_stopped(page)

    before = len(table.commands)
    enable.click()
    expect(dialog).to_be_visible()
    phones.shot(page, "confirm-enable")
    dialog.get_by_role("button", name="Enable the launcher").click()
    assert wait_until(lambda: launcher(table)["enabled"] is True, 10), launcher(table)
    sent = [c for c in sent_so_far(page, table)[before:] if c["type"] == "enable"]
    assert len(sent) == 1 and sent[0]["by"] == "dashboard", sent
    shows_armed(page)

    hits = len(table.events("hit"))
    page.click("#press")  # ann hits (ATK-05): the launcher runs again
    assert wait_until(lambda: len(table.events("hit")) > hits, 10)
    assert table.events("hit")[hits]["player"] == "ann"

    # Stopped again: Escape (Android's back gesture) closes the question without an answer, after an "enable".
    assert table.command({"type": "disable", "by": "test"})["ok"]
    shows_stopped(page)
    enable.click()
    expect(dialog).to_be_visible()
    assert in_flight_after_close(page, lambda: page.keyboard.press("Escape")) == 0
    shows_stopped(page)


def in_flight_after_close(page: Any, close: Any) -> int:
    """Commands the page has in flight once the enable question was closed by ``close()``. The page sends from its
    own close listener, which runs before this one (registered later): 0 means nothing was sent."""
    page.evaluate(
        """() => { window.afterClose = new Promise((done) => document.getElementById("confirm-enable")
            .addEventListener("close", () => done(window.unoDashboard.pending.size), { once: true })); }"""
    )
    close()
    return int(page.evaluate("window.afterClose"))


def test_a_refused_enable_shows_the_daemons_message_and_the_launcher_stays_stopped(
    phones: PhoneFactory, stack: Stack, table: TableHandle
) -> None:
    """The daemon refuses a dashboard's enable only when it cannot journal it (a failing SD card) or its command
    queue is full; neither can be caused on demand from a browser test.
    Here the daemon is frozen (SIGSTOP; the broker stays up) and the test answers the page's command with a refusal
    in the daemon's words; the daemon, thawed, then enables for real and the page follows its status."""
    assert table.command({"type": "disable", "by": "test"})["ok"]
    page = phones.open(stack.url)
    live(page)
    shows_stopped(page)
    process = stack.daemon.process
    assert process is not None
    before = len(table.commands)
    # Frozen, the daemon is silent too: after 2.5 s without its `alive` the page rightly sends nothing (freshness.js),
    # which a slow click once ran into under load. The test stands in for its heartbeat, as it does for its reply.
    beating = threading.Event()

    def heartbeat() -> None:
        while not beating.wait(0.5):
            beat = {"t": round(time.time() * 1000), "seq": table.state["seq"]}
            table.client.client.publish(f"{table.base}/alive", json.dumps(beat), qos=0)

    standin = threading.Thread(target=heartbeat, name="standin-alive", daemon=True)
    os.kill(process.pid, signal.SIGSTOP)
    standin.start()
    try:
        page.get_by_role("button", name="Enable launcher").click()
        page.locator("#confirm-enable").get_by_role("button", name="Enable the launcher").click()
        assert wait_until(lambda: any(c["type"] == "enable" for c in table.commands[before:]), 5)
        command = next(c for c in table.commands[before:] if c["type"] == "enable")
        message = "The launcher is still disabled: this could not be recorded (disk I/O error)."
        refusal = {"id": command["id"], "ok": False, "code": "journal_error", "message": message}
        table.client.client.publish(f"{table.base}/reply", json.dumps(refusal), qos=1).wait_for_publish(5)
        expect(page.locator("#estop > .refusal")).to_have_text(message)
        expect(page.get_by_role("alert").filter(has_text=message)).to_be_visible()
        shows_stopped(page)  # a reply is not the launcher's state: still stopped
        phones.shot(page, "enable-refused")
    finally:
        beating.set()
        standin.join(5)
        os.kill(process.pid, signal.SIGCONT)
    # Thawed, the daemon takes the queued enable: the page follows the retained status, and the refusal (about the
    # stopped launcher) goes with it.
    assert wait_until(lambda: launcher(table)["enabled"] is True, 10), launcher(table)
    shows_armed(page)
    expect(page.locator("#estop > .refusal")).to_be_empty()
