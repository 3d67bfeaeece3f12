"""Launcher settings declared once — name, type, range, unit, default — checked with one-line errors, and read
(:func:`setting`) from a TOML table or a configuration object.

Each backend declares its :class:`Schema` beside its code (``backends/gpio/settings.py``,
``backends/serial/settings.py``, ``backends/virtual/params.py``). The daemon checks a configuration's
``[launcher]`` table against the chosen backend's schema when the file loads (:mod:`unolauncher.launcher.config_table`),
and the backend checks its settings object against the same schema when it is built (tests and tools build backends
directly).

The settings both hardware backends read are declared here once (:data:`SHARED`): a backend narrows one to its
hardware's limits with :meth:`Setting.within` (the co-processor's firmware accepts at most 10 s of motor run, the
GPIO backend 60 s), keeping its name, type and unit.

Runs on the thread that loads the configuration or builds a launcher; pure (no I/O, no gpiozero).

Example::

    >>> RETRACT_MS.problem(-5)
    'must be a whole number from 0 to 2000 ms, got -5'
    >>> schema = Schema("example", [RETRACT_MS.within(high=500, limit="firmware")])
    >>> schema.check({"retract_ms": 900}, "launcher.")
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: launcher.retract_ms must be a whole number from 0 to 500 ms (firmware), got 900
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from unolauncher.errors import ConfigError

Kind = Literal["int", "number", "bool", "text"]
_KEEP: Any = object()  # "not given" for Setting.within (None is a value: no lower or upper limit)


def setting(settings: Any, key: str, default: Any = None) -> Any:
    """``settings[key]`` or ``settings.key`` — one setting read from a mapping (a TOML table, a test's dict) or a
    configuration object — ``default`` when absent or ``None``.

    >>> setting({"retract_ms": 120}, "retract_ms"), setting({"retract_ms": None}, "retract_ms", 80)
    (120, 80)
    >>> setting(None, "retract_ms", 80)
    80
    """
    if settings is None:
        return default
    value = settings.get(key) if isinstance(settings, Mapping) else getattr(settings, key, None)
    return default if value is None else value


def shown(value: Any) -> str:
    """``repr(value)``, cut to 60 characters (a config value can be a megabyte of text)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class Setting:
    """One setting: its name, type (``int``, ``number``, ``bool``, ``text``), inclusive range, unit and default.

    Example::

        >>> Setting("max_run_s", "number", 6.0, low=0.1, high=60, unit="s").problem("fast")
        "must be a number from 0.1 to 60 s, got 'fast'"
    """

    name: str
    kind: Kind
    default: Any
    low: float | None = None
    high: float | None = None
    unit: str = ""
    limit: str = ""  # why the range is narrower than the setting's meaning allows, said in the error

    def within(self, low: Any = _KEEP, high: Any = _KEEP, default: Any = _KEEP, limit: str = "") -> Setting:
        """The same setting with a backend's own limits (and default)."""
        changes = {"low": low, "high": high, "default": default, "limit": limit}
        return replace(self, **{k: v for k, v in changes.items() if v is not _KEEP})

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (``"must be ..., got ..."``), or ``None`` when it is fine."""
        if self.kind == "bool":
            return None if isinstance(value, bool) else f"must be true or false, got {shown(value)}"
        if self.kind == "text":
            return None if isinstance(value, str) else f"must be a string, got {shown(value)}"
        whole = self.kind == "int"
        numeric = int if whole else int | float
        # NaN passes every comparison (max_run_s = nan once cut every run at once): only finite numbers
        ok = not isinstance(value, bool) and isinstance(value, numeric) and (whole or math.isfinite(value))
        if ok and self.low is not None and value < self.low:
            ok = False
        if ok and self.high is not None and value > self.high:
            ok = False
        if ok:
            return None
        what = "a whole number" if whole else "a number"
        unit = f" {self.unit}" if self.unit else ""
        if self.low is not None and self.high is not None:
            what += f" from {self.low:g} to {self.high:g}{unit}"
        elif self.low is not None:
            what += f" of at least {self.low:g}{unit}"
        elif self.unit:
            what += f" ({self.unit})"
        limit = f" ({self.limit})" if self.limit else ""
        return f"must be {what}{limit}, got {shown(value)}"


@dataclass(frozen=True)
class Rule:
    """A check across settings, e.g. ``settle_ms`` >= 40 when ``retract_ms`` > 0; ``key`` is the one named."""

    key: str
    ok: Callable[[Mapping[str, Any]], bool]
    message: str  # what the key must be, e.g. "must be at least 40 ms when retract_ms > 0 (...)"


class Schema:
    """The settings of one backend (or one table of settings), with the rules across them.

    Example::

        >>> schema = Schema("gpio", [RETRACT_MS, Setting("settle_ms", "int", 40, low=0, high=2000, unit="ms")],
        ...                 [Rule("settle_ms", lambda v: v["settle_ms"] >= 40 or v["retract_ms"] == 0, "must be ...")])
        >>> schema.defaults()
        {'retract_ms': 120, 'settle_ms': 40}
        >>> schema.check({"settle_ms": 10}, "launcher.")
        Traceback (most recent call last):
        unolauncher.errors.ConfigError: launcher.settle_ms = 10 must be ...
    """

    def __init__(self, name: str, settings: Iterable[Setting], rules: Iterable[Rule] = ()) -> None:
        self.name = name
        self.settings = {setting.name: setting for setting in settings}
        self.rules = tuple(rules)

    def __contains__(self, name: object) -> bool:
        return name in self.settings

    def __getitem__(self, name: str) -> Setting:
        return self.settings[name]

    def defaults(self) -> dict[str, Any]:
        return {name: setting.default for name, setting in self.settings.items()}

    def check(self, values: Mapping[str, Any], prefix: str, table: str | None = None, rules: bool = True) -> None:
        """Raise :class:`~unolauncher.errors.ConfigError` naming the first bad key of ``values`` (``None`` = unset,
        the default); keys this schema does not declare are refused only when ``table`` (its name) is given; the
        rules across settings are checked unless ``rules`` is false."""
        for key, value in values.items():
            if key not in self.settings:
                if table is not None:
                    raise ConfigError(f"unknown key {prefix}{key} (known in [{table}]: {', '.join(self.settings)})")
                continue
            if value is not None:
                problem = self.settings[key].problem(value)
                if problem is not None:
                    raise ConfigError(f"{prefix}{key} {problem}")
        if not rules:
            return
        merged = self.defaults()
        merged.update({k: v for k, v in values.items() if k in self.settings and v is not None})
        for rule in self.rules:
            if not rule.ok(merged):
                raise ConfigError(f"{prefix}{rule.key} = {shown(merged[rule.key])} {rule.message}")


# The settings both hardware backends read (GPIO here, the co-processor's firmware for serial), with the GPIO
# backend's limits and defaults; the serial backend narrows them to what its firmware accepts.
JAM_TIMEOUT_S = Setting("jam_timeout_s", "number", 1.5, low=0.05, high=60, unit="s")
MAX_RUN_S = Setting("max_run_s", "number", 6.0, low=0.1, high=60, unit="s")
RETRACT_MS = Setting("retract_ms", "int", 120, low=0, high=2000, unit="ms")
RETRACT_POWER = Setting("retract_power", "number", 0.6, low=0.0, high=1.0)
DEBOUNCE_MS = Setting("debounce_ms", "int", 30, low=0, high=1000, unit="ms")
MAGAZINE = Setting("magazine", "int", None, low=0, high=500, unit="cards")
SHARED = (JAM_TIMEOUT_S, MAX_RUN_S, RETRACT_MS, RETRACT_POWER, DEBOUNCE_MS, MAGAZINE)
