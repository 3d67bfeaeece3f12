"""Home Assistant MQTT discovery: one table's launcher as one device, with sensors, controls and a game-event entity.

Two ways to announce it (``homeassistant.discovery`` in the configuration):

- ``device`` (default, Home Assistant 2024.11 and later): one retained message on
  ``<prefix>/device/unolauncher_<table>/config`` carrying the device, the origin and every component (``cmps``);
- ``entity``: one retained message per component on ``<prefix>/<platform>/unolauncher_<table>/<id>/config``, for
  older Home Assistant and for openHAB, which read only that form.

Components (all unavailable while ``unolauncher/<table>/status`` says ``offline``):

- sensors read from the retained ``sensors`` JSON (:func:`sensor_values`): cards out on the last hit, hits owed,
  current player, magazine estimate; a jam binary sensor; diagnostic ones for the lid, the motor, the co-processor
  link (serial launcher only) and the outbox backlog (events the broker has not acknowledged yet);
- an event entity on ``events`` whose ``event_types`` is the daemon's registry (:mod:`unolauncher.bus.event_types`)
  and whose attributes are the event's fields (player, cards, reason, ...);
- buttons Undo and Next round (and Press, with the virtual launcher), a select for the next game's ejection preset
  and the "Launcher enabled" switch (the ``disable``/``enable`` emergency stop); each publishes a command on ``cmd``;
- a device trigger per launcher button press (``press``).

:func:`publish_plan` turns the messages into what to publish, given what the daemon published last time (a record
in its state directory): a renamed table's old device is removed, a change between the two forms migrates the
entities the way Home Assistant documents (``migrate_discovery``), so they keep their ids and history.

Example::

    options = DiscoveryOptions(version="0.1.0", configuration_url="http://raspberrypi.local:8080/")
    for topic, payload in discovery_messages(Topics("t1"), options):
        bus.publish(topic, payload, retain=True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from unolauncher.bus.event_types import ATTRIBUTES, EVENT_TYPES
from unolauncher.bus.ha_game import event_triggers, game_components
from unolauncher.bus.topics import Topics

DEVICE = "device"
ENTITY = "entity"
MODES = (DEVICE, ENTITY)
ORIGIN_NAME = "unolauncher"
LAUNCHER_STATES = ["ready", "running", "jammed", "lid_open", "empty", "disabled"]  # sensor_values' launcher_state

# The per-component topics the daemon published before device discovery existed here (object ids per platform):
# cleared, with a migration, when a daemon of this version first announces the table.
LEGACY_COMPONENTS = {
    "press": "device_automation",
    "cards_out": "sensor",
    "hits_owed": "sensor",
    "current_player": "sensor",
    "magazine": "sensor",
    "jam": "binary_sensor",
    "game": "event",
}


@dataclass(frozen=True)
class DiscoveryOptions:
    """What the discovery messages depend on besides the table's topics."""

    version: str
    prefix: str = "homeassistant"
    mode: str = DEVICE
    configuration_url: str | None = None  # the dashboard, linked from the device page
    virtual: bool = False  # the Press button only works with the virtual launcher
    coprocessor: bool = False  # a serial co-processor: its link gets a sensor
    presets: tuple[str, ...] = ("classic", "gentle", "brutal", "sequence")
    serial_number: str | None = None  # the Raspberry Pi's serial, where the daemon can read it
    hw_version: str | None = None  # the board's model ("Raspberry Pi Zero 2 W Rev 1.0"), likewise


def node_id(table_id: str) -> str:
    """The node/device id in discovery topics (``[a-zA-Z0-9_-]`` only; ``-`` becomes ``_`` as it always did)."""
    return f"unolauncher_{table_id}".replace("-", "_")


def _value(key: str) -> str:
    """The template that reads one key of the ``sensors`` JSON."""
    return f"{{{{ value_json.{key} }}}}"


def _event_template() -> str:
    """HA's event entity wants JSON with ``event_type``; every other key becomes an attribute of the event."""
    keys = ", ".join(f"'{name}'" for name in ("seq", *ATTRIBUTES))
    return (
        '{"event_type": {{ value_json.type | tojson }}'
        f"{{% for key in [{keys}] if key in value_json %}}"
        ", {{ key | tojson }}: {{ value_json[key] | tojson }}{% endfor %}}"
    )


def components(topics: Topics, options: DiscoveryOptions) -> dict[str, dict[str, Any]]:
    """Every component of the device, keyed by its object id, each with its ``platform``.

    Entities get short ids (``select.uno_kitchen_preset``, not one derived from the device and entity names):
    ``object_id`` for Home Assistant before 2025.10, ``default_entity_id`` for later ones (each ignores the other).
    """
    node = node_id(topics.table_id)
    short = "uno_" + node.removeprefix("unolauncher_")
    sensors = {"state_topic": topics.sensors}
    diagnostic = {"entity_category": "diagnostic"}

    def uid(object_id: str) -> dict[str, str]:
        return {"unique_id": f"{node}_{object_id}"}

    def command(name: str, payload: str, icon: str) -> dict[str, Any]:
        return {"platform": "button", "name": name, "command_topic": topics.cmd, "payload_press": payload, "icon": icon}

    found: dict[str, dict[str, Any]] = {
        "press": {
            "platform": "device_automation",
            "automation_type": "trigger",
            "topic": topics.press,
            "type": "button_short_press",
            "subtype": "button_1",
        },
        "cards_out": {
            "platform": "sensor",
            "name": "Cards out on last hit",
            **sensors,
            "value_template": _value("cards_out"),
            "state_class": "measurement",
            "icon": "mdi:cards",
            "unit_of_measurement": "cards",
        },
        "hits_owed": {
            "platform": "sensor",
            "name": "Hits owed",
            **sensors,
            "value_template": _value("hits_owed"),
            "state_class": "measurement",
            "icon": "mdi:target",
            "unit_of_measurement": "hits",
        },
        "current_player": {
            "platform": "sensor",
            "name": "Current player",
            **sensors,
            "value_template": _value("current"),
            "icon": "mdi:account",
        },
        "magazine": {
            "platform": "sensor",
            "name": "Magazine estimate",
            **sensors,
            "value_template": _value("magazine"),
            "state_class": "measurement",
            "icon": "mdi:tray-full",
            "unit_of_measurement": "cards",
        },
        "launcher_state": {
            "platform": "sensor",
            "name": "Launcher state",
            **sensors,
            "device_class": "enum",
            "options": LAUNCHER_STATES,
            "value_template": _value("launcher_state"),
            "icon": "mdi:state-machine",
        },
        "jam": {
            "platform": "binary_sensor",
            "name": "Jam",
            **sensors,
            "device_class": "problem",
            "value_template": _value("jam"),
        },
        "lid": {
            "platform": "binary_sensor",
            "name": "Lid",
            **sensors,
            "device_class": "opening",
            "value_template": _value("lid"),
            **diagnostic,
        },
        # Its own topic, published when the motor starts and stops (not with the journal's batches, which a short
        # run can fall between, and not coalesced with the other sensors: HA must see every run).
        "motor": {
            "platform": "binary_sensor",
            "name": "Motor",
            "state_topic": topics.motor,
            "device_class": "running",
            "payload_on": "ON",
            "payload_off": "OFF",
            **diagnostic,
        },
        "outbox": {
            "platform": "sensor",
            "name": "Events waiting for the broker",
            **sensors,
            "value_template": _value("outbox"),
            "state_class": "measurement",
            "icon": "mdi:tray-arrow-up",
            "unit_of_measurement": "events",
            "enabled_by_default": False,
            **diagnostic,
        },
        "game": {
            "platform": "event",
            "name": "Game event",
            "state_topic": topics.events,
            "event_types": list(EVENT_TYPES),
            "value_template": _event_template(),
            "icon": "mdi:cards-playing",
            "qos": 1,
        },  # the daemon publishes events at QoS 1: HA's subscription too, or a reconnect loses some
        "undo": command("Undo", '{"type": "undo"}', "mdi:undo"),
        "next_round": command("Next round", '{"type": "next_round"}', "mdi:skip-next"),
        "preset": {
            "platform": "select",
            "name": "Ejection preset for the next game",
            "command_topic": topics.cmd,
            "command_template": '{"type": "preset", "preset": {{ value | tojson }}}',
            **sensors,
            "value_template": _value("next_preset"),
            "options": list(options.presets),
            "icon": "mdi:tune-variant",
            "entity_category": "config",
        },
        "enabled": {
            "platform": "switch",
            "name": "Launcher enabled",
            "command_topic": topics.cmd,
            "payload_on": '{"type": "enable"}',
            "payload_off": '{"type": "disable"}',
            **sensors,
            "value_template": "{{ 'ON' if value_json.launcher_enabled else 'OFF' }}",
            "state_on": "ON",
            "state_off": "OFF",
            "device_class": "switch",
            "icon": "mdi:power",
        },
    }
    if options.virtual:
        found["press_button"] = command("Press", '{"type": "press"}', "mdi:gesture-tap-button")
    if options.coprocessor:
        found["link"] = {
            "platform": "binary_sensor",
            "name": "Co-processor link",
            **sensors,
            "device_class": "connectivity",
            "value_template": _value("link"),
            **diagnostic,
        }
    found.update(game_components(topics))
    found.update(event_triggers(topics))
    for object_id, config in found.items():
        if config["platform"] != "device_automation":
            config.update(uid(object_id))
            entity = f"{short}_{object_id}"
            config.update(object_id=entity, default_entity_id=f"{config['platform']}.{entity}")
    return found


def _device(topics: Topics, options: DiscoveryOptions) -> dict[str, Any]:
    device: dict[str, Any] = {
        "identifiers": [node_id(topics.table_id)],
        "name": f"UNO launcher {topics.table_id}",
        "manufacturer": "unolauncher",
        "model": "UNO Attack launcher",
        "sw_version": options.version,
        "suggested_area": topics.table_id.replace("_", " ").replace("-", " ").capitalize(),
    }
    if options.serial_number:
        device["serial_number"] = options.serial_number
    if options.hw_version:
        device["hw_version"] = options.hw_version
    if options.configuration_url:
        device["configuration_url"] = options.configuration_url
    return device


def _availability(topics: Topics) -> dict[str, str]:
    return {"availability_topic": topics.status, "payload_available": "online", "payload_not_available": "offline"}


def discovery_messages(topics: Topics, options: DiscoveryOptions) -> list[tuple[str, dict[str, Any]]]:
    """``(topic, config payload)``: one device message, or one per component in ``entity`` mode."""
    node = node_id(topics.table_id)
    device = _device(topics, options)
    origin = {"name": ORIGIN_NAME, "sw_version": options.version}
    if options.configuration_url:  # the project has no public home page: the origin's link is the table's dashboard
        origin["support_url"] = options.configuration_url
    comps = components(topics, options)
    if options.mode == DEVICE:
        payload = {"device": device, "origin": origin, **_availability(topics), "components": comps}
        return [(f"{options.prefix}/device/{node}/config", payload)]
    messages: list[tuple[str, dict[str, Any]]] = []
    for object_id, config in comps.items():
        body = {k: v for k, v in config.items() if k != "platform"}
        body.update(device=device, origin=origin)
        if config["platform"] != "device_automation":  # a device trigger has no availability
            body.update(_availability(topics))
        messages.append((f"{options.prefix}/{config['platform']}/{node}/{object_id}/config", body))
    return messages


def legacy_topics(prefix: str, node: str) -> list[str]:
    """The discovery topics of the versions before device discovery."""
    return [f"{prefix}/{platform}/{node}/{object_id}/config" for object_id, platform in LEGACY_COMPONENTS.items()]


def publish_plan(
    previous: dict[str, Any] | None, messages: list[tuple[str, dict[str, Any]]], node: str, mode: str, prefix: str
) -> list[tuple[str, Any, bool]]:
    """What to publish, in order, as ``(topic, payload, retain)``; ``payload`` ``""`` deletes a retained config.

    ``previous`` is the record of the last announcement (:func:`record`; ``None``: none, so the legacy topics may
    still be there). Topics announced before and not now are deleted after the new configs; when the table is the
    same and only the form changed (entity <-> device), each gets ``{"migrate_discovery": true}`` first, Home
    Assistant's documented way to move entities between the forms without losing them.
    """
    if previous is None:
        previous = {"node": node, "mode": ENTITY, "topics": legacy_topics(prefix, node)}
    current = [topic for topic, _ in messages]
    stale = [topic for topic in previous.get("topics", []) if topic not in current]
    plan: list[tuple[str, Any, bool]] = []
    if previous.get("node") == node and previous.get("mode") != mode:
        plan += [(topic, {"migrate_discovery": True}, False) for topic in stale]
    plan += [(topic, payload, True) for topic, payload in messages]
    plan += [(topic, "", True) for topic in stale]
    return plan


def replay_plan(pending: list[Any], messages: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, Any, bool]]:
    """The last change's one-shot messages (``pending`` in the record) again, around the current configs, in the
    order :func:`publish_plan` gave them: migrations first, then the configs, then the deletions."""
    shots = [(str(topic), payload, bool(retain)) for topic, payload, retain in pending]
    plan = [shot for shot in shots if not shot[2]]
    plan += [(topic, payload, True) for topic, payload in messages]
    plan += [shot for shot in shots if shot[2]]
    return plan


def record(messages: list[tuple[str, dict[str, Any]]], node: str, mode: str) -> dict[str, Any]:
    """What :func:`publish_plan` needs to know next time."""
    return {"node": node, "mode": mode, "topics": [topic for topic, _ in messages]}


def sensor_values(
    public_state: dict[str, Any],
    launcher: dict[str, Any],
    last_cards_out: int | None,
    outbox: int = 0,
    next_preset: str | None = None,
) -> dict[str, Any]:
    """The flat JSON published retained on ``sensors`` (what the discovery templates read)."""
    owed = public_state.get("owed") or []
    extra = launcher.get("extra") or {}
    values: dict[str, Any] = {
        "cards_out": last_cards_out,
        "hits_owed": sum(int(o.get("hits", 0)) for o in owed if isinstance(o, dict)),
        "current": public_state.get("current"),
        "magazine": launcher.get("magazine_estimate"),
        "jam": "ON" if launcher.get("jammed") else "OFF",
        "lid": "ON" if launcher.get("lid_open") else "OFF",
        "motor": "ON" if launcher.get("motor_on") else "OFF",
        "outbox": outbox,
        "next_preset": next_preset,
        # The emergency stop (see docs/home-assistant.md): the launcher status says "enabled": false while disabled.
        "launcher_enabled": launcher.get("enabled", True) is not False,
        "launcher_state": launcher_state(launcher),
    }
    if "connected" in extra:  # the serial co-processor's link
        values["link"] = "ON" if extra["connected"] else "OFF"
    return values


def launcher_state(launcher: dict[str, Any]) -> str:
    """One of :data:`LAUNCHER_STATES` for the launcher status, the most urgent first.

    >>> launcher_state({"enabled": False, "jammed": True}), launcher_state({"magazine_estimate": 0})
    ('disabled', 'empty')
    """
    if launcher.get("enabled", True) is False:
        return "disabled"
    if launcher.get("jammed"):
        return "jammed"
    if launcher.get("lid_open"):
        return "lid_open"
    if launcher.get("motor_on"):
        return "running"
    if launcher.get("magazine_estimate") == 0:
        return "empty"
    return "ready"
