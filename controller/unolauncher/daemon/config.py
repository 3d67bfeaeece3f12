"""The daemon's configuration: a TOML file, every key known, every bad key refused by name.

``docs/configuration.md`` documents each key; :data:`SCHEMA` is the single source of the names, types and
defaults. A missing default file means "all defaults" (a developer's machine); a file given explicitly must exist.

Example::

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "config.toml"  # the daemon reads /etc/unolauncher/config.toml
    >>> _ = path.write_text('[table]\\nid = "kitchen"\\n')
    >>> config = load_config(path)
    >>> config.table.id, config.broker.port  # what the file sets, and a default
    ('kitchen', 1883)
    >>> _ = path.write_text('[broker]\\nport = "1883"\\n')
    >>> load_config(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: broker.port must be ...
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unolauncher.errors import ConfigError
from unolauncher.launcher.config_table import BACKEND_KEYS, DEFAULT_MAGAZINE, check_launcher_settings
from unolauncher.rules.ejection import MS_PER_CARD_RANGE, PRESETS
from unolauncher.toml_file import CONFIG_PATH, read_toml
from unolauncher.voice.settings import VOICE_SCHEMA, VoiceSettings

DEFAULT_PATH = CONFIG_PATH


def _port(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ConfigError(f"{key} must be a port number 0-65535 (0 = pick a free port), got {value!r}")
    return value


def _str(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string, got {value!r}")
    return value


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    return value


def _int(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer, got {value!r}")
    return value


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{key} must be a number, got {value!r}")  # nan and inf pass range checks otherwise
    return value


def _table(key: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a table ({{ key = value, ... }}), got {value!r}")
    return value


def _stall_timeout(key: str, value: Any) -> float:
    value = _number(key, value)
    if not 0.5 <= value <= 300:
        raise ConfigError(f"{key} must be between 0.5 and 300 seconds, got {value!r}")
    return float(value)


def _choice(*options: str) -> Any:
    def check(key: str, value: Any) -> str:
        if value not in options:
            raise ConfigError(f"{key} must be one of {', '.join(options)}, got {value!r}")
        return str(value)

    return check


def _journal_sync(key: str, value: Any) -> str:
    if value == "normal":
        raise ConfigError(
            f'{key} = "normal" is no longer offered: in a power cut it lost events that phones had already seen, '
            f"and the restarted table gave their numbers to other events; remove the key (every commit is synced)"
        )
    return str(_choice("full")(key, value))


def _keep_days(key: str, value: Any) -> int:
    value = _int(key, value)
    if value < 0:
        raise ConfigError(f"{key} must be a number of days, 0 or more (0 keeps every game), got {value!r}")
    return value


def _megabytes(key: str, value: Any) -> float:
    value = _number(key, value)  # fractions too: a test's budget is a few hundred KiB
    if not 0 <= value <= 1_000_000:
        raise ConfigError(f"{key} must be a number of MB from 0 to 1000000 (0: never prune by size), got {value!r}")
    return float(value)


def _table_id(key: str, value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", value):
        raise ConfigError(f"{key} must be 1-64 letters, digits, '-' or '_' (it is an MQTT topic level), got {value!r}")
    return value


# Checks for values that a broker or paho would take and then fail on quietly, leaving a daemon "ready" but deaf.


def _int_range(low: int, high: int, unit: str = "") -> Any:
    def check(key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{key} must be a whole number from {low} to {high}{unit}, got {_shown(value)}")
        return value

    return check


def _text(max_len: int, what: str, pattern: str | None = None) -> Any:
    """A string of 1-``max_len`` printable characters (and matching ``pattern`` if given)."""

    def check(key: str, value: Any) -> str:
        if (
            not isinstance(value, str)
            or not 0 < len(value) <= max_len
            or not value.isprintable()
            or (pattern is not None and not re.fullmatch(pattern, value))
        ):
            raise ConfigError(f"{key} must be {what} (at most {max_len} characters), got {_shown(value)}")
        return value

    return check


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _preset(key: str, value: Any) -> str:
    if value not in PRESETS:
        raise ConfigError(f"{key} must be one of {', '.join(PRESETS)}, got {_shown(value)}")
    return str(value)


def _custom_table(key: str, value: Any) -> dict[str, Any]:
    from unolauncher.rules.validation import custom_table_problem

    table = _table(key, value)
    problem = custom_table_problem(table)
    if problem is not None:
        raise ConfigError(f"{key}: {problem}")
    return table


_PATH = _text(4096, "a file path")
_HOST = _text(253, "a host name or address", r"[^\s/]+")


def _discovery_prefix(key: str, value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*", value):
        raise ConfigError(f'{key} must be an MQTT topic without wildcards (e.g. "homeassistant"), got {value!r}')
    return value


def _origins(key: str, value: Any) -> list[str]:
    pattern = r"https?://[A-Za-z0-9.\[\]:-]+"
    if (
        not isinstance(value, list)
        or len(value) > 64
        or not all(isinstance(v, str) and re.fullmatch(pattern, v) for v in value)
    ):
        raise ConfigError(
            f'{key} must be a list of at most 64 origins like "http://table.local:8080" (scheme://host[:port]), '
            f"got {value!r:.200}"
        )
    return list(value)


def _http_url(key: str, value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
        raise ConfigError(f"{key} must be an http:// or https:// address, got {value!r}")
    return value


def _by_backend(key: str, value: Any) -> Any:
    """Checked once the whole ``[launcher]`` table is read, against the chosen backend's schema
    (:func:`unolauncher.launcher.config_table.check_launcher_settings`): the backend may be named after the key."""
    return value


def _seconds(key: str, value: Any) -> float:
    value = _number(key, value)
    if not 0.05 <= value <= 3600:
        raise ConfigError(f"{key} must be between 0.05 and 3600 seconds, got {value!r}")
    return float(value)


# section -> key -> checker. Defaults live in the dataclasses below (None means "not set"); a test keeps the two
# in step.
SCHEMA: dict[str, dict[str, Any]] = {
    "table": {
        "id": _table_id,
        "state_dir": _PATH,
        "lockout": _bool,
        "journal_sync": _journal_sync,  # kept so that existing files with "full" still load
        "journal_keep_days": _keep_days,
        "journal_min_free_mb": _int_range(0, 1_000_000, " MB"),
        "journal_max_mb": _int_range(0, 1_000_000, " MB"),
        "journal_budget_mb": _megabytes,
        "stall_timeout_s": _stall_timeout,
    },
    "broker": {
        "embedded": _bool,
        "host": _HOST,
        "port": _port,
        "ws_port": _port,
        "ws_url": _text(512, "a ws:// or wss:// URL", r"wss?://\S+"),
        "ws_origins": _origins,
        "listen": _HOST,
        "username": _text(256, "printable text"),
        "password": _text(1024, "printable text"),
        "password_file": _PATH,
        "tls": _bool,
        "ca_file": _PATH,
        "cert_file": _PATH,
        "key_file": _PATH,
        "tls_insecure": _bool,
        "protocol": _choice("auto", "5", "3.1.1"),
        "keepalive": _int_range(1, 65535, " s (MQTT's limit)"),
        "client_id": _text(128, "printable text without spaces", r"\S+"),
        "reconnect_min": _int_range(1, 60, " s"),
        "reconnect_max": _int_range(1, 600, " s"),
    },
    # The backend's own keys (_by_backend) are checked against its schema, beside its code (launcher/config_table.py).
    "launcher": {
        "backend": _choice("auto", "virtual", "gpio", "serial"),
        "preset": _preset,
        "custom": _custom_table,
        "ms_per_card": _int_range(*MS_PER_CARD_RANGE, " ms"),
        "seed": _int_range(0, 2**63 - 1),
        "allow_rigged": _bool,
        "pins": _table,
        "pins_file": _PATH,
        "pin_factory": _str,
        "board_revision": _text(8, 'a Raspberry Pi revision code in hex, e.g. "c03111"', r"[0-9a-fA-F]{4,8}"),
        **dict.fromkeys(BACKEND_KEYS, _by_backend),  # magazine, the timings, serial_port, baudrate, deadman_ms, ...
        "virtual": _table,
    },
    "dashboard": {
        "enabled": _bool,
        "host": _HOST,
        "port": _port,
    },
    "homeassistant": {
        "enabled": _bool,
        "prefix": _discovery_prefix,
        "discovery": _choice("device", "entity"),
        "configuration_url": _http_url,
        "diagnostics_s": _seconds,
    },
    "voice": VOICE_SCHEMA,  # the box speaks (voice/settings.py, docs/voice.md)
}


@dataclass
class TableConfig:
    id: str = "table1"
    state_dir: str = "/var/lib/unolauncher"
    lockout: bool = True
    journal_sync: str = "full"
    journal_keep_days: int = 30
    journal_min_free_mb: int = 64  # no new game with less free on the journal's disk (at most a tenth of the disk)
    journal_max_mb: int = 512  # nor with a journal larger than this (0: no limit)
    journal_budget_mb: float = 256  # finished games are pruned, oldest first, past this much journal (0: never)
    stall_timeout_s: float = 10.0


@dataclass
class BrokerConfig:
    embedded: bool | None = None
    host: str | None = None
    port: int = 1883
    ws_port: int = 9001
    ws_url: str | None = None
    ws_origins: list[str] = field(default_factory=list)  # pages (besides the dashboard) allowed on the WebSocket
    listen: str = "127.0.0.1"
    username: str | None = None
    password: str | None = None
    password_file: str | None = None
    tls: bool = False
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    tls_insecure: bool = False
    protocol: str = "auto"
    keepalive: int = 30
    client_id: str | None = None
    reconnect_min: int = 1
    reconnect_max: int = 30

    @property
    def use_embedded(self) -> bool:
        """Embedded broker unless one is configured: ``embedded`` wins, else "no ``host`` given"."""
        return self.embedded if self.embedded is not None else self.host is None


@dataclass
class LauncherConfig:
    backend: str = "auto"
    preset: str = "classic"
    custom: dict[str, Any] | None = None
    ms_per_card: int | None = None  # measured by `unolauncher selftest --calibrate`
    seed: int | None = None  # rigs every game (only with allow_rigged)
    allow_rigged: bool = False  # accept seed / launcher.seed / launcher.script / a full-mode deal from commands
    magazine: int = DEFAULT_MAGAZINE
    pins: dict[str, Any] | None = None
    pins_file: str | None = None
    pin_factory: str | None = None
    board_revision: str | None = None  # gpiozero's board when the kernel names none (a VM's gpio-sim chip)
    serial_port: str | None = None
    baudrate: int | None = None
    deadman_ms: int | None = None
    jam_timeout_s: float | None = None
    max_run_s: float | None = None
    settle_ms: int | None = None
    retract_ms: int | None = None
    retract_power: float | None = None
    debounce_ms: int | None = None
    lid_debounce_ms: int | None = None
    beam_min_gap_ms: int | None = None
    pwm_frequency: int | None = None
    virtual: dict[str, Any] | None = None


@dataclass
class DashboardConfig:
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8080


@dataclass
class HomeAssistantConfig:
    enabled: bool = True
    prefix: str = "homeassistant"
    discovery: str = "device"
    configuration_url: str | None = None
    diagnostics_s: float = 10.0


@dataclass
class Config:
    """The whole configuration (defaults for everything)."""

    table: TableConfig = field(default_factory=TableConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    launcher: LauncherConfig = field(default_factory=LauncherConfig)
    dashboard: DashboardConfig = field(default_factory=DashboardConfig)
    homeassistant: HomeAssistantConfig = field(default_factory=HomeAssistantConfig)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    source: str = "defaults"


def parse_config(data: dict[str, Any], source: str = "config") -> Config:
    """Check a parsed TOML document against :data:`SCHEMA`; raise :class:`ConfigError` naming the first bad key."""
    config = Config(source=source)
    for section, values in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"unknown section [{section}] (known: {', '.join(SCHEMA)})")
        if not isinstance(values, dict):
            raise ConfigError(f"{section} must be a [{section}] table, got {values!r}")
        target = getattr(config, section)
        for key, value in values.items():
            if key not in SCHEMA[section]:
                known = ", ".join(SCHEMA[section])
                raise ConfigError(f"unknown key {section}.{key} (known in [{section}]: {known})")
            checker = SCHEMA[section][key]
            setattr(target, key, checker(f"{section}.{key}", value))
    check_launcher_settings(vars(config.launcher))
    broker = config.broker
    if broker.embedded is False and broker.host is None:
        raise ConfigError("broker.host must be set when broker.embedded is false")
    if broker.reconnect_max < broker.reconnect_min:
        raise ConfigError("broker.reconnect_max must not be smaller than broker.reconnect_min")
    if broker.password is not None and broker.password_file is not None:
        raise ConfigError("broker.password and broker.password_file are exclusive; set only one")
    if config.launcher.preset == "custom" and config.launcher.custom is None:
        raise ConfigError('launcher.custom must be set when launcher.preset is "custom" (docs/ejection.md)')
    if config.launcher.seed is not None and not config.launcher.allow_rigged:
        raise ConfigError(
            "launcher.seed makes every game's launcher outcomes predictable; it needs launcher.allow_rigged = true"
        )
    return config


def load_config(path: Path | None) -> Config:
    """Load ``path``; with ``None`` use :data:`DEFAULT_PATH` if it exists, else defaults.

    An explicitly named file that does not exist is an error.
    """
    if path is None:
        if not DEFAULT_PATH.exists():
            return Config(source="defaults (no /etc/unolauncher/config.toml)")
        path = DEFAULT_PATH
    return parse_config(read_toml(path), source=str(path))
