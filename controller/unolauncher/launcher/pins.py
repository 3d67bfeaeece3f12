"""Pin maps: which BCM GPIO drives or reads each part of the launcher, with the safety checks.

The default map lives in ``hardware/pins.toml`` (documentation) and in :data:`DEFAULT_PINS` (what the code uses,
so an installed package needs no data file); a test keeps the two identical. A configuration may override single
entries; -1 (or ``None``) marks an optional part as not fitted.

Refused, each with a one-sentence :class:`PinMapError`: unknown roles, numbers outside GPIO 0-27, two roles on
one pin, the reserved pins (0/1 HAT EEPROM, 14/15 UART), a missing required part, and outputs on GPIO 0-8
(they are pulled *up* while the Pi boots, which would start the motor or sound the buzzer).

Example::

    >>> pins = resolve_pins({"button": 5})
    >>> assert pins.button == 5 and pins.motor_enable == 12
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from unolauncher.errors import UnolauncherError


class PinMapError(UnolauncherError, ValueError):
    """A pin map that must not be used; the message says what is wrong in one sentence."""


REQUIRED_ROLES = ("motor_enable", "motor_forward", "motor_reverse", "button")
OPTIONAL_ROLES = ("sensor", "lid", "uno", "led", "buzzer", "heartbeat")
ROLES = REQUIRED_ROLES + OPTIONAL_ROLES
OUTPUT_ROLES = frozenset({"motor_enable", "motor_forward", "motor_reverse", "led", "buzzer", "heartbeat"})
# The dead-man heartbeat may sit on GPIO 0-8: a line pulled high at boot is a level, not edges, so the dead-man
# keeps the driver disabled (the boot rule below protects the outputs whose *level* starts something).
BOOT_LEVEL_HARMLESS = frozenset({"heartbeat"})
DRIVER_ROLES = ("motor_enable", "motor_forward", "motor_reverse")  # the motor driver's inputs
JIG_ROLES = ("button", "sensor", "lid", "motor_enable", "motor_forward", "motor_reverse")

RESERVED = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)", 14: "the UART (TXD)", 15: "the UART (RXD)"}
FIRST_BOOT_LOW = 9  # GPIO 9 and up default to pull-down at boot; 0-8 to pull-up

# BCM GPIO -> physical pin on the 40-pin header (for the wiring table and diagram).
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21, 25: 22,
    11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip


@dataclass(frozen=True)
class PinMap:
    """BCM GPIO numbers of every launcher part (``None`` = optional part not fitted).

    Example::

        >>> pins = PinMap(motor_enable=12, motor_forward=23, motor_reverse=24, button=17, sensor=None)
        >>> pins.sensor, pins.lid  # not fitted: the lid switch by default, the card sensor here
        (None, None)
    """

    motor_enable: int
    motor_forward: int
    motor_reverse: int
    button: int
    sensor: int | None = None
    lid: int | None = None
    uno: int | None = None
    led: int | None = None
    buzzer: int | None = None
    heartbeat: int | None = None  # the dead-man heartbeat: toggled every 10 ms by the motor guard's thread

    def __post_init__(self) -> None:
        validate({role: getattr(self, role) for role in ROLES})

    def items(self) -> list[tuple[str, int]]:
        """(role, gpio) for every fitted part, in :data:`ROLES` order."""
        return [(role, gpio) for role in ROLES if (gpio := getattr(self, role)) is not None]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _number(role: str, value: Any) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value == -1):
        return None
    if isinstance(value, str) and value.upper().startswith("GPIO") and value[4:].isdigit():
        value = int(value[4:])
    if isinstance(value, bool) or not isinstance(value, int):
        raise PinMapError(f"pin {role!r} must be a BCM GPIO number (or -1 for not fitted), got {value!r}")
    return value


def validate(pins: Mapping[str, Any], label: str = "pin") -> dict[str, int | None]:
    """Check a role -> GPIO mapping; return it normalised (``None`` for parts not fitted)."""
    result: dict[str, int | None] = {}
    used: dict[int, str] = {}
    for role, raw in pins.items():
        if role not in ROLES:
            raise PinMapError(f"unknown {label} role {role!r} (known: {', '.join(ROLES)})")
        gpio = _number(role, raw)
        result[role] = gpio
        if gpio is None:
            if role in REQUIRED_ROLES:
                raise PinMapError(f"{label} {role!r} is required and cannot be left out")
            continue
        if not 0 <= gpio <= 27:
            raise PinMapError(f"{label} {role!r} is GPIO {gpio}, but the header only has GPIO 0-27")
        if gpio in RESERVED:
            raise PinMapError(f"{label} {role!r} is GPIO {gpio}, which is reserved for {RESERVED[gpio]}")
        if role in OUTPUT_ROLES and role not in BOOT_LEVEL_HARMLESS and gpio < FIRST_BOOT_LOW:
            raise PinMapError(
                f"{label} {role!r} is GPIO {gpio}, an output on GPIO 0-8 is pulled high at boot; use GPIO 9-27"
            )
        if gpio in used:
            raise PinMapError(f"{label}s {used[gpio]!r} and {role!r} both use GPIO {gpio}; each part needs its own pin")
        used[gpio] = role
    for role in REQUIRED_ROLES:
        if role not in result:
            raise PinMapError(f"{label} {role!r} is required and missing")
    return result


DEFAULT_PINS = PinMap(
    motor_enable=12,
    motor_forward=23,
    motor_reverse=24,
    button=17,
    sensor=27,
    lid=22,
    uno=6,
    led=25,
    buzzer=16,
    heartbeat=4,
)
DEFAULT_JIG = {"button": 5, "sensor": 26, "lid": 19, "motor_enable": 20, "motor_forward": 21, "motor_reverse": 13}


def resolve_pins(overrides: Mapping[str, Any] | None = None, base: PinMap = DEFAULT_PINS) -> PinMap:
    """The default map (or ``base``) with ``overrides`` applied, validated as a whole."""
    merged: dict[str, Any] = {role: getattr(base, role) for role in ROLES}
    for role, value in (overrides or {}).items():
        if role not in ROLES:
            raise PinMapError(f"unknown pin role {role!r} (known: {', '.join(ROLES)})")
        merged[role] = value
    checked = validate(merged)
    return PinMap(**checked)  # type: ignore[arg-type]


def read_pin_file(path: Path) -> dict[str, Any]:
    """The whole parsed pins TOML file (``[pins]`` and, if present, ``[jig]``)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PinMapError(f"pin file {path} does not exist") from None
    except OSError as exc:
        raise PinMapError(f"pin file {path} cannot be read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"pin file {path} is not valid TOML: {exc}") from None
    if not isinstance(data.get("pins"), dict):
        raise PinMapError(f"pin file {path} has no [pins] table")
    return data


def load_pin_file(path: Path, base: PinMap = DEFAULT_PINS) -> PinMap:
    """A pin map from a TOML file with a ``[pins]`` table; entries it leaves out keep their defaults."""
    return resolve_pins(read_pin_file(path)["pins"], base)


def resolve_jig(jig: Mapping[str, Any] | None, pins: PinMap) -> dict[str, int]:
    """The loopback jig's pins (see ``hardware/README.md``), checked against the launcher's own pins."""
    merged = {**DEFAULT_JIG, **(jig or {})}
    used = {gpio: role for role, gpio in pins.items()}
    result: dict[str, int] = {}
    for role, raw in merged.items():
        if role not in JIG_ROLES:
            raise PinMapError(f"unknown jig role {role!r} (known: {', '.join(JIG_ROLES)})")
        gpio = _number(role, raw)
        if gpio is None or not 0 <= gpio <= 27 or gpio in RESERVED:
            raise PinMapError(f"jig pin {role!r} must be a free GPIO 2-27 other than 14 and 15, got {raw!r}")
        if gpio in used:
            raise PinMapError(f"jig pin {role!r} and {used[gpio]!r} both use GPIO {gpio}; each needs its own pin")
        used[gpio] = f"jig {role}"
        result[role] = gpio
    return result
