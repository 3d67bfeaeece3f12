"""Home Assistant MQTT discovery: the launcher as one device.

Entities (all share ``unolauncher/<table>/status`` as availability):

- a device trigger per button press (``unolauncher/<table>/press``);
- sensors from the retained ``unolauncher/<table>/sensors`` JSON: cards out on the last hit, hits owed,
  current player, magazine estimate; a binary sensor for a jam;
- an event entity fed by ``unolauncher/<table>/events`` (``event_type`` = the game event's ``type``).

Published retained at every connect and again whenever Home Assistant says ``online`` on
``homeassistant/status`` (its birth message is not retained).

Example::

    for topic, payload in discovery_messages(Topics("t1"), "homeassistant", "0.1.0"):
        bus.publish(topic, payload, retain=True)
"""

from __future__ import annotations

from typing import Any

from unolauncher.bus.topics import Topics

# The event types the event entity declares; HA ignores events whose type is not listed.
EVENT_TYPES = [
    "game_started",
    "played",
    "hit",
    "turn",
    "round_over",
    "game_over",
    "uno",
    "caught",
    "jam",
    "fired",
    "ignored_press",
    "lid",
    "magazine_empty",
]

SENSORS: list[tuple[str, str, str, dict[str, Any]]] = [
    # object id, name, value key in the sensors JSON, extra fields
    ("cards_out", "Cards out on last hit", "cards_out", {"state_class": "measurement", "icon": "mdi:cards"}),
    ("hits_owed", "Hits owed", "hits_owed", {"state_class": "measurement", "icon": "mdi:target"}),
    ("current_player", "Current player", "current", {"icon": "mdi:account"}),
    ("magazine", "Magazine estimate", "magazine", {"state_class": "measurement", "icon": "mdi:tray-full"}),
]


def sensor_values(public_state: dict[str, Any], launcher: dict[str, Any], last_cards_out: int | None) -> dict[str, Any]:
    """The flat JSON published retained on ``sensors`` (what the discovery templates read)."""
    owed = public_state.get("owed") or []
    return {
        "cards_out": last_cards_out,
        "hits_owed": sum(int(o.get("hits", 0)) for o in owed if isinstance(o, dict)),
        "current": public_state.get("current"),
        "magazine": launcher.get("magazine_estimate"),
        "jam": "ON" if launcher.get("jammed") else "OFF",
        "launcher_enabled": launcher.get("enabled", True),
    }


def discovery_messages(topics: Topics, prefix: str, version: str) -> list[tuple[str, dict[str, Any]]]:
    """``(topic, config payload)`` for every entity of the table's launcher."""
    node = f"unolauncher_{topics.table_id}".replace("-", "_")
    device = {
        "identifiers": [node],
        "name": f"UNO launcher {topics.table_id}",
        "manufacturer": "unolauncher",
        "model": "UNO Attack launcher",
        "sw_version": version,
    }
    common = {
        "availability_topic": topics.status,
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device,
    }
    messages: list[tuple[str, dict[str, Any]]] = [
        (
            f"{prefix}/device_automation/{node}/press/config",
            {
                "automation_type": "trigger",
                "topic": topics.press,
                "type": "button_short_press",
                "subtype": "button_1",
                "device": device,
            },
        )
    ]
    for object_id, name, key, extra in SENSORS:
        messages.append(
            (
                f"{prefix}/sensor/{node}/{object_id}/config",
                {
                    **common,
                    "name": name,
                    "unique_id": f"{node}_{object_id}",
                    "state_topic": topics.sensors,
                    "value_template": f"{{{{ value_json.{key} }}}}",
                    **extra,
                },
            )
        )
    messages.append(
        (
            f"{prefix}/binary_sensor/{node}/jam/config",
            {
                **common,
                "name": "Jam",
                "unique_id": f"{node}_jam",
                "device_class": "problem",
                "state_topic": topics.sensors,
                "value_template": "{{ value_json.jam }}",
            },
        )
    )
    messages.append(
        (
            f"{prefix}/event/{node}/game/config",
            {
                **common,
                "name": "Game event",
                "unique_id": f"{node}_game",
                "state_topic": topics.events,
                "event_types": EVENT_TYPES,
                "value_template": '{"event_type": "{{ value_json.type }}", "seq": {{ value_json.seq }}}',
            },
        )
    )
    return messages
