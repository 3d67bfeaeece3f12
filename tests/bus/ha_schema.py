"""Home Assistant's MQTT discovery schemas, written out for the tests (keys, which are required, value types).

Taken from Home Assistant core, ``homeassistant/components/mqtt/`` (dev branch, 2025/2026):

- ``schemas.py``: ``DEVICE_DISCOVERY_SCHEMA`` (device-based discovery: ``device``, ``components`` and ``origin``
  required, only the shared options beside them), ``MQTT_ENTITY_DEVICE_INFO_SCHEMA`` (at least one of
  ``identifiers``/``connections``), ``MQTT_ORIGIN_INFO_SCHEMA`` (``name`` required), ``MQTT_AVAILABILITY_SCHEMA``,
  ``MQTT_ENTITY_COMMON_SCHEMA``, ``SHARED_OPTIONS``;
- ``config.py``: ``MQTT_BASE_SCHEMA``, ``MQTT_RO_SCHEMA`` (``state_topic`` required), ``MQTT_RW_SCHEMA``
  (``command_topic`` required);
- ``sensor.py``, ``binary_sensor.py``, ``button.py``, ``select.py``, ``switch.py``, ``event.py`` (``event_types``
  required), ``device_trigger.py`` (``TRIGGER_DISCOVERY_SCHEMA``);
- ``discovery.py``: how a device message is split into component configs (``platform`` removed, ``device`` and
  ``origin`` and the shared options copied in unless the component sets them).

Home Assistant *drops* unknown keys of a component (``extra=REMOVE_EXTRA``) without a word; these checks refuse them,
because a key HA drops is a key the daemon meant to set and did not. No Home Assistant code is used here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]


def text(value: Any) -> bool:
    return isinstance(value, str)


def boolean(value: Any) -> bool:
    return isinstance(value, bool)


def positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def qos(value: Any) -> bool:
    return value in (0, 1, 2)


def subscribe_topic(value: Any) -> bool:
    # util.valid_subscribe_topic: non-empty UTF-8, "+" and "#" only as whole levels ("#" last), no NUL.
    if not isinstance(value, str) or not value or "\0" in value:
        return False
    levels = value.split("/")
    for i, level in enumerate(levels):
        if ("+" in level or "#" in level) and level not in ("+", "#"):
            return False
        if level == "#" and i != len(levels) - 1:
            return False
    return True


def publish_topic(value: Any) -> bool:
    # util.valid_publish_topic: a subscribe topic without wildcards.
    return subscribe_topic(value) and "+" not in value and "#" not in value


def template(value: Any) -> bool:
    # cv.template: a string (compiled by the tests with Jinja2, see test_discovery.render).
    return isinstance(value, str)


def icon(value: Any) -> bool:
    # cv.icon: "prefix:name"
    return isinstance(value, str) and re.fullmatch(r"[a-z0-9_-]+:[a-z0-9-]+", value) is not None


def url(value: Any) -> bool:
    # cv.configuration_url: http(s) URL or homeassistant://
    return isinstance(value, str) and re.fullmatch(r"(https?://[^\s/]+(/\S*)?|homeassistant://\S*)", value) is not None


def str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def one_of(*options: str) -> Check:
    return lambda value: value in options


DEVICE_INFO: dict[str, Check] = {
    "identifiers": str_list,
    "connections": lambda v: isinstance(v, list) and all(isinstance(c, list) and len(c) == 2 for c in v),
    "manufacturer": text,
    "model": text,
    "model_id": text,
    "name": text,
    "hw_version": text,
    "serial_number": text,
    "sw_version": text,
    "via_device": text,
    "suggested_area": text,
    "configuration_url": url,
}
ORIGIN_INFO: dict[str, Check] = {"name": text, "sw_version": text, "support_url": url}
AVAILABILITY: dict[str, Check] = {
    "availability_topic": subscribe_topic,
    "availability_template": template,
    "payload_available": text,
    "payload_not_available": text,
    "availability_mode": one_of("all", "any", "latest"),
    "availability": lambda v: isinstance(v, list),
}
BASE: dict[str, Check] = {"qos": qos, "encoding": text, "group": str_list}
COMMON: dict[str, Check] = {
    **AVAILABILITY,
    "device": lambda v: not device_info_errors(v),
    "origin": lambda v: not origin_errors(v),
    "enabled_by_default": boolean,
    "entity_category": one_of("config", "diagnostic"),
    "entity_picture": url,
    "icon": icon,
    "json_attributes_topic": subscribe_topic,
    "json_attributes_template": template,
    "object_id": text,
    "default_entity_id": text,
    "unique_id": text,
}
RO: dict[str, Check] = {**BASE, "state_topic": subscribe_topic, "value_template": template}
RW: dict[str, Check] = {
    **BASE,
    "command_topic": publish_topic,
    "optimistic": boolean,
    "retain": boolean,
    "state_topic": subscribe_topic,
}

# platform -> (allowed keys with their checks, required keys)
PLATFORMS: dict[str, tuple[dict[str, Check], set[str]]] = {
    "sensor": (
        {
            **RO,
            **COMMON,
            "device_class": text,
            "expire_after": positive_int,
            "force_update": boolean,
            "last_reset_value_template": template,
            "name": text,
            "options": str_list,
            "suggested_display_precision": positive_int,
            "state_class": one_of("measurement", "measurement_angle", "total", "total_increasing"),
            "unit_of_measurement": text,
        },
        {"state_topic"},
    ),
    "binary_sensor": (
        {
            **RO,
            **COMMON,
            "device_class": one_of(
                "battery",
                "battery_charging",
                "carbon_monoxide",
                "cold",
                "connectivity",
                "door",
                "garage_door",
                "gas",
                "heat",
                "light",
                "lock",
                "moisture",
                "motion",
                "moving",
                "occupancy",
                "opening",
                "plug",
                "power",
                "presence",
                "problem",
                "running",
                "safety",
                "smoke",
                "sound",
                "tamper",
                "update",
                "vibration",
                "window",
            ),
            "expire_after": positive_int,
            "force_update": boolean,
            "name": text,
            "off_delay": positive_int,
            "payload_off": text,
            "payload_on": text,
        },
        {"state_topic"},
    ),
    "button": (
        {
            **BASE,
            **COMMON,
            "command_template": template,
            "command_topic": publish_topic,
            "device_class": one_of("identify", "restart", "update"),
            "name": text,
            "payload_press": text,
            "retain": boolean,
        },
        {"command_topic"},
    ),
    "select": (
        {**RW, **COMMON, "command_template": template, "name": text, "options": str_list, "value_template": template},
        {"command_topic", "options"},
    ),
    "switch": (
        {
            **RW,
            **COMMON,
            "command_template": template,
            "device_class": one_of("outlet", "switch"),
            "name": text,
            "payload_off": text,
            "payload_on": text,
            "state_off": text,
            "state_on": text,
            "value_template": template,
        },
        {"command_topic"},
    ),
    "event": (
        {**RO, **COMMON, "device_class": one_of("button", "doorbell", "motion"), "name": text, "event_types": str_list},
        {"state_topic", "event_types"},
    ),
    "device_automation": (
        {
            **BASE,
            "automation_type": one_of("trigger"),
            "device": lambda v: not device_info_errors(v),
            "origin": lambda v: not origin_errors(v),  # checked by discovery._valid_origin_info, then dropped
            "payload": text,
            "subtype": text,
            "topic": subscribe_topic,
            "type": text,
            "value_template": template,
        },
        {"automation_type", "device", "subtype", "topic", "type"},
    ),
}
# Options a device message may carry beside device/components/origin, copied into every component that does not
# set them (schemas.SHARED_OPTIONS, discovery._merge_common_device_options); qos/encoding are allowed there too.
SHARED_OPTIONS = (
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "command_topic",
    "payload_available",
    "payload_not_available",
    "state_topic",
)
DEVICE_MESSAGE: dict[str, Check] = {
    **AVAILABILITY,
    "device": lambda v: not device_info_errors(v),
    "origin": lambda v: not origin_errors(v),
    "components": lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v),
    "state_topic": subscribe_topic,
    "command_topic": publish_topic,
    "qos": qos,
    "encoding": text,
}
# Home Assistant's discovery topic: <prefix>/<component>/[<node_id>/]<object_id>/config, ids [a-zA-Z0-9_-].
# discovery.TOPIC_MATCHER, applied to the topic with "<prefix>/" removed.
TOPIC = re.compile(r"(?P<component>\w+)/(?:(?P<node_id>[a-zA-Z0-9_-]+)/)?(?P<object_id>[a-zA-Z0-9_-]+)/config")


def _errors(config: dict[str, Any], allowed: dict[str, Check], required: set[str], where: str) -> list[str]:
    problems = [f"{where}: {key} is required" for key in sorted(required) if key not in config]
    for key, value in config.items():
        check = allowed.get(key)
        if check is None:
            problems.append(f"{where}: {key} is not a known option (Home Assistant would drop it)")
        elif not check(value):
            problems.append(f"{where}: {key}={value!r} is not valid")
    return problems


def device_info_errors(device: Any) -> list[str]:
    if not isinstance(device, dict):
        return ["device must be an object"]
    problems = _errors(device, DEVICE_INFO, set(), "device")
    if not device.get("identifiers") and not device.get("connections"):
        problems.append("device needs identifiers or connections")
    return problems


def origin_errors(origin: Any) -> list[str]:
    if not isinstance(origin, dict):
        return ["origin must be an object"]
    return _errors(origin, ORIGIN_INFO, {"name"}, "origin")


def component_errors(platform: str, config: dict[str, Any], where: str) -> list[str]:
    if platform not in PLATFORMS:
        return [f"{where}: platform {platform!r} is not one this project uses"]
    allowed, required = PLATFORMS[platform]
    problems = _errors(config, allowed, required, f"{where} ({platform})")
    if platform == "switch" and "value_template" in config and not {"state_on", "state_off"} <= set(config):
        # state_on/state_off default to payload_on/payload_off: a template's ON/OFF would match neither.
        problems.append(f"{where}: a switch whose template renders ON/OFF needs state_on/state_off")
    return problems


def split_device_message(payload: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """What Home Assistant makes of a device message: object id -> (platform, component config)."""
    split: dict[str, tuple[str, dict[str, Any]]] = {}
    for object_id, component in payload["components"].items():
        config = dict(component)
        platform = config.pop("platform")
        config["device"], config["origin"] = payload["device"], payload["origin"]
        for option in SHARED_OPTIONS:
            if option in payload and option not in config:
                config[option] = payload[option]
        if platform == "device_automation":  # TRIGGER_DISCOVERY_SCHEMA removes what is not a trigger's
            config = {k: v for k, v in config.items() if k in PLATFORMS[platform][0]}
        split[object_id] = (platform, config)
    return split


def discovery_errors(topic: str, payload: Any, prefix: str = "homeassistant") -> list[str]:
    """Every problem Home Assistant would have with one discovery message (an empty list: it would take it)."""
    match = TOPIC.fullmatch(topic.removeprefix(f"{prefix}/")) if topic.startswith(f"{prefix}/") else None
    if match is None:
        return [f"{topic}: not a discovery topic under {prefix}/"]
    if not isinstance(payload, dict):
        return [f"{topic}: the payload is not a JSON object"]
    if match["component"] == "device":
        problems = _errors(payload, DEVICE_MESSAGE, {"device", "components", "origin"}, topic)
        for object_id, component in payload.get("components", {}).items():
            if not isinstance(component, dict) or "platform" not in component:
                problems.append(f"{topic}: component {object_id} needs a platform")
        if problems:
            return problems
        for object_id, (platform, config) in split_device_message(payload).items():
            problems += component_errors(platform, config, f"{topic} {object_id}")
        return problems
    return component_errors(match["component"], payload, topic)
