"""What every benchmark in ``bench/`` shares: percentiles, and a mock pin that time-stamps the motor switching on.

Example::

    from support.benchstats import TimedPin, percentile
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
