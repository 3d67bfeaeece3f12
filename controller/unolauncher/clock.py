"""Injected time: everything that waits takes a :class:`Clock`.

Tests use :class:`VirtualClock` and advance it by hand, so a 30 s jam timeout runs in microseconds;
the daemon uses :class:`RealClock`. Both schedule callbacks instead of sleeping, so nothing ever blocks
the thread that delivers GPIO edges.

Example::

    clock = VirtualClock()
    fired = []
    clock.call_later(0.5, lambda: fired.append(clock.now()))
    clock.advance(1.0)
    assert fired == [0.5]
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol


class TimerHandle(Protocol):
    """Something returned by :meth:`Clock.call_later` that can be cancelled."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Monotonic time in seconds plus one-shot timers."""

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle: ...


class _VirtualTimer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """A clock that only moves when told to; timers fire in order during :meth:`advance`.

    Example::

        clock = VirtualClock(start=100.0)
        handle = clock.call_later(2.0, lambda: None)
        handle.cancel()
        clock.advance(5.0)
        assert clock.now() == 105.0
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._queue: list[tuple[float, int, _VirtualTimer]] = []
        self._order = itertools.count()
        self._lock = threading.RLock()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> _VirtualTimer:
        with self._lock:
            timer = _VirtualTimer(self._now + max(0.0, delay), callback)
            heapq.heappush(self._queue, (timer.when, next(self._order), timer))
            return timer

    def advance(self, seconds: float) -> None:
        """Move time forward, firing every timer that falls due, each at its own instant."""
        with self._lock:
            deadline = self._now + seconds
            while self._queue and self._queue[0][0] <= deadline:
                when, _, timer = heapq.heappop(self._queue)
                if timer.cancelled:
                    continue
                self._now = max(self._now, when)
                timer.callback()
            self._now = deadline

    def run_until_idle(self, limit: float = 3600.0) -> None:
        """Fire timers until none are left (or ``limit`` virtual seconds have passed)."""
        with self._lock:
            end = self._now + limit
            while self._queue and self._queue[0][0] <= end:
                self.advance(self._queue[0][0] - self._now)

    def pending(self) -> int:
        """Number of live (not cancelled) timers."""
        return sum(1 for _, _, t in self._queue if not t.cancelled)


class RealClock:
    """Wall-clock time (``time.monotonic``) with :class:`threading.Timer` based callbacks.

    Example::

        clock = RealClock()
        clock.call_later(0.01, lambda: print("tick")).cancel()
    """

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> threading.Timer:
        timer = threading.Timer(max(0.0, delay), callback)
        timer.daemon = True
        timer.start()
        return timer
