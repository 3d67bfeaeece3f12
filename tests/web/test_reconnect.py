"""The page across broker outages and with credentials: "reconnecting…", resync from retained state + seq."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import expect

from support.mosquitto import Mosquitto
from unolauncher.web.server import DashboardServer

from .conftest import GameFactory, PhoneFactory
from .standin import StandInTable
from .test_dashboard import PLAYERS, live, seat, start_rigged


def test_broker_restart_shows_reconnecting_and_recovers(
    phones: PhoneFactory, broker: Mosquitto, dashboard: DashboardServer, table: StandInTable, rigged: GameFactory
) -> None:
    start_rigged(table, rigged, script=[2, 1, 0, 0])
    page = phones.open(dashboard.url)
    live(page)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("7")

    phones.allow("WebSocket connection to")  # the browser logs each refused reconnection attempt
    broker.stop()
    expect(page.locator("#conn")).to_have_text("reconnecting…", timeout=15_000)
    expect(page.locator("#btn-play")).to_be_enabled()  # the last known table stays on screen
    phones.shot(page, "reconnecting")
    # While the broker is away the table goes on (a press queued in the daemon, the referee answers at once):
    # these events are published when the daemon reconnects, possibly before the page does.
    table.command({"type": "hit", "player": "ann"})  # 2 cards
    table.command({"type": "hit", "player": "bob"})  # 1 card
    missed_upto = table.seq

    broker.start()  # same ports, no persistence: the retained topics are gone until the daemon republishes
    live(page)
    expect(seat(page, "ann").locator(".hand-count")).to_have_text("9")
    expect(seat(page, "bob").locator(".hand-count")).to_have_text("8")
    expect(page.locator(".seat.current")).to_have_attribute("data-player", "cy")
    # Nothing is missing from the feed: every seq up to the table's is there once, in order.
    feed_seqs = lambda: page.eval_on_selector_all(  # noqa: E731
        "#feed .feed-item[data-seq]", "items => items.map(i => Number(i.dataset.seq))"
    )
    expect(page.locator(f'#feed .feed-item[data-seq="{missed_upto}"]')).to_have_count(1)
    seqs = feed_seqs()
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == len(set(seqs))
    assert set(range(1, missed_upto + 1)) <= set(seqs)

    # And the page still commands the table.
    page.click("#press")
    expect(page.locator('#feed .feed-item[data-type="hit"]').first).to_contain_text("cy hit")
    phones.shot(page, "recovered")
    assert table.state["players"] == PLAYERS


@pytest.fixture
def secured_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    passwords = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwords), "phone", "s3cret"], check=True, capture_output=True)
    # "user root": mosquitto started as root otherwise drops to "mosquitto", who cannot read pytest's tmp dirs.
    extra = f"user root\nallow_anonymous false\npassword_file {passwords}"
    with Mosquitto(websockets=True, extra_config=extra) as secured:
        yield secured


def test_credentials_are_asked_once_and_remembered(
    phones: PhoneFactory, secured_broker: Mosquitto, browser: Any
) -> None:
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="secured-table")
    publisher.username_pw_set("phone", "s3cret")
    publisher.connect("127.0.0.1", secured_broker.port)
    publisher.loop_start()
    state = {"ruleset": "attack", "mode": "table", "phase": "playing", "round": 1, "direction": 1,
             "players": ["kim", "lou"], "current": "lou", "top": "blue 4", "color": "blue",
             "hands": {"kim": 6, "lou": 7}, "owed": [], "pending": None, "scores": {"kim": 0, "lou": 0},
             "winner": None, "seq": 3}
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
