"""The serial backend's settings: :class:`SerialSettings` and how they are read from the daemon's ``[launcher]``.

Runs on the thread that builds the launcher (the daemon's main thread at start-up, or a CLI); nothing here
touches the port.

Example::

    >>> settings = serial_settings_from({"serial_port": "loop://", "max_run_s": 4, "pins": {"sensor": -1}})
    >>> settings.port, settings.device.max_run_ms, settings.device.has_sensor
    ('loop://', 4000, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.interface import require_in_range
from unolauncher.launcher.setting import setting


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
    heartbeat_s: float = 0.25  # STATUS request period; must stay well under device.deadman_ms
    reply_timeout_s: float = 0.2  # a command unanswered this long is sent again (same seq)
    retries: int = 4
    link_timeout_s: float = 1.0  # nothing heard for this long: the link is lost
    reconnect_min_s: float = 0.2
    reconnect_max_s: float = 5.0
    magazine: int | None = None  # cards loaded after a refill (lid opened); None = unknown
    device: sp.DeviceConfig = field(default_factory=sp.DeviceConfig)

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

    Keys: ``serial_port`` (or ``port``; a device path or any pyserial URL), ``magazine``, and the same
    timing keys as the GPIO launcher - ``jam_timeout_s``, ``max_run_s``, ``retract_ms``, ``retract_power``,
    ``debounce_ms`` - which are sent to the firmware; ``deadman_ms`` and ``baudrate`` are serial-only;
    ``pins.sensor = -1`` means no card sensor (open loop). A bad value raises ``ValueError`` naming the key.
    """

    get = partial(setting, settings)
    port = get("serial_port") or get("port")
    if not port or not isinstance(port, str):
        raise ValueError("the serial backend needs serial_port (a device such as /dev/ttyACM0 or a pyserial URL)")
    pins = get("pins", {})
    has_sensor = not (isinstance(pins, dict) and pins.get("sensor") == -1)
    base = sp.DeviceConfig()

    def ms(key: str, scale: float, field: str) -> int:
        value = get(key)
        if value is None:
            return int(getattr(base, field))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"launcher setting {key} must be a number, got {value!r}")
        result = round(value * scale)
        low, high = sp.DEVICE_LIMITS[field]
        if not low <= result <= high:
            raise ValueError(f"launcher setting {key}={value!r} is outside what the co-processor accepts "
                             f"({low / scale:g} to {high / scale:g})")
        return result

    device = sp.DeviceConfig(
        deadman_ms=ms("deadman_ms", 1, "deadman_ms"),
        max_run_ms=ms("max_run_s", 1000, "max_run_ms"),
        jam_ms=ms("jam_timeout_s", 1000, "jam_ms"),
        retract_ms=ms("retract_ms", 1, "retract_ms"),
        retract_power=ms("retract_power", 100, "retract_power"),
        has_sensor=has_sensor,
        debounce_ms=ms("debounce_ms", 1, "debounce_ms"),
    )
    magazine = get("magazine")
    return SerialSettings(port=port, baudrate=int(get("baudrate", 115200)), magazine=magazine, device=device)
