"""The simulated toy's parameters: :data:`VIRTUAL_SETTINGS` (the ``[launcher.virtual]`` table: name, type, range,
unit, default) and :class:`VirtualParams`, checked against it.

Read on the thread that loads the configuration or builds the launcher; nothing here imports gpiozero.

Example::

    >>> VirtualParams(jam_probability=2)
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: launcher.virtual.jam_probability must be a number from 0 to 1, got 2
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from unolauncher.launcher.settings_schema import Rule, Schema, Setting

VIRTUAL_SETTINGS = Schema(
    "virtual",
    [
        Setting("magazine", "int", 40, low=0, high=1000, unit="cards"),
        Setting("spin_up_ms", "int", 150, unit="ms"),
        Setting("cards_per_s", "number", 9.0, low=0.5, high=100, unit="cards/s"),  # at full power
        Setting("pulse_ms", "number", 12.0, low=0.1, unit="ms"),  # beam broken per card
        Setting("jam_probability", "number", 0.0, low=0.0, high=1.0),  # per card that would leave
        Setting("min_power", "number", 0.25),  # below this PWM duty the wheel stalls
        Setting("seed", "int", 0),
        Setting("lid_open", "bool", False),
        Setting("press_ms", "int", 80, unit="ms"),  # how long press_button() holds the button down
        # 10 kΩ from each driver input to GND (hardware/README.md): released lines read low
        Setting("driver_pull_downs", "bool", True),
        # A Pi kernel without strict_gpiod keeps driving an output after its process died: with a file here the
        # driver lines' levels are kept in it and are still driven when the next process starts (until it drives
        # them itself).
        Setting("persist_outputs_file", "text", ""),
    ],
    [Rule("pulse_ms", lambda v: v["pulse_ms"] < 1000 / v["cards_per_s"], "must be shorter than the gap between cards")],
)
_DEFAULT = VIRTUAL_SETTINGS.defaults()


@dataclass(frozen=True)
class VirtualParams:
    """The simulated toy (defaults and limits: :data:`VIRTUAL_SETTINGS`).

    Example::

        >>> VirtualParams(magazine=40, cards_per_s=9.0, jam_probability=0.01, seed=7).spin_up_ms  # the rest defaults
        150
    """

    magazine: int = _DEFAULT["magazine"]
    spin_up_ms: int = _DEFAULT["spin_up_ms"]
    cards_per_s: float = _DEFAULT["cards_per_s"]
    pulse_ms: float = _DEFAULT["pulse_ms"]
    jam_probability: float = _DEFAULT["jam_probability"]
    min_power: float = _DEFAULT["min_power"]
    seed: int = _DEFAULT["seed"]
    lid_open: bool = _DEFAULT["lid_open"]
    press_ms: int = _DEFAULT["press_ms"]
    driver_pull_downs: bool = _DEFAULT["driver_pull_downs"]
    persist_outputs_file: str = _DEFAULT["persist_outputs_file"]

    def __post_init__(self) -> None:
        VIRTUAL_SETTINGS.check(asdict(self), "launcher.virtual.")
