"""Home Assistant discovery: every payload against Home Assistant's schemas (``ha_schema``), every template rendered
by Jinja2 (Home Assistant's template engine) on what the daemon really publishes, every control answered by the
daemon, and the announcement's life cycle on a real broker: upgrade from per-component discovery, a switch between
the two forms, a renamed table, Home Assistant's birth message.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.bus.discovery import (
    DEVICE,
    ENTITY,
    DiscoveryOptions,
    components,
    discovery_messages,
    legacy_topics,
    node_id,
    publish_plan,
    record,
    sensor_values,
)
from unolauncher.bus.event_types import EVENT_TYPES
from unolauncher.bus.topics import Topics
from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.referee import Referee

from .ha_schema import discovery_errors, split_device_message

PREFIX = "homeassistant"
JINJA = ImmutableSandboxedEnvironment()  # what Home Assistant renders MQTT templates with (plus its own filters)


def render(template: str, payload: str | bytes) -> str:
    """A value template as Home Assistant renders it: ``value`` the payload text, ``value_json`` its JSON."""
    text = payload.decode() if isinstance(payload, bytes) else payload
    try:
        value_json = json.loads(text)
    except ValueError:
        value_json = None
    return JINJA.from_string(template).render(value=text, value_json=value_json)


def options(**kw: Any) -> DiscoveryOptions:
    return DiscoveryOptions(version="1.2.3", configuration_url="http://pi.local:8080/", **kw)


# -- the payloads themselves ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("virtual", "coprocessor"), [(True, False), (False, True)])
def test_device_message_passes_home_assistants_schema(virtual: bool, coprocessor: bool) -> None:
    messages = discovery_messages(Topics("kitchen"), options(virtual=virtual, coprocessor=coprocessor))
    assert [topic for topic, _ in messages] == ["homeassistant/device/unolauncher_kitchen/config"]
    topic, payload = messages[0]
    assert discovery_errors(topic, json.loads(json.dumps(payload))) == []
    assert payload["origin"] == {"name": "unolauncher", "sw_version": "1.2.3", "support_url": "http://pi.local:8080/"}
    assert payload["device"]["configuration_url"] == "http://pi.local:8080/"
    comps = payload["components"]
    assert ("press_button" in comps) == virtual and ("link" in comps) == coprocessor
    assert {"undo", "next_round", "preset", "enabled", "game", "lid", "motor", "outbox"} <= set(comps)
    unique = [c["unique_id"] for c in comps.values() if "unique_id" in c]
    triggers = [c for c in comps.values() if c["platform"] == "device_automation"]
    assert len(unique) == len(set(unique)) == len(comps) - len(triggers)  # all but the device triggers, each its own


def test_entity_messages_pass_home_assistants_schema() -> None:
    device_form = split_device_message(discovery_messages(Topics("kitchen"), options(virtual=True))[0][1])
    messages = discovery_messages(Topics("kitchen"), options(virtual=True, mode=ENTITY))
    assert len(messages) == len(device_form)
    for topic, payload in messages:
        assert discovery_errors(topic, json.loads(json.dumps(payload))) == [], topic
        # the same component either way: the discovery id <node> <object> is what HA keys the entity on
        object_id = topic.split("/")[-2]
        platform, config = device_form[object_id]
        assert topic == f"homeassistant/{platform}/unolauncher_kitchen/{object_id}/config"
        assert payload == config


def test_the_schema_check_refuses_what_home_assistant_would_refuse_or_drop() -> None:
    # The checker must be able to fail: each broken variant of a good payload is caught.
    topic, good = discovery_messages(Topics("kitchen"), options())[0]
    broken: list[dict[str, Any]] = [
        {k: v for k, v in good.items() if k != "origin"},  # origin is required in a device message
        {**good, "retain": True},  # not an option of a device message
        {**good, "device": {"name": "no identifiers"}},
    ]
    comps = json.loads(json.dumps(good["components"]))
    comps["game"].pop("event_types")
    broken.append({**good, "components": comps})
    comps = json.loads(json.dumps(good["components"]))
    comps["jam"]["valu_template"] = "{{ value_json.jam }}"  # a typo HA would drop silently
    broken.append({**good, "components": comps})
    comps = json.loads(json.dumps(good["components"]))
    comps["enabled"].pop("state_on")
    broken.append({**good, "components": comps})
    for payload in broken:
        assert discovery_errors(topic, payload) != [], payload


def test_event_template_gives_home_assistant_the_type_and_the_fields() -> None:
    game = next(c for c in components(Topics("kitchen"), options()).values() if c["platform"] == "event")
    assert game["event_types"] == list(EVENT_TYPES)
    ref = Referee()
    events = ref.handle({"type": "new_game", "ruleset": "mario-kart", "players": ["ann", "bob", "cy"], "seed": 4})
    events += play_game(ref, Bot("random", seed=4))[1]
    events += [
        {"type": "press_refused", "reason": "lid_open", "message": "Close the lid to fire."},
        {"type": "fired", "player": "ann", "cards": 3, "outcome": "ok", "ran_ms": 90, "counted": True},
    ]
    for seq, event in enumerate(events, 1):
        published = {**event, "seq": seq, "ts": 1.5}
        data = json.loads(render(game["value_template"], json.dumps(published)))
        assert data.pop("event_type") == event["type"] and event["type"] in game["event_types"]
        assert data.pop("seq") == seq
        assert data == {k: v for k, v in event.items() if k in data}  # fields as they are
        assert "player" not in event or data["player"] == event["player"]


def test_value_templates_render_the_states_the_entities_expect() -> None:
    comps = components(Topics("kitchen"), options(coprocessor=True))
    launcher = {
        "magazine_estimate": 31,
        "jammed": True,
        "lid_open": False,
        "motor_on": True,
        "extra": {"connected": False},
    }
    values = sensor_values({"current": "bob", "owed": [{"player": "bob", "hits": 2}]}, launcher, 4, 7, "brutal")
    payload = json.dumps(values)
    rendered = {
        oid: render(c["value_template"], payload)
        for oid, c in comps.items()
        if "value_template" in c and c.get("state_topic") == "unolauncher/kitchen/sensors"
    }
    assert rendered == {
        "cards_out": "4",
        "hits_owed": "2",
        "current_player": "bob",
        "magazine": "31",
        "jam": "ON",
        "lid": "OFF",
        "outbox": "7",
        "preset": "brutal",
        "enabled": "ON",
        "link": "OFF",
        "launcher_state": "jammed",
    }
    # Before any hit or game: HA reads "None" as unknown, not as a value.
    empty = json.dumps(sensor_values({}, {}, None))
    assert render(comps["cards_out"]["value_template"], empty) == "None"
    assert render(comps["current_player"]["value_template"], empty) == "None"
    disabled = json.dumps(sensor_values({}, {"enabled": False}, None))
    assert render(comps["enabled"]["value_template"], disabled) == comps["enabled"]["state_off"]
    for option in comps["preset"]["options"]:
        assert json.loads(render(comps["preset"]["command_template"], option)) == {"type": "preset", "preset": option}


# -- what to publish, given what was published before -----------------------------------------------------------------


def test_first_announcement_migrates_the_per_component_topics_of_older_versions() -> None:
    messages = discovery_messages(Topics("den"), options())
    plan = publish_plan(None, messages, "unolauncher_den", DEVICE, PREFIX)
    legacy = legacy_topics(PREFIX, "unolauncher_den")
    assert plan == [
        *[(t, {"migrate_discovery": True}, False) for t in legacy],  # HA keeps the entities, moves them
        ("homeassistant/device/unolauncher_den/config", messages[0][1], True),
        *[(t, "", True) for t in legacy],  # then the old topics are cleared
    ]


def test_an_unchanged_announcement_only_republishes() -> None:
    messages = discovery_messages(Topics("den"), options())
    previous = record(messages, "unolauncher_den", DEVICE)
    plan = publish_plan(previous, messages, "unolauncher_den", DEVICE, PREFIX)
    assert plan == [(messages[0][0], messages[0][1], True)]


def test_a_renamed_table_removes_the_old_device_without_migrating() -> None:
    old = record(discovery_messages(Topics("den"), options()), "unolauncher_den", DEVICE)
    messages = discovery_messages(Topics("lounge"), options())
    plan = publish_plan(old, messages, "unolauncher_lounge", DEVICE, PREFIX)
    assert plan == [(messages[0][0], messages[0][1], True), ("homeassistant/device/unolauncher_den/config", "", True)]


def test_switching_to_per_component_discovery_migrates_the_device() -> None:
    old = record(discovery_messages(Topics("den"), options()), "unolauncher_den", DEVICE)
    messages = discovery_messages(Topics("den"), options(mode=ENTITY))
    plan = publish_plan(old, messages, "unolauncher_den", ENTITY, PREFIX)
    device = "homeassistant/device/unolauncher_den/config"
    assert plan[0] == (device, {"migrate_discovery": True}, False)
    assert plan[1:-1] == [(t, p, True) for t, p in messages]
    assert plan[-1] == (device, "", True)


def test_sensor_values_follow_the_launcher_status() -> None:
    values = sensor_values({"current": None, "owed": []}, {"lid_open": True, "motor_on": False}, None)
    assert values["lid"] == "ON" and values["motor"] == "OFF" and values["launcher_enabled"] is True
    assert "link" not in values  # no co-processor
    assert sensor_values({}, {"enabled": False, "extra": {"connected": True}}, 0)["launcher_enabled"] is False
    assert sensor_values({}, {"extra": {"connected": True}}, 0)["link"] == "ON"


# -- on a real broker -------------------------------------------------------------------------------------------------


class FakeHomeAssistant:
    """What Home Assistant does on MQTT: subscribes to the discovery prefix, keeps the latest config per topic (an
    empty payload deletes it), records every message in order, and announces itself (``online``)."""

    def __init__(self, host: str, port: int, name: str = "fake-home-assistant") -> None:
        self.configs: dict[str, Any] = {}
        self.log: list[tuple[str, bytes, bool]] = []
        self.marker_topic = f"{PREFIX}/test-marker/{name}"  # under the prefix it subscribes to; no config there
        self.markers: set[bytes] = set()
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{name}-{time.monotonic_ns()}")
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        # Subscribe once the broker has accepted the connection: amqtt (the embedded broker) can drop a SUBSCRIBE
        # that arrives while it is still setting up the session (seen once in CI: "no SUBACK").
        self.client.on_connect = lambda c, u, f, reason, p: c.subscribe(f"{PREFIX}/#", qos=1)
        self.client.connect(host, port)
        self.client.loop_start()
        assert subscribed.wait(10), "no SUBACK"

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic == self.marker_topic:
            self.markers.add(bytes(message.payload))
            return
        if not message.topic.endswith("/config"):
            return
        with self.lock:
            self.log.append((message.topic, bytes(message.payload), bool(message.retain)))
            if message.payload:
                self.configs[message.topic] = json.loads(message.payload)
            else:
                self.configs.pop(message.topic, None)

    def caught_up(self, timeout: float = 10) -> bool:
        """True once everything the broker had for this client when called has arrived: a marker it publishes now
        on its own subscription comes after the retained messages the broker sent with the SUBACK."""
        marker = str(time.monotonic_ns()).encode()
        self.client.publish(self.marker_topic, marker, qos=1)
        return wait_until(lambda: marker in self.markers, timeout)

    def birth(self) -> None:
        self.client.publish(f"{PREFIX}/status", "online", qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def retained_configs(host: str, port: int) -> dict[str, Any]:
    """The retained discovery configs a Home Assistant starting now would get."""
    ha = FakeHomeAssistant(host, port, name="late-home-assistant")
    try:
        assert ha.caught_up(), "the marker never came back"
        with ha.lock:
            return dict(ha.configs)
    finally:
        ha.close()


@contextmanager
def daemon_on(broker: str, workdir: Path, table: str, **ha: Any) -> Iterator[DaemonProcess]:
    overrides = {
        "homeassistant": {"enabled": True, "diagnostics_s": 0.2, **ha},
        "dashboard": {"enabled": True, "host": "127.0.0.1", "port": 0},
    }
    if broker == "embedded":
        with DaemonProcess(workdir, table=table, overrides=overrides) as daemon:
            yield daemon
    else:
        with Mosquitto() as mosquitto, DaemonProcess(workdir, table, mosquitto.port, overrides) as daemon:
            yield daemon


def next_preset(table: TableClient) -> str | None:
    published = table.messages_on("sensors")
    return json.loads(published[-1])["next_preset"] if published else None


def reply_to(table: TableClient, payload: str) -> dict[str, Any]:
    """Publish ``payload`` on cmd exactly as Home Assistant does (no id) and return the daemon's reply."""
    before = table.reply_count
    table.send(payload)
    assert wait_until(lambda: table.reply_count > before, 10), payload
    with table.lock:
        return dict(table.replies[None])


@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_home_assistant_can_use_every_entity_the_daemon_announces(tmp_path: Path, broker: str) -> None:
    with daemon_on(broker, tmp_path, "kitchen") as daemon:
        host, port = daemon.mqtt_host, daemon.mqtt_port
        ha = FakeHomeAssistant(host, port)
        table = TableClient(host, port, "kitchen", name="ha-entities")
        try:
            device_topic = "homeassistant/device/unolauncher_kitchen/config"
            assert wait_until(lambda: device_topic in ha.configs, 10)
            # Retained a moment after live subscribers got it (the embedded broker stores it on disk first)
            assert wait_until(lambda: set(retained_configs(host, port)) == {device_topic}, 10)  # nothing else
            announced = retained_configs(host, port)
            for topic, payload in announced.items():
                assert discovery_errors(topic, payload) == []
            comps = split_device_message(announced[device_topic])
            assert comps["game"][1]["availability_topic"] == "unolauncher/kitchen/status"
            assert comps["game"][1]["device"]["configuration_url"] == daemon.endpoints["dashboard_url"]

            # A game with presses: the sensors and events Home Assistant reads, rendered by its templates.
            assert table.command({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "seed": 3})["ok"]
            for _ in range(4):
                assert table.command({"type": "press"})["ok"]
                time.sleep(0.05)  # pacing: presses a moment apart, as a player makes them
            assert wait_until(lambda: any(e["type"] == "hit" for e in table.ordered_events()), 10)
            with table.lock:
                sensors = [p for t, p, _ in table.messages if t == "unolauncher/kitchen/sensors"]
            assert sensors
            for object_id, (platform, config) in comps.items():
                if platform in ("sensor", "binary_sensor", "select", "switch") and config["state_topic"].endswith(
                    "/sensors"
                ):
                    for payload in sensors:
                        state = render(config["value_template"], payload)
                        if platform == "binary_sensor":
                            assert state in ("ON", "OFF"), (object_id, state)
                        elif platform == "switch":
                            assert state in (config["state_on"], config["state_off"]), (object_id, state)
                        elif platform == "select":
                            assert state in config["options"], (object_id, state)
                        elif config.get("state_class") == "measurement":
                            assert state == "None" or state.lstrip("-").isdigit(), (object_id, state)
            game = comps["game"][1]
            for event in table.ordered_events():
                rendered = json.loads(render(game["value_template"], json.dumps(event)))
                assert rendered["event_type"] in game["event_types"], event

            # The controls: what each sends is a command the daemon takes.
            for object_id in ("undo", "next_round", "press_button"):
                answer = reply_to(table, comps[object_id][1]["payload_press"])
                assert answer["code"] not in ("invalid_json", "missing_type", "unknown_command"), (object_id, answer)
            assert reply_to(table, '{"type": "undo"}')["ok"]  # the button's payload, taking back a press
            select = comps["preset"][1]
            for option in ("brutal", "gentle"):
                answer = reply_to(table, render(select["command_template"], option))
                assert answer["ok"], answer
                assert wait_until(functools.partial(lambda o: next_preset(table) == o, option), 5)
            # the next game (the phone's new_game names no preset) is played with it
            assert table.command({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"]})["ok"]
            started = [e for e in table.ordered_events() if e["type"] == "game_started"][-1]
            assert started["options"]["ejection_preset"] == "gentle"
            refused = reply_to(table, render(select["command_template"], "nonsense"))
            assert refused["ok"] is False and refused["code"] == "bad_field"

            # Home Assistant restarts: its birth message brings the same announcement again.
            with ha.lock:
                count = len(ha.log)
            ha.birth()
            assert wait_until(lambda: len(ha.log) > count, 10)
            with ha.lock:
                again = [(t, p) for t, p, _ in ha.log[count:]]
            assert again == [(device_topic, json.dumps(announced[device_topic], separators=(",", ":")).encode())]
        finally:
            table.close()
            ha.close()


def test_launcher_enabled_switch_drives_the_emergency_stop(tmp_path: Path) -> None:
    with daemon_on("embedded", tmp_path, "estop") as daemon:
        table = TableClient(daemon.mqtt_host, daemon.mqtt_port, "estop", name="ha-switch")
        try:
            switch = components(Topics("estop"), options())["enabled"]
            assert reply_to(table, switch["payload_off"])["ok"]
            assert wait_until(lambda: json.loads(table.messages_on("sensors")[-1])["launcher_enabled"] is False, 5)
            state = render(switch["value_template"], table.messages_on("sensors")[-1])
            assert state == switch["state_off"]
            assert reply_to(table, switch["payload_on"])["ok"]
            assert wait_until(lambda: json.loads(table.messages_on("sensors")[-1])["launcher_enabled"] is True, 5)
        finally:
            table.close()


def test_outbox_backlog_sensor_settles_at_zero(tmp_path: Path) -> None:
    with daemon_on("embedded", tmp_path, "backlog") as daemon:
        table = TableClient(daemon.mqtt_host, daemon.mqtt_port, "backlog", name="ha-outbox")
        try:
            assert table.command({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 1})["ok"]
            assert wait_until(lambda: table.messages_on("sensors"), 5)
            assert json.loads(table.messages_on("sensors")[-1])["outbox"] == 0
        finally:
            table.close()


def test_announcement_life_cycle_upgrade_form_switch_and_rename(tmp_path: Path) -> None:
    """On one mosquitto: an older version's per-component configs are migrated, then a switch to per-component
    discovery migrates back, then the table is renamed and its old entities are removed."""
    with Mosquitto() as mosquitto:
        port = mosquitto.port
        legacy = legacy_topics(PREFIX, "unolauncher_den")
        seed = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="old-unolauncher")
        seed.connect("127.0.0.1", port)
        seed.loop_start()
        for topic in legacy:  # what the previous version left retained
            old = {
                "name": "x",
                "unique_id": f"unolauncher_den_{topic.split('/')[-2]}",
                "state_topic": "s",
                "device": {"identifiers": ["unolauncher_den"]},
            }
            seed.publish(topic, json.dumps(old), qos=1, retain=True).wait_for_publish(5)
        seed.disconnect()
        seed.loop_stop()
        assert set(retained_configs("127.0.0.1", port)) == set(legacy)

        ha = FakeHomeAssistant("127.0.0.1", port)
        try:
            device = "homeassistant/device/unolauncher_den/config"
            overrides: dict[str, dict[str, Any]] = {"homeassistant": {"enabled": True}}
            with DaemonProcess(tmp_path, "den", port, overrides):
                assert wait_until(lambda: device in ha.configs and not set(legacy) & set(ha.configs), 10)
            with ha.lock:
                order = [(t, p) for t, p, _ in ha.log if t in (device, *legacy)][len(legacy) :]
            # migrate_discovery on every old topic, then the device, then the old topics cleared
            assert order[: len(legacy)] == [(t, b'{"migrate_discovery":true}') for t in legacy]
            assert order[len(legacy)][0] == device
            assert order[len(legacy) + 1 : 2 * len(legacy) + 1] == [(t, b"") for t in legacy]
            assert set(retained_configs("127.0.0.1", port)) == {device}

            overrides = {"homeassistant": {"enabled": True, "discovery": "entity"}}
            with ha.lock:
                count = len(ha.log)
            with DaemonProcess(tmp_path, "den", port, overrides):
                assert wait_until(lambda: device not in ha.configs, 10)
            with ha.lock:
                switched = [(t, p) for t, p, _ in ha.log[count:]]
            assert switched[0] == (device, b'{"migrate_discovery":true}') and switched[-1] == (device, b"")
            entity_topics = {t for t, p in switched[1:-1]}
            assert set(retained_configs("127.0.0.1", port)) == entity_topics
            assert all(discovery_errors(t, c) == [] for t, c in retained_configs("127.0.0.1", port).items())

            overrides = {"homeassistant": {"enabled": True}}
            with DaemonProcess(tmp_path, "lounge", port, overrides):
                lounge = "homeassistant/device/unolauncher_lounge/config"
                assert wait_until(lambda: lounge in ha.configs and not entity_topics & set(ha.configs), 10)
            with ha.lock:
                assert not any(p == b'{"migrate_discovery":true}' for t, p, _ in ha.log if "lounge" in t)
            assert set(retained_configs("127.0.0.1", port)) == {lounge}
            assert node_id("lounge") == "unolauncher_lounge"
        finally:
            ha.close()
