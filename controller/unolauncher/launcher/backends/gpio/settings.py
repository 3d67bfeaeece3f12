"""The GPIO backend's settings: timing and safety limits of the physical launcher.

Read on the thread that builds the launcher (the daemon's main thread at start-up, or a CLI); nothing here touches
a pin, and nothing imports gpiozero, so the daemon's configuration can be checked without it.

Example::

    >>> DeviceSettings(max_run_s=4.0).retract_ms  # what is not given keeps its default
    120
"""

from __future__ import annotations

from dataclasses import dataclass

from unolauncher.launcher.interface import require_in_range

MIN_COAST_MS = 40  # the shortest coast before a reversal (the firmware's COAST_MS; hardware/README.md)


@dataclass(frozen=True)
class DeviceSettings:
    """Timing and safety limits of the physical launcher.

    Example::

        >>> DeviceSettings(jam_timeout_s=1.0, max_run_s=4.0, magazine=40).settle_ms
        40
    """

    jam_timeout_s: float = 1.5  # no card for this long while cards are expected -> jam (or empty)
    max_run_s: float = 6.0  # hard limit on one eject phase, whatever the plan says
    settle_ms: int = 40  # after the motor stops, late cards still count
    retract_ms: int = 120  # reverse pulse that pulls the next card back (0 = no retract)
    retract_power: float = 0.6
    debounce_ms: int = 30  # button/UNO: edges this close to the previous edge are contact bounce
    lid_debounce_ms: int = 50  # lid: reported once its level has been stable this long
    beam_min_gap_ms: int = 4  # beam: a falling edge this close to the last counted card is a glitch (as the firmware)
    magazine: int | None = None  # cards believed loaded after a refill (lid opened); None = unknown
    pwm_frequency: int = 1000

    def __post_init__(self) -> None:
        checks = [
            ("jam_timeout_s", 0.05 <= self.jam_timeout_s <= 60),
            ("max_run_s", 0.1 <= self.max_run_s <= 60),
            # The settle time is also the coast gap before the retract reverses the motor: reversing a spinning
            # motor at once draws up to its stall current through the driver (the firmware's COAST_MS is 40 too).
            ("settle_ms", (MIN_COAST_MS if self.retract_ms > 0 else 0) <= self.settle_ms <= 2000),
            ("retract_ms", 0 <= self.retract_ms <= 2000),
            ("retract_power", 0.0 <= self.retract_power <= 1.0),
            ("debounce_ms", 0 <= self.debounce_ms <= 1000),
            ("lid_debounce_ms", 0 <= self.lid_debounce_ms <= 2000),
            ("beam_min_gap_ms", 0 <= self.beam_min_gap_ms <= 100),
            ("magazine", self.magazine is None or 0 <= self.magazine <= 500),
            ("pwm_frequency", 10 <= self.pwm_frequency <= 100_000),
        ]
        require_in_range("launcher", self, checks)
