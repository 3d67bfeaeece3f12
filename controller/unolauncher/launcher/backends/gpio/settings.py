"""The GPIO backend's settings: timing and safety limits of the physical launcher, declared once in
:data:`GPIO_SETTINGS` (name, type, range, unit, default) for both the daemon's configuration check and
:class:`DeviceSettings`.

Read on the thread that loads the configuration or builds the launcher; nothing here touches a pin, and nothing
imports gpiozero, so the daemon's configuration can be checked without it.

Example::

    >>> DeviceSettings(max_run_s=4.0).retract_ms  # what is not given keeps its default
    120
    >>> DeviceSettings(retract_ms=-5)
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: launcher.retract_ms must be a whole number from 0 to 2000 ms, got -5
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from unolauncher.launcher.settings_schema import SHARED, Rule, Schema, Setting

BRAKE_MS = 40  # the motor is braked this long before every reversal (the firmware's BRAKE_MS; hardware/README.md)

GPIO_SETTINGS = Schema(
    "gpio",
    [
        *SHARED,
        Setting("settle_ms", "int", 40, low=0, high=2000, unit="ms"),
        Setting("lid_debounce_ms", "int", 50, low=0, high=2000, unit="ms"),
        Setting("beam_min_gap_ms", "int", 4, low=0, high=100, unit="ms"),
        Setting("pwm_frequency", "int", 1000, low=10, high=100_000, unit="Hz"),
    ],
    [
        # The settle time is also the brake before the retract reverses the motor: reversing a spinning motor at
        # once draws up to twice its stall current through the driver (the firmware's BRAKE_MS is 40 too).
        Rule(
            "settle_ms",
            lambda v: v["retract_ms"] == 0 or v["settle_ms"] >= BRAKE_MS,
            f"must be at least {BRAKE_MS} ms when retract_ms > 0 (the motor is braked that long before it reverses)",
        ),
    ],
)
_DEFAULT = GPIO_SETTINGS.defaults()


@dataclass(frozen=True)
class DeviceSettings:
    """Timing and safety limits of the physical launcher (defaults and limits: :data:`GPIO_SETTINGS`).

    Example::

        >>> DeviceSettings(jam_timeout_s=1.0, max_run_s=4.0, magazine=40).settle_ms
        40
    """

    jam_timeout_s: float = _DEFAULT["jam_timeout_s"]  # no card for this long while cards are expected: jam or empty
    max_run_s: float = _DEFAULT["max_run_s"]  # hard limit on one eject phase, whatever the plan says
    settle_ms: int = _DEFAULT["settle_ms"]  # after the motor stops, late cards still count
    retract_ms: int = _DEFAULT["retract_ms"]  # reverse pulse that pulls the next card back (0 = no retract)
    retract_power: float = _DEFAULT["retract_power"]
    debounce_ms: int = _DEFAULT["debounce_ms"]  # button/UNO: edges this close to the previous edge are contact bounce
    lid_debounce_ms: int = _DEFAULT["lid_debounce_ms"]  # lid: reported once its level has been stable this long
    beam_min_gap_ms: int = _DEFAULT["beam_min_gap_ms"]  # beam: an edge this close to the last card is a glitch
    magazine: int | None = _DEFAULT["magazine"]  # cards believed loaded after a refill (lid opened); None = unknown
    pwm_frequency: int = _DEFAULT["pwm_frequency"]

    def __post_init__(self) -> None:
        GPIO_SETTINGS.check(asdict(self), "launcher.")
