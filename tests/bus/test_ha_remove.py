"""``unolauncher ha-remove`` on real brokers: it clears exactly one table's retained discovery (both forms, and an
older version's), leaves every other device alone, lists the tables, and fails clearly without a broker."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import to_toml
from support.net import free_port
from unolauncher.bus.discovery import DiscoveryOptions, discovery_messages, legacy_topics
from unolauncher.bus.topics import Topics

from .test_discovery import retained_configs

# How long ha-remove may wait for each broker answer: only an upper bound (it goes on as soon as the answer comes).
# A loaded CI machine once took more than 5 s to confirm a subscription on the embedded broker.
BROKER_DEADLINE_S = 30


def seed(port: int, messages: dict[str, object]) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="seed-discovery")
    client.connect("127.0.0.1", port)
    client.loop_start()
    for topic, payload in messages.items():
        client.publish(topic, json.dumps(payload), qos=1, retain=True).wait_for_publish(5)
    client.disconnect()
    client.loop_stop()


def ha_remove(tmp_path: Path, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "config.toml"
    config.write_text(
        to_toml(
            {
                "table": {"id": "den", "state_dir": str(tmp_path / "state")},
                "broker": {"embedded": False, "host": "127.0.0.1", "port": port, "protocol": "3.1.1"},
            }
        )
    )
    command = [
        sys.executable,
        "-m",
        "unolauncher",
        "ha-remove",
        "--config",
        str(config),
        "--wait",
        str(BROKER_DEADLINE_S),
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_ha_remove_clears_one_tables_discovery_and_nothing_else(tmp_path: Path, broker_port: int) -> None:
    den_device = dict(discovery_messages(Topics("den"), DiscoveryOptions(version="0.1.0")))
    den_legacy = {
        t: {"name": "old", "state_topic": "x", "device": {"identifiers": ["unolauncher_den"]}}
        for t in legacy_topics("homeassistant", "unolauncher_den")
    }
    kitchen = dict(discovery_messages(Topics("kitchen"), DiscoveryOptions(version="0.1.0", mode="entity")))
    zigbee = {
        "homeassistant/sensor/0x00158d/temperature/config": {
            "name": "t",
            "state_topic": "z2m/x",
            "dev": {"ids": "0x00158d"},
        }
    }
    seed(broker_port, {**den_device, **den_legacy, **kitchen, **zigbee})
    before = retained_configs("127.0.0.1", broker_port)
    assert set(before) >= {*den_device, *den_legacy, *kitchen, *zigbee}

    listed = ha_remove(tmp_path, broker_port, "--list")
    assert listed.returncode == 0, listed.stderr
    assert "unolauncher_den: 8 discovery topic(s)" in listed.stdout
    assert f"unolauncher_kitchen: {len(kitchen)} discovery topic(s)" in listed.stdout
    assert "0x00158d" not in listed.stdout
    assert retained_configs("127.0.0.1", broker_port) == before  # listing changes nothing

    removed = ha_remove(tmp_path, broker_port)  # table.id of the configuration: den
    assert removed.returncode == 0, removed.stderr
    assert "Removed table den from Home Assistant: 8 discovery topic(s) cleared." in removed.stdout
    after = retained_configs("127.0.0.1", broker_port)
    assert set(after) == set(before) - set(den_device) - set(den_legacy)

    again = ha_remove(tmp_path, broker_port, "--table", "den", "--table", "kitchen")
    assert again.returncode == 0, again.stderr
    assert "No Home Assistant discovery of table den" in again.stdout
    assert f"Removed table kitchen from Home Assistant: {len(kitchen)} discovery topic(s)" in again.stdout
    assert set(retained_configs("127.0.0.1", broker_port)) == set(before) - set(den_device) - set(den_legacy) - set(
        kitchen
    )


def test_ha_remove_without_a_broker_or_with_a_bad_config_says_why(tmp_path: Path) -> None:
    result = ha_remove(tmp_path, free_port())  # nothing listens there
    assert result.returncode == 2
    assert "cannot reach the broker at 127.0.0.1" in result.stderr or "did not accept" in result.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('[homeassistant]\nprefix = "home/#"\n')
    result = subprocess.run(
        [sys.executable, "-m", "unolauncher", "ha-remove", "--config", str(bad)], capture_output=True, text=True
    )
    assert result.returncode == 2 and "homeassistant.prefix" in result.stderr
