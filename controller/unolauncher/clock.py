"""Injected time: everything that waits takes a :class:`Clock`.

Tests use :class:`VirtualClock` and advance it by hand, so a 30 s jam timeout runs in microseconds;
the daemon uses :class:`RealClock`. Both schedule callbacks instead of sleeping, so nothing ever blocks
the thread that delivers GPIO edges.

Example::

    >>> clock = VirtualClock()
    >>> fired = []
    >>> _ = clock.call_later(0.5, lambda: fired.append(clock.now()))
    >>> clock.advance(1.0)
    >>> assert fired == [0.5]
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Protocol

from unolauncher.progress import Progress

log = logging.getLogger(__name__)


class TimerHandle(Protocol):
    """Something returned by :meth:`Clock.call_later` that can be cancelled."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Monotonic time in seconds plus one-shot timers."""

    realtime: bool | str | None  # a separate clock's real-time priority: None not asked, True got it, or why not

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle: ...

    def separate(self, name: str, realtime_priority: int = 0) -> Clock:
        """The same time, with timers that run independently of this clock's own (the motor guard's deadlines);
        with ``realtime_priority`` > 0 its thread asks the kernel for that SCHED_FIFO priority."""
        ...


class _Timer:
    """A one-shot timer of either clock; cancelling only marks it, and it is dropped when it comes due."""

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

        >>> clock = VirtualClock(start=100.0)
        >>> handle = clock.call_later(2.0, lambda: None)
        >>> handle.cancel()
        >>> clock.advance(5.0)
        >>> assert clock.now() == 105.0
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.realtime: bool | str | None = None  # virtual time has no threads to raise
        self._queue: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()
        self._lock = threading.RLock()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        with self._lock:
            timer = _Timer(self._now + max(0.0, delay), callback)
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

    def separate(self, name: str, realtime_priority: int = 0) -> VirtualClock:
        """Virtual time has one timeline: a "separate" clock is this one (its timers fire in due order with ours)."""
        return self


class RealClock:
    """``time.monotonic`` plus one-shot timers, all run on one scheduler thread (started by the first timer).

    One heap and one thread rather than a :class:`threading.Timer` per call: the launcher asks for several timers
    on every press (LED flash, jam and run timers), and starting a thread for each is a visible share of the
    press → event path (docs/performance.md, "Figures behind the code"). Callbacks run one after another on that
    thread, so each must be quick (the launcher's are: they switch a pin or queue work); one that raises is logged
    and does not stop later timers. :meth:`health` tells the watchdog when that thread is stuck or dead;
    :meth:`separate` gives a clock with a thread of its own, for timers that must not wait behind these.

    Example::

        >>> clock = RealClock()
        >>> clock.call_later(10.0, lambda: print("tick")).cancel()  # cancelled: never ticks
        >>> clock.close()
    """

    def __init__(self, name: str = "clock-timers", realtime_priority: int = 0) -> None:
        self.name = name
        self.realtime_priority = realtime_priority
        # Whether the thread got its real-time priority: None while not asked (or not yet started), True, or why not.
        self.realtime: bool | str | None = None
        self._heap: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._progress = Progress()

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(time.monotonic() + max(0.0, delay), callback)
        with self._cond:
            heapq.heappush(self._heap, (timer.when, next(self._order), timer))
            if self._thread is None:
                thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                thread.start()
                self._thread = thread  # only once started: health() reads it without the lock
            elif self._heap[0][2] is timer:
                self._cond.notify()  # the scheduler sleeps until the earliest timer: this one is earlier
        return timer

    def separate(self, name: str, realtime_priority: int = 0) -> RealClock:
        """A new clock with its own scheduler thread called ``name``: nothing it runs waits behind our callbacks.

        With ``realtime_priority`` (1-99) the thread starts at once and asks for that SCHED_FIFO priority, so a
        busy machine (other processes, a CPU hog) cannot make its deadlines late; :attr:`realtime` says whether it got
        it. Only that thread is raised (Linux scheduling is per thread); it sleeps between its few timers.
        """
        clock = RealClock(name, realtime_priority)
        if realtime_priority:
            clock.call_later(0.0, _probe)  # start the thread now, so it runs raised before its first real deadline
        return clock

    def health(self, now: float, deadline_s: float) -> str | None:
        """Why this clock's thread is not making progress (``None`` when it is): it died, one callback has run for
        more than ``deadline_s``, or a timer is overdue by more than that. ``now`` is ``time.monotonic()``.

        Each call also schedules a no-op, so an idle thread that stopped taking timers shows as overdue next time.
        """
        if self._closed:
            return None
        thread = self._thread
        if thread is not None and not thread.is_alive():
            return f"the {self.name} thread died"
        stuck = self._progress.stuck_for(now)
        if stuck > deadline_s:
            return f"a {self.name} callback has been running for {stuck:.1f} s"
        with self._cond:  # held by the scheduler only between waits, never across a callback
            earliest = min((when for when, _, timer in self._heap if not timer.cancelled), default=now)
        overdue = now - earliest
        if overdue > deadline_s:
            return f"the {self.name} timers are {overdue:.1f} s overdue"
        self.call_later(0.0, _probe)
        return None

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
        if self.realtime_priority:
            self.realtime = _raise_this_thread(self.realtime_priority)
        while (timer := self._next_due()) is not None:
            try:
                with self._progress.working():
                    timer.callback()
            except Exception:  # one failing callback must not stop every later timer
                log.exception("timer callback failed")


def _raise_this_thread(priority: int) -> bool | str:
    """SCHED_FIFO at ``priority`` for the calling thread only: ``True``, or why not (one sentence with the fix)."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))  # pid 0: this thread (Linux)
    except (AttributeError, OSError) as exc:  # not Linux, or no CAP_SYS_NICE / RLIMIT_RTPRIO (systemd: LimitRTPRIO=)
        return f"no real-time priority {priority} ({exc}): allow it with LimitRTPRIO={priority} in the service"
    return True


def _probe() -> None:
    """A timer that does nothing: :meth:`RealClock.health` schedules it to see that the thread still runs timers."""
