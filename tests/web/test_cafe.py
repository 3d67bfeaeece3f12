"""The café overview (``cafe.html``): every table on the broker, live, from the tables' retained state and status
(the league view's data). Real Chromium against ``unolauncher run``; a second table is another publisher."""

from __future__ import annotations

import json

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import expect

from .conftest import TABLE, PhoneFactory, TableHandle
from .games import run, table_game


def test_the_cafe_page_lists_every_table_live(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    run(table, table_game(["ann", "bob"], dealer="bob"))
    other = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cafe-second-table")
    other.connect(table.daemon.mqtt_host, table.daemon.mqtt_port)
    other.loop_start()
    try:
        second = {
            "players": ["zoe", "yan"],
            "scores": {"zoe": 120, "yan": 40},
            "round": 3,
            "phase": "playing",
            "current": "yan",
        }
        other.publish("unolauncher/corner/status", "online", qos=1, retain=True).wait_for_publish(5)
        other.publish("unolauncher/corner/state", json.dumps(second), qos=1, retain=True).wait_for_publish(5)
        page = phones.open(dashboard_url + "cafe.html")
        expect(page.locator("#cafe-conn")).to_have_attribute("data-state", "online")
        mine = page.locator(f'.cafe-table[data-table="{TABLE}"]')
        corner = page.locator('.cafe-table[data-table="corner"]')
        expect(mine).to_contain_text("ann to play")
        expect(mine).to_contain_text("online")
        expect(corner).to_contain_text("round 3 · yan to play")
        expect(corner).to_contain_text("zoe leads")
        assert table.command({"type": "play", "player": "ann", "card": "red 7"})["ok"]
        expect(mine).to_contain_text("bob to play")  # live
        other.publish("unolauncher/corner/status", "offline", qos=1, retain=True).wait_for_publish(5)
        expect(corner).to_contain_text("offline")
        phones.shot(page, "cafe")
        assert mine.get_attribute("href") == f"./?table={TABLE}"
    finally:
        for kind in ("status", "state"):  # leave the broker as found
            other.publish(f"unolauncher/corner/{kind}", b"", qos=1, retain=True).wait_for_publish(5)
        other.loop_stop()
        other.disconnect()
