"""The serial backend's settings: :data:`SERIAL_SETTINGS` (the ``[launcher]`` keys it reads, with the co-processor's
limits), :class:`SerialSettings` and :func:`serial_settings_from`.

The keys it shares with the GPIO backend are the same declarations
(:data:`unolauncher.launcher.settings_schema.SHARED`), narrowed to what the firmware accepts (``DEVICE_LIMITS`` of
the wire protocol, in its own small module) and with the firmware's defaults.

Runs on the thread that loads the configuration or builds the launcher (the daemon's main thread at start-up, or a
CLI); nothing here touches the port, and nothing imports pyserial.

Example::

    >>> settings = serial_settings_from({"serial_port": "loop://", "max_run_s": 4, "pins": {"sensor": -1}})
    >>> settings.port, settings.device.max_run_ms, settings.device.has_sensor
    ('loop://', 4000, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from unolauncher.launcher.backends.serial.device_config import DEVICE_LIMITS, DeviceConfig
from unolauncher.launcher.interface import require_in_range
from unolauncher.launcher.settings_schema import (
    DEBOUNCE_MS,
    JAM_TIMEOUT_S,
    MAGAZINE,
    MAX_RUN_S,
    RETRACT_MS,
    RETRACT_POWER,
    Schema,
    Setting,
    setting,
)

HEARTBEAT_S = 0.25  # STATUS request period; the dead-man time must be at least twice it
_FIRMWARE = "what the co-processor accepts"


def _firmware(shared: Setting, field: str, scale: int) -> Setting:
    """``shared`` with the firmware's limits and default for CONFIG ``field`` (in units of 1/``scale``)."""
    low, high = DEVICE_LIMITS[field]
    default = getattr(DeviceConfig, field)
    if scale == 1:
        return shared.within(low=low, high=high, default=default, limit=_FIRMWARE)
    return shared.within(low=low / scale, high=high / scale, default=default / scale, limit=_FIRMWARE)


SERIAL_SETTINGS = Schema(
    "serial",
    [
        _firmware(JAM_TIMEOUT_S, "jam_ms", 1000),
        _firmware(MAX_RUN_S, "max_run_ms", 1000),
        _firmware(RETRACT_MS, "retract_ms", 1),
        _firmware(RETRACT_POWER, "retract_power", 100),
        _firmware(DEBOUNCE_MS, "debounce_ms", 1),
        MAGAZINE,
        Setting(
            "deadman_ms",
            "int",
            DeviceConfig.deadman_ms,
            low=max(DEVICE_LIMITS["deadman_ms"][0], 2 * HEARTBEAT_S * 1000),
            high=DEVICE_LIMITS["deadman_ms"][1],
            unit="ms",
            limit=f"at least twice the {HEARTBEAT_S:g} s heartbeat, at most what the co-processor accepts",
        ),
        Setting("serial_port", "text", None),
        Setting("baudrate", "int", 115200, low=1, unit="bit/s"),
    ],
)


@dataclass(frozen=True)
class SerialSettings:
    """Where the co-processor is and how patient to be with it.

    Example::

        >>> settings = SerialSettings(port="/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode-if00", magazine=40)
        >>> settings.baudrate, settings.device.retract_ms  # the defaults
        (115200, 120)
    """

    port: str
    baudrate: int = 115200  # ignored by USB CDC, used by a real UART
    heartbeat_s: float = HEARTBEAT_S  # STATUS request period; must stay well under device.deadman_ms
    reply_timeout_s: float = 0.2  # a command unanswered this long is sent again (same seq)
    retries: int = 4
    link_timeout_s: float = 1.0  # nothing heard for this long: the link is lost
    reconnect_min_s: float = 0.2
    reconnect_max_s: float = 5.0
    magazine: int | None = None  # cards loaded after a refill (lid opened); None = unknown
    device: DeviceConfig = field(default_factory=DeviceConfig)

    def __post_init__(self) -> None:
        checks = [
            ("port", bool(self.port)),
            ("heartbeat_s", 0.01 <= self.heartbeat_s <= 10),
            ("reply_timeout_s", 0.005 <= self.reply_timeout_s <= 10),
            ("retries", 0 <= self.retries <= 50),
            ("link_timeout_s", self.link_timeout_s > self.heartbeat_s),
            ("reconnect_min_s", 0.001 <= self.reconnect_min_s <= self.reconnect_max_s),
            ("magazine", self.magazine is None or 0 <= self.magazine <= 500),
            ("device.deadman_ms", self.device.deadman_ms >= 2 * self.heartbeat_s * 1000),
        ]
        require_in_range("serial launcher", self, checks)


def serial_settings_from(settings: Any) -> SerialSettings:
    """Read the daemon's ``[launcher]`` settings (a mapping or an object with attributes).

    Keys: ``serial_port`` (or ``port``; a device path or any pyserial URL), and the rest of :data:`SERIAL_SETTINGS`
    - ``magazine``, the timing keys it shares with the GPIO launcher (``jam_timeout_s``, ``max_run_s``,
    ``retract_ms``, ``retract_power``, ``debounce_ms``), which are sent to the firmware, and the serial-only
    ``deadman_ms`` and ``baudrate``; ``pins.sensor = -1`` means no card sensor (open loop). A bad value raises
    :class:`~unolauncher.errors.ConfigError` (a ``ValueError``) naming the key.
    """

    get = partial(setting, settings)
    port = get("serial_port") or get("port")
    if not port or not isinstance(port, str):
        raise ValueError("the serial backend needs serial_port (a device such as /dev/ttyACM0 or a pyserial URL)")
    pins = get("pins", {})
    has_sensor = not (isinstance(pins, dict) and pins.get("sensor") == -1)
    given = {name: get(name) for name in SERIAL_SETTINGS.settings if name != "serial_port"}
    SERIAL_SETTINGS.check(given, "launcher.")
    value = {**SERIAL_SETTINGS.defaults(), **{k: v for k, v in given.items() if v is not None}}
    device = DeviceConfig(
        deadman_ms=value["deadman_ms"],
        max_run_ms=round(value["max_run_s"] * 1000),
        jam_ms=round(value["jam_timeout_s"] * 1000),
        retract_ms=value["retract_ms"],
        retract_power=round(value["retract_power"] * 100),
        has_sensor=has_sensor,
        debounce_ms=value["debounce_ms"],
    )
    return SerialSettings(port=port, baudrate=value["baudrate"], magazine=value["magazine"], device=device)
