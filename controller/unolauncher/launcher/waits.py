"""How the self-test and the calibration wait for the launcher: on the virtual launcher by advancing its virtual
clock, on real hardware by polling. A :data:`Wait` takes a predicate and a timeout in seconds and says whether the
predicate came true in time.

Example::

    >>> from unolauncher.clock import VirtualClock
    >>> clock = VirtualClock()
    >>> wait = virtual_wait(clock)
    >>> start = clock.now()
    >>> wait(lambda: clock.now() - start >= 0.5, timeout=2.0)
    True
    >>> wait(lambda: False, timeout=0.1)
    False
"""

from __future__ import annotations

import time
from collections.abc import Callable

from unolauncher.clock import VirtualClock

Wait = Callable[[Callable[[], bool], float], bool]


def virtual_wait(clock: VirtualClock) -> Wait:
    """A wait for the virtual launcher: advances its virtual clock in 10 ms steps until the predicate holds."""

    def wait(predicate: Callable[[], bool], timeout: float) -> bool:
        for _ in range(max(1, round(timeout / 0.01))):
            if predicate():
                return True
            clock.advance(0.01)
        return predicate()

    return wait


def real_wait(predicate: Callable[[], bool], timeout: float) -> bool:
    """A wait for real hardware: polls the predicate until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
