"""Progress of the daemon's critical threads, for the watchdog: is any of them stuck inside a piece of work?

A thread marks the work it does (a timer callback, a GPIO edge callback, one item of the table's queue) with
:meth:`Progress.working` (or :meth:`Progress.begin` / :meth:`Progress.end` on a hot path);
:meth:`Progress.stuck_for` says how long the oldest unfinished piece has been running. An idle thread is healthy by
definition: progress means "no piece of work is taking longer than its deadline". Marking costs two dict operations
and two clock reads; nothing here takes a lock, so the threads being watched never wait for the watcher (``dict``
item assignment and ``pop`` are atomic in CPython).

Real time on purpose (``time.monotonic``), not the injected clock: a stuck thread is stuck in real time.

Example::

    >>> import time
    >>> progress = Progress()
    >>> with progress.working():
    ...     progress.stuck_for(time.monotonic()) >= 0.0  # inside: the work is under way
    True
    >>> progress.stuck_for(time.monotonic())  # every thread idle
    0.0
"""

from __future__ import annotations

import threading
import time
from types import TracebackType


class Progress:
    """When each thread started the piece of work it is still doing (threads that are idle are not listed).

    Example::

        >>> progress = Progress()
        >>> outer = progress.begin()
        >>> try:
        ...     pass  # the work
        ... finally:
        ...     progress.end(outer)
    """

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since: dict[int, float] = {}  # thread ident -> start of its outermost unfinished piece of work

    def begin(self) -> bool:
        """This thread starts a piece of work; returns whether it is the outermost one (pass that to :meth:`end`)."""
        ident = threading.get_ident()
        if ident in self._since:
            return False
        self._since[ident] = time.monotonic()
        return True

    def end(self, outer: bool) -> None:
        """This thread finished the piece of work :meth:`begin` started."""
        if outer:
            self._since.pop(threading.get_ident(), None)

    def working(self) -> _Working:
        """:meth:`begin` and :meth:`end` as a context manager."""
        return _Working(self)

    def stuck_for(self, now: float) -> float:
        """Seconds the oldest unfinished piece of work has been running (0.0 when every thread is idle)."""
        started = list(self._since.values())  # a copy taken in one step: other threads may add or remove meanwhile
        return max(0.0, now - min(started)) if started else 0.0


class _Working:
    __slots__ = ("_outer", "_progress")

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._outer = False

    def __enter__(self) -> None:
        self._outer = self._progress.begin()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.end(self._outer)
