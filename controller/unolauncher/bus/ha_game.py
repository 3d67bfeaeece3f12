"""The game as Home Assistant entities, and one device trigger per interesting event (part of the discovery device,
see :mod:`unolauncher.bus.discovery`).

The game entities read the table's retained public state (``unolauncher/<table>/state``), so they hold their value
between events, Home Assistant's history graphs follow the game, and a dashboard card can show the table: phase and
direction (enum sensors), round, scores (the leader's score, with every player's score as attributes), the game's
winner, the top card and the colour in play. The last refusal (``unolauncher/<table>/refusal``, published by
:class:`~unolauncher.daemon.mqtt_output.MqttOutput`) makes a refused command visible, which Home Assistant's own
commands (no ``id``) could not see before.

Device triggers (:data:`TRIGGERS`) fire on the ``events`` topic: each one's template turns an event into its trigger
name, and Home Assistant fires the trigger whose ``payload`` matches; automations need no template of their own.

Example::

    >>> from unolauncher.bus.topics import Topics
    >>> comps = game_components(Topics("kitchen"))
    >>> comps["phase"]["options"]
    ['idle', 'playing', 'scoring', 'between', 'over']
    >>> sorted(event_triggers(Topics("kitchen")))[:3]
    ['trigger_big_hit', 'trigger_caught', 'trigger_game_over']
"""

from __future__ import annotations

from typing import Any

from unolauncher.bus.topics import Topics

PHASES = ["idle", "playing", "scoring", "between", "over"]  # rules/state.py
DIRECTIONS = ["clockwise", "counterclockwise"]
BIG_HIT_CARDS = 5  # a hit of this many cards or more is a big hit

# trigger name -> what it means (docs/home-assistant.md); the template below maps events to these names
TRIGGERS: dict[str, str] = {
    "round_ended": "a round was scored",
    "game_over": "a player reached the target score",
    "went_out": "a player's hand is empty",
    "caught": "a player was caught without UNO",
    "big_hit": f"a hit of {BIG_HIT_CARDS} cards or more",
    "jam": "cards jammed in the launcher",
    "launcher_empty": "no card came out: the launcher is empty",
    "launcher_disabled": "the emergency stop",
}

# One template for every trigger: the event's trigger name (or its type, which matches no other trigger's payload).
TRIGGER_TEMPLATE = (
    "{% set t = value_json.type %}"
    f"{{% if t == 'hit' and (value_json.cards | int(0)) >= {BIG_HIT_CARDS} %}}big_hit"
    "{% elif t == 'magazine_empty' %}launcher_empty"
    "{% else %}{{ t }}{% endif %}"
)


def game_components(topics: Topics) -> dict[str, dict[str, Any]]:
    """The game's entities, keyed by object id (without ``unique_id``: :func:`discovery.components` adds it)."""
    state = {"state_topic": topics.state}
    return {
        "phase": {
            "platform": "sensor",
            "name": "Phase",
            **state,
            "device_class": "enum",
            "options": PHASES,
            "value_template": "{{ value_json.phase }}",
            "icon": "mdi:progress-clock",
        },
        "round": {
            "platform": "sensor",
            "name": "Round",
            **state,
            "value_template": "{{ value_json.round }}",
            "icon": "mdi:counter",
        },
        "scores": {
            "platform": "sensor",
            "name": "Leading score",
            **state,
            "unit_of_measurement": "points",
            "state_class": "measurement",
            "icon": "mdi:scoreboard",
            "value_template": "{{ (value_json.scores.values() | list | max) if value_json.scores else None }}",
            "json_attributes_topic": topics.state,
            "json_attributes_template": "{{ value_json.scores | tojson }}",
        },
        "winner": {
            "platform": "sensor",
            "name": "Winner",
            **state,
            "value_template": "{{ value_json.winner }}",
            "icon": "mdi:trophy",
        },
        "top_card": {
            "platform": "sensor",
            "name": "Top card",
            **state,
            "value_template": "{{ value_json.top }}",
            "icon": "mdi:cards-outline",
        },
        "color": {
            "platform": "sensor",
            "name": "Colour",
            **state,
            "value_template": "{{ value_json.color }}",
            "icon": "mdi:palette",
        },
        "direction": {
            "platform": "sensor",
            "name": "Direction",
            **state,
            "device_class": "enum",
            "options": DIRECTIONS,
            "icon": "mdi:rotate-right",
            "value_template": "{{ 'counterclockwise' if value_json.direction == -1 else 'clockwise' }}",
        },
        "last_refusal": {
            "platform": "sensor",
            "name": "Last refusal",
            "state_topic": topics.refusal,
            "value_template": "{{ value_json.code }}",
            "json_attributes_topic": topics.refusal,
            "icon": "mdi:alert-circle-outline",
        },
    }


def event_triggers(topics: Topics) -> dict[str, dict[str, Any]]:
    """One device trigger per entry of :data:`TRIGGERS`, on the ``events`` topic at QoS 1."""
    return {
        f"trigger_{name}": {
            "platform": "device_automation",
            "automation_type": "trigger",
            "topic": topics.events,
            "type": name,
            "subtype": "game",
            "payload": name,
            "value_template": TRIGGER_TEMPLATE,
            "qos": 1,
        }
        for name in TRIGGERS
    }
