"""One settings schema per backend, used by both the configuration check at load and the backend itself (issue #15).

The GPIO and serial backends declare the settings they share once (``launcher/settings_schema.py``); the serial
backend only narrows them to its firmware's limits. Every limit is tried at its edge, inside and just outside,
through the daemon's configuration loader and through the backend, and both must give the same one-line answer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from unolauncher.daemon.config import parse_config
from unolauncher.errors import ConfigError
from unolauncher.launcher.backends.gpio.settings import GPIO_SETTINGS, DeviceSettings
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.settings import SERIAL_SETTINGS, SerialSettings, serial_settings_from
from unolauncher.launcher.backends.virtual.params import VIRTUAL_SETTINGS, VirtualParams
from unolauncher.launcher.settings_schema import SHARED, Schema, Setting

SERIAL = {"backend": "serial", "serial_port": "loop://"}


def edges(setting: Setting) -> list[tuple[Any, bool]]:
    """(value, accepted) at each end of the setting's range: the limit itself, and one step past it."""
    step = 1 if setting.kind == "int" else 0.001
    cases: list[tuple[Any, bool]] = []
    if setting.low is not None:
        cases += [(setting.low, True), (setting.low - step, False)]
    if setting.high is not None:
        cases += [(setting.high, True), (setting.high + step, False)]
    return [(int(v) if setting.kind == "int" else v, ok) for v, ok in cases]


def gpio_backend(values: dict[str, Any]) -> None:
    DeviceSettings(**{key: value for key, value in values.items() if key != "backend"})


def serial_backend(values: dict[str, Any]) -> None:
    serial_settings_from(values)


BACKENDS = [
    ("gpio", GPIO_SETTINGS, {"backend": "gpio"}, gpio_backend),
    ("serial", SERIAL_SETTINGS, SERIAL, serial_backend),
]
NO_RULE = {"settle_ms": {"retract_ms": 0}}  # settle_ms has a floor of 40 ms only when a retract follows
CASES = [
    pytest.param({**base, **NO_RULE.get(key, {}), key: value}, key, ok, build, id=f"{name}-{key}={value}")
    for name, schema, base, build in BACKENDS
    for key, setting in schema.settings.items()
    for value, ok in edges(setting)
]


def outcome(action: Any) -> str | None:
    try:
        action()
    except ConfigError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(("values", "key", "ok", "build"), CASES)
def test_each_limit_is_the_same_at_load_and_in_the_backend(
    values: dict[str, Any], key: str, ok: bool, build: Any
) -> None:
    at_load = outcome(lambda: parse_config({"launcher": values}))
    in_backend = outcome(lambda: build(values))
    assert at_load == in_backend, "the configuration check and the backend disagree"
    if ok:
        assert at_load is None
    else:
        assert at_load is not None and at_load.startswith(f"launcher.{key} ") and "\n" not in at_load


def test_the_settings_both_backends_read_are_declared_once() -> None:
    """Same name, type and unit on both backends; the serial backend's limits and defaults are its firmware's."""
    assert {s.name for s in SHARED} <= set(GPIO_SETTINGS.settings) & set(SERIAL_SETTINGS.settings)
    for shared in SHARED:
        gpio, serial = GPIO_SETTINGS[shared.name], SERIAL_SETTINGS[shared.name]
        assert gpio == shared, "the GPIO backend uses the shared declaration as it is"
        assert dataclasses.replace(serial, low=shared.low, high=shared.high, default=shared.default, limit="") == shared
    firmware = {  # key: (CONFIG field, scale)
        "jam_timeout_s": ("jam_ms", 1000),
        "max_run_s": ("max_run_ms", 1000),
        "retract_ms": ("retract_ms", 1),
        "retract_power": ("retract_power", 100),
        "debounce_ms": ("debounce_ms", 1),
    }
    for key, (field, scale) in firmware.items():
        setting = SERIAL_SETTINGS[key]
        assert (setting.low, setting.high) == tuple(limit / scale for limit in sp.DEVICE_LIMITS[field]), key
        assert setting.default * scale == getattr(sp.DeviceConfig(), field), key


@pytest.mark.parametrize(
    ("schema", "settings"),
    [(GPIO_SETTINGS, DeviceSettings()), (VIRTUAL_SETTINGS, VirtualParams())],
    ids=["gpio", "virtual"],
)
def test_the_backends_settings_objects_are_the_schema(schema: Schema, settings: Any) -> None:
    assert dataclasses.asdict(settings) == schema.defaults()


def test_the_serial_backend_without_settings_uses_the_schema_defaults() -> None:
    built = serial_settings_from({"serial_port": "loop://"})
    assert built.device == sp.DeviceConfig()
    assert built.baudrate == SERIAL_SETTINGS["baudrate"].default
    assert SerialSettings(port="loop://").heartbeat_s * 2000 <= SERIAL_SETTINGS["deadman_ms"].low  # type: ignore[operator]


def test_a_key_of_the_chosen_backend_follows_its_limits_not_the_others() -> None:
    parse_config({"launcher": {"backend": "gpio", "retract_ms": 900}})  # the GPIO backend takes 2 s
    with pytest.raises(ConfigError, match=r"launcher\.retract_ms .* 0 to 500 ms"):
        parse_config({"launcher": {**SERIAL, "retract_ms": 900}})
    parse_config({"launcher": {**SERIAL, "retract_ms": 120, "settle_ms": 10}})  # settle_ms: not the serial's rule


def test_the_virtual_table_is_checked_key_by_key() -> None:
    parse_config({"launcher": {"backend": "virtual", "virtual": {"jam_probability": 0.5, "seed": 3}}})
    with pytest.raises(ConfigError, match=r"^launcher\.virtual\.pulse_ms = 500 must be shorter than the gap"):
        parse_config({"launcher": {"virtual": {"pulse_ms": 500}}})
    with pytest.raises(ConfigError, match=r"^launcher\.virtual\.lid_open must be true or false, got 'no'$"):
        parse_config({"launcher": {"virtual": {"lid_open": "no"}}})
