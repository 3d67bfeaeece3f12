"""What every benchmark in ``bench/`` shares: percentiles, a mock pin that time-stamps the motor switching on, and
a timed press on it.

Example::

    from support.benchstats import TimedPin, percentile, timed_press

    p99 = percentile(samples, 0.99)
"""

from __future__ import annotations

import time
from typing import Any

from gpiozero.pins.mock import MockPWMPin


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile by nearest rank (``nan`` for no values): ``percentile(xs, 0.5)`` is a median."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class TimedPin(MockPWMPin):
    """Records when an output goes above 0 (the last one to do so is the motor enable pin)."""

    on_at = 0

    def _change_state(self, value: Any) -> bool:
        changed: bool = super()._change_state(value)
        if changed and value:
            TimedPin.on_at = time.perf_counter_ns()
        return changed


def timed_press(button: Any, what: str) -> float:
    """Microseconds from the mock ``button`` pin falling to a :class:`TimedPin` going high; releases the button.
    Raises RuntimeError naming ``what`` if nothing switched on."""
    TimedPin.on_at = 0
    start = time.perf_counter_ns()
    button.drive_low()
    if not TimedPin.on_at:
        raise RuntimeError(f"{what} did not switch the motor on")
    sample = (TimedPin.on_at - start) / 1000
    button.drive_high()
    return sample
