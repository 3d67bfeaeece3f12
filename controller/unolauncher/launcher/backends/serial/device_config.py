"""The co-processor's CONFIG values: their defaults (:class:`DeviceConfig`), the firmware's limits
(:data:`DEVICE_LIMITS`) and their wire layout (:data:`CONFIG_FMT`); part of the wire protocol
(:mod:`~unolauncher.launcher.backends.serial.protocol` re-exports all three).

A module of its own because reading the configuration needs them (the serial backend's settings schema, checked
whatever the backend) while only a daemon with ``backend = "serial"`` needs the rest of the protocol: a daemon on
GPIO or the virtual launcher does not load the frame codec and its COBS library (docs/performance.md, "Daemon RSS").

Example::

    >>> DeviceConfig().max_run_ms, DEVICE_LIMITS["max_run_ms"]
    (4000, (100, 10000))
    >>> len(DeviceConfig().encode()) == struct.calcsize(CONFIG_FMT)
    True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

CONFIG_FMT = ">HHHHBBB"

# The firmware's ceilings for every CONFIG value, inclusive (firmware/unofw/runner.py LIMITS; both are checked
# against firmware/test_vectors.json). The host refuses a configuration outside them before it reaches the wire.
DEVICE_LIMITS: dict[str, tuple[int, int]] = {
    "deadman_ms": (100, 5000),
    "max_run_ms": (100, 10000),
    "jam_ms": (50, 5000),
    "retract_ms": (0, 500),
    "retract_power": (0, 100),
    "has_sensor": (0, 1),
    "debounce_ms": (0, 100),
}


@dataclass(frozen=True)
class DeviceConfig:
    """What the host tells the firmware after each handshake (CONFIG)."""

    deadman_ms: int = 1500
    max_run_ms: int = 4000
    jam_ms: int = 800
    retract_ms: int = 120
    retract_power: int = 60
    has_sensor: bool = True
    debounce_ms: int = 25

    def encode(self) -> bytes:
        return struct.pack(
            CONFIG_FMT,
            self.deadman_ms,
            self.max_run_ms,
            self.jam_ms,
            self.retract_ms,
            self.retract_power,
            1 if self.has_sensor else 0,
            self.debounce_ms,
        )
