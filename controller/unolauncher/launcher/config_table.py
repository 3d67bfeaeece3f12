"""The launcher's part of the configuration: the ``[launcher]`` keys each backend reads, checked against that
backend's schema when the configuration loads, so that a bad value stops start-up naming the key.

Which schema: ``backend = "serial"`` uses the serial backend's
(:data:`~unolauncher.launcher.backends.serial.settings.SERIAL_SETTINGS`); ``gpio``, ``virtual`` and ``auto`` (the
GPIO code on real or mock pins) use the GPIO backend's
(:data:`~unolauncher.launcher.backends.gpio.settings.GPIO_SETTINGS`). A key that only the other backend reads
(``serial_port`` while ``backend = "gpio"``) is still checked against the schema that declares it, so a value is
never accepted by one backend's check and refused by the other's when the backend changes. The
``[launcher.virtual]`` table is checked against the simulated toy's schema, unknown keys included.

Runs on the thread that loads the configuration (the daemon's main thread, a CLI). Imports no gpiozero, no
pyserial.

Example::

    >>> check_launcher_settings({"backend": "serial", "retract_ms": 300})  # fine for the co-processor
    >>> check_launcher_settings({"backend": "serial", "retract_ms": 900})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: launcher.retract_ms must be a whole number from 0 to 500 ms (...), got 900
    >>> check_launcher_settings({"backend": "gpio", "retract_ms": 900})  # the GPIO backend has no such limit
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unolauncher.errors import ConfigError
from unolauncher.launcher.backends.gpio.settings import GPIO_SETTINGS
from unolauncher.launcher.backends.serial.settings import SERIAL_SETTINGS
from unolauncher.launcher.backends.virtual.params import VIRTUAL_SETTINGS
from unolauncher.launcher.settings_schema import Schema
from unolauncher.toml_file import read_toml

PREFIX = "launcher."
DEFAULT_MAGAZINE = 40  # the daemon's [launcher] magazine when the file sets none (a backend alone: unknown)
SCHEMAS = (GPIO_SETTINGS, SERIAL_SETTINGS)
# Every [launcher] key a backend declares (the daemon offers exactly these, beside its own keys).
BACKEND_KEYS: tuple[str, ...] = tuple(dict.fromkeys(name for schema in SCHEMAS for name in schema.settings))


def schema_for(backend: str) -> Schema:
    """The schema of the backend that ``backend`` (a ``[launcher] backend`` value) runs."""
    return SERIAL_SETTINGS if backend == "serial" else GPIO_SETTINGS


def check_launcher_settings(values: Mapping[str, Any]) -> None:
    """Raise :class:`~unolauncher.errors.ConfigError` naming the first bad backend key of a ``[launcher]`` table
    (keys that are ``None`` are unset; keys no backend declares are left to the caller)."""
    chosen = schema_for(values.get("backend") or "auto")
    chosen.check({k: v for k, v in values.items() if k in chosen}, PREFIX)
    for schema in SCHEMAS:
        if schema is not chosen:
            others = {k: v for k, v in values.items() if k in schema and k not in chosen}
            schema.check(others, PREFIX, rules=False)  # its rules are about its own run; this one will not run
    virtual = values.get("virtual")
    if virtual is not None:
        if not isinstance(virtual, Mapping):
            raise ConfigError(f"{PREFIX}virtual must be a table ({{ key = value, ... }}), got {virtual!r}")
        VIRTUAL_SETTINGS.check(virtual, f"{PREFIX}virtual.", table="launcher.virtual")


def read_launcher_settings(path: Path) -> dict[str, Any]:
    """The ``[launcher]`` table of the configuration file at ``path``, checked as the daemon checks it (for
    ``selftest --calibrate``, which builds the launcher the daemon would build)."""
    table = read_toml(path).get("launcher", {})
    if not isinstance(table, dict):
        raise ConfigError(f"launcher must be a [launcher] table, got {table!r}")
    check_launcher_settings(table)
    return {"magazine": DEFAULT_MAGAZINE, **table}
