"""A real-time :class:`~unolauncher.clock.Clock` whose timers all run on one thread.

:class:`~unolauncher.clock.RealClock` starts a :class:`threading.Timer` — a new thread — for every
``call_later``. The launcher asks for several on each press (LED flash, jam and run timers, the virtual button's
release): starting them cost ~0.35 ms of the press → event path here (measured, ``bench/daemon.py``), and more on
a Pi Zero. This clock keeps one heap and one thread instead. Callbacks run one after another on that thread, so
each must be quick (the launcher's are: they switch a pin or queue work).

Example::

    clock = SchedulerClock()
    handle = clock.call_later(0.05, lambda: print("50 ms later"))
    handle.cancel()
    clock.close()
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class _Timer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True  # dropped when it comes due; the heap is short-lived (timers of a few seconds)


class SchedulerClock:
    """``time.monotonic`` plus one-shot timers on a single scheduler thread (started by the first timer)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(time.monotonic() + max(0.0, delay), callback)
        with self._cond:
            heapq.heappush(self._heap, (timer.when, next(self._order), timer))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="clock-timers", daemon=True)
                self._thread.start()
            elif self._heap[0][2] is timer:
                self._cond.notify()  # the scheduler sleeps until the earliest timer: this one is earlier
        return timer

    def close(self) -> None:
        """Stop the scheduler thread; timers not yet due never fire."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(2.0)

    def _next_due(self) -> _Timer | None:
        with self._cond:
            while not self._closed:
                if not self._heap:
                    self._cond.wait()
                    continue
                when, _, timer = self._heap[0]
                if timer.cancelled:
                    heapq.heappop(self._heap)
                    continue
                delay = when - time.monotonic()
                if delay <= 0:
                    heapq.heappop(self._heap)
                    return timer
                self._cond.wait(delay)
            return None

    def _run(self) -> None:
        while (timer := self._next_due()) is not None:
            try:
                timer.callback()
            except Exception:  # one failing callback must not stop every later timer
                log.exception("timer callback failed")
