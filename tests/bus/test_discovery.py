"""Home Assistant discovery from a running daemon: the entities, their topics, and the republish on HA's birth."""

from __future__ import annotations

import json
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.bus.discovery import discovery_messages
from unolauncher.bus.topics import Topics


def test_discovery_payloads_are_complete_and_consistent() -> None:
    messages = dict(discovery_messages(Topics("kitchen"), "homeassistant", "1.2.3"))
    node = "unolauncher_kitchen"
    trigger = messages[f"homeassistant/device_automation/{node}/press/config"]
    assert trigger["automation_type"] == "trigger" and trigger["topic"] == "unolauncher/kitchen/press"
    for object_id in ("cards_out", "hits_owed", "current_player", "magazine"):
        sensor = messages[f"homeassistant/sensor/{node}/{object_id}/config"]
        assert sensor["state_topic"] == "unolauncher/kitchen/sensors"
        assert sensor["availability_topic"] == "unolauncher/kitchen/status"
        assert sensor["unique_id"] == f"{node}_{object_id}"
        assert sensor["device"]["identifiers"] == [node] and sensor["device"]["sw_version"] == "1.2.3"
    jam = messages[f"homeassistant/binary_sensor/{node}/jam/config"]
    assert jam["device_class"] == "problem" and jam["value_template"] == "{{ value_json.jam }}"
    event = messages[f"homeassistant/event/{node}/game/config"]
    assert event["state_topic"] == "unolauncher/kitchen/events" and "hit" in event["event_types"]
    assert len({m["unique_id"] for m in messages.values() if "unique_id" in m}) == 6


def test_daemon_publishes_discovery_and_republishes_when_home_assistant_comes_online(tmp_path: Path) -> None:
    with DaemonProcess(tmp_path, table="ha") as daemon:
        seen: list[tuple[str, dict[str, object], bool]] = []
        ha = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="fake-home-assistant")

        def on_message(client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
            if message.topic.endswith("/config"):  # not our own "online" on homeassistant/status
                seen.append((message.topic, json.loads(message.payload), bool(message.retain)))

        ha.on_message = on_message
        ha.connect(daemon.mqtt_host, daemon.mqtt_port)
        ha.subscribe("homeassistant/#", qos=1)
        ha.loop_start()
        try:
            expected = {topic for topic, _ in discovery_messages(Topics("ha"), "homeassistant", "x")}
            assert wait_until(lambda: {t for t, _, _ in seen} >= expected, 10)
            # retained: a Home Assistant that subscribes later still finds every entity
            late: list[tuple[str, bool]] = []
            checker = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="late-home-assistant")
            checker.on_message = lambda c, u, m: late.append((m.topic, bool(m.retain)))
            checker.connect(daemon.mqtt_host, daemon.mqtt_port)
            checker.subscribe("homeassistant/+/+/+/config", qos=1)
            checker.loop_start()
            assert wait_until(lambda: {t for t, _ in late} >= expected, 10)
            assert all(retained for _, retained in late)
            checker.disconnect()
            checker.loop_stop()
            first_round = len(seen)
            ha.publish("homeassistant/status", "online", qos=1)  # HA's birth message (not retained)
            assert wait_until(lambda: len(seen) >= first_round + len(expected), 10)
            assert {t for t, _, _ in seen[first_round:]} >= expected
            # the sensors the entities read exist and follow the game
            with TableClient(daemon.mqtt_host, daemon.mqtt_port, "ha", name="ha-check") as table:
                table.command({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": 1})
                table.command({"type": "press"})
                assert wait_until(lambda: any(t == "unolauncher/ha/press" for t, _, _ in table.messages), 10)
                sensors = [json.loads(p) for t, p, _ in table.messages if t == "unolauncher/ha/sensors"]
                assert sensors and {"cards_out", "hits_owed", "current", "magazine", "jam"} <= set(sensors[-1])
                assert sensors[-1]["jam"] in ("ON", "OFF")
        finally:
            ha.disconnect()
            ha.loop_stop()
