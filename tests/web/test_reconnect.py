"""The page across outages and with credentials: "reconnecting…", resync from retained state + ``seq`` + ``resend``.

Runs ``unolauncher run`` on mosquitto so the test can stop and restart the broker under it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import expect

from support.mosquitto import Mosquitto, add_password
from support.net import free_port, wait_until
from unolauncher.web.server import DashboardServer

from .conftest import PHONE, GameFactory, PhoneFactory, Stack, stack_on_mosquitto
from .test_dashboard import live, seat, start_rigged


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """``unolauncher run`` on mosquitto (which the test may stop and start), the dashboard, a test client."""
    with stack_on_mosquitto(tmp_path_factory.mktemp("reconnect")) as running:
        yield running


def feed_seqs(page: Any) -> list[int]:
    script = "items => items.map(i => Number(i.dataset.seq))"
    return list(page.eval_on_selector_all("#feed .feed-item[data-seq]", script))


def test_broker_restart_shows_reconnecting_and_recovers(
    phones: PhoneFactory, stack: Stack, rigged: GameFactory
) -> None:
    table, broker = stack.table, stack.broker
    assert broker is not None
    start_rigged(table, rigged)
    page = phones.open(stack.url)
    live(page)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")

    phones.allow("WebSocket connection to")  # the browser logs each refused reconnection attempt
    broker.stop()
    expect(page.locator("#conn")).to_have_text("reconnecting…", timeout=15_000)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")  # the last known table stays on screen...
    expect(page.locator("#btn-play")).to_be_disabled()  # ...but nothing can be sent until the link is back
    expect(page.locator("#link-notice")).to_contain_text("Not connected to the table")
    phones.shot(page, "reconnecting")

    # Same ports, no persistence: the retained topics are gone until the daemon reconnects and republishes them.
    broker.start()
    live(page)
    assert table.client.connected.wait(15), "the test client did not reconnect"
    assert wait_until(lambda: stack.daemon.alive() and (table.client.status or "") == "online", 15)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")
    expect(page.locator(".seat.current")).to_have_attribute("data-player", "ann")
    expect(page.locator("#link-notice")).to_be_hidden()
    expect(page.locator("#btn-play")).to_be_enabled()

    # And the page commands the table again: ann plays from the picker, every phone sees it.
    page.click("#btn-play")
    page.locator('#picker [data-card="red 9"]').click()
    page.click("#picker-send")
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 9")
    assert wait_until(lambda: table.state["top"] == "red 9", 5)
    phones.shot(page, "recovered")


def test_phone_away_catches_up_on_missed_events_in_order(
    phones: PhoneFactory, stack: Stack, rigged: GameFactory
) -> None:
    """The phone's Wi-Fi drops while the table plays on: back online, it resyncs from the retained state and asks
    for the events it missed (``resend``); the feed ends up complete, in ``seq`` order, without duplicates."""
    table = stack.table
    start_rigged(table, rigged)
    away = {"down": False}
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        if away["down"]:
            ws.close()  # no network: the connection attempt fails at once
            return
        ws.connect_to_server()
        sockets.append(ws)

    context = phones.browser.new_context(viewport=PHONE, device_scale_factor=2)
    phones.contexts.append(context)
    context.route_web_socket(re.compile(r".*/mqtt$"), route)
    page = phones.open(stack.url, context=context)
    live(page)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")
    seen_before = table.state["seq"]
    expect(page.locator(f'#feed .feed-item[data-seq="{seen_before}"]')).to_have_count(1)  # first-visit backfill

    away["down"] = True
    for ws in sockets:
        ws.close()
    expect(page.locator("#conn")).to_have_text("reconnecting…", timeout=10_000)
    for command in (
        {"type": "play", "player": "ann", "card": "red 9"},
        {"type": "play", "player": "bob", "card": "red 2"},
        {"type": "play", "player": "cy", "card": "red 7"},
    ):
        assert table.command(command)["ok"], command
    last = table.state["seq"]
    assert last > seen_before

    away["down"] = False
    live(page)
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 7")  # the retained state, at once
    expect(seat(page, "cy").locator(".hand-count")).to_have_text("6")
    expect(page.locator(f'#feed .feed-item[data-seq="{last}"]')).to_have_count(1)  # the missed events, re-sent
    seqs = feed_seqs(page)
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == len(set(seqs)), seqs
    assert set(range(1, last + 1)) <= set(seqs)
    expect(page.locator('#feed .feed-item[data-type="played"]').first).to_contain_text("cy played Red 7")
    assert any(c["type"] == "resend" for c in table.commands)
    phones.shot(page, "caught-up")


def test_daemon_restart_shows_offline_then_the_same_game(
    phones: PhoneFactory, stack: Stack, rigged: GameFactory
) -> None:
    table = stack.table
    start_rigged(table, rigged)
    table.command({"type": "play", "player": "ann", "card": "red 9"})
    page = phones.open(stack.url)
    live(page)
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 9")

    assert stack.daemon.stop() == 0  # SIGTERM: the daemon publishes "offline" (retained) on its way out
    notice = page.locator("#link-notice")
    expect(notice).to_contain_text("The table's daemon is offline")
    expect(page.locator("#press")).to_be_disabled()  # a tap now would reach nobody
    expect(page.locator("#btn-undo")).to_be_disabled()
    phones.shot(page, "daemon-offline")
    stack.daemon.start()  # same journal: the game is replayed and its state republished
    expect(notice).to_be_hidden(timeout=15_000)
    expect(page.locator("#press")).to_be_enabled()
    expect(page.locator(".top-card")).to_have_attribute("data-card", "red 9")
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("6")
    page.click("#press")  # bob hits: the restarted daemon takes commands from the page again
    expect(page.locator('#feed .feed-item[data-type="hit"]').first).to_contain_text("bob hit")


@pytest.fixture
def secured_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    passwords = tmp_path / "passwd"
    add_password(passwords, "phone", "s3cret", create=True)
    # "user root": mosquitto started as root otherwise drops to "mosquitto", who cannot read pytest's tmp dirs.
    extra = f"user root\nallow_anonymous false\npassword_file {passwords}"
    with Mosquitto(websockets=True, extra_config=extra) as secured:
        yield secured


def test_credentials_are_asked_once_and_remembered(
    secured_broker: Mosquitto, phones: PhoneFactory, browser: Any
) -> None:
    # secured_broker comes first so that it is torn down last: stopped under a still-open page, the page would log
    # refused reconnections ("WebSocket is already in CLOSING or CLOSED state") and fail the phones check.
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="secured-table")
    publisher.username_pw_set("phone", "s3cret")
    publisher.connect("127.0.0.1", secured_broker.port)
    publisher.loop_start()
    state = {
        "ruleset": "attack",
        "mode": "table",
        "phase": "playing",
        "round": 1,
        "direction": 1,
        "players": ["kim", "lou"],
        "current": "lou",
        "top": "blue 4",
        "color": "blue",
        "hands": {"kim": 6, "lou": 7},
        "owed": [],
        "pending": None,
        "scores": {"kim": 0, "lou": 0},
        "winner": None,
        "seq": 3,
    }
    publisher.publish("unolauncher/locked/state", json.dumps(state), qos=1, retain=True).wait_for_publish(5)
    config = {"mqtt_url": f"ws://{{host}}:{secured_broker.ws_port}/mqtt", "table": "locked"}
    try:
        with DashboardServer("127.0.0.1", 0, config) as server:
            page = phones.open(server.url)
            dialog = page.locator("#settings")
            expect(dialog).to_be_visible(timeout=10_000)
            expect(page.locator("#conn")).to_have_attribute("data-state", "auth")
            expect(page.locator("#settings-reason")).to_contain_text("refused")
            page.fill("#settings input[name=username]", "phone")
            page.fill("#settings input[name=password]", "s3cret")
            phones.shot(page, "credentials")
            page.click("#settings button[value=save]")
            live(page)
            expect(seat(page, "lou").locator(".hand-count")).to_have_text("7")

            # Same phone (same browser storage), new visit: straight in, no question asked.
            again = phones.open(server.url, context=page.context)
            live(again)
            expect(again.locator("#settings")).to_be_hidden()
            expect(seat(again, "kim").locator(".hand-count")).to_have_text("6")
    finally:
        publisher.loop_stop()
        publisher.disconnect()


def test_unreachable_broker_says_so_and_offers_the_address(phones: PhoneFactory) -> None:
    nobody = free_port()  # nothing listens here: a wrong address in the config, or a broker bound to loopback
    phones.allow("WebSocket connection to")
    with DashboardServer("127.0.0.1", 0, {"mqtt_url": f"ws://{{host}}:{nobody}/mqtt", "table": "lost"}) as server:
        page = phones.open(server.url)
        expect(page.locator("#conn")).to_have_text("reconnecting…", timeout=10_000)
        expect(page.locator("#banner")).to_contain_text(
            f"Cannot reach the broker at ws://127.0.0.1:{nobody}/mqtt", timeout=15_000
        )
        page.click("#conn")
        expect(page.locator("#settings input[name=url]")).to_have_value(f"ws://127.0.0.1:{nobody}/mqtt")
        phones.shot(page, "unreachable")
