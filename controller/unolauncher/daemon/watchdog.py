"""The daemon's own watchdog: is every critical thread still making progress?

systemd's ``WATCHDOG=1`` means "all is well", so the daemon sends it only while this says so. Each critical part
registers itself (:class:`Monitored`: a ``health`` method) to name what keeps it from progressing (a thread died;
one piece of work — a timer callback, a GPIO edge callback, a journal write — has run longer than the deadline);
see :mod:`unolauncher.progress`. When any check complains, the daemon switches the motor off, stops pinging and
exits non-zero (:meth:`unolauncher.daemon.app.Daemon.run_until_stopped`).

Example (not a doctest: needs the daemon's table)::

    watchdog = Watchdog(deadline_s=10.0)
    watchdog.watch("worker", table)
    watchdog.problems(time.monotonic())  # [] while the worker is healthy
"""

from __future__ import annotations

import logging
from typing import Protocol

log = logging.getLogger(__name__)

Health = str | list[str] | None  # a problem sentence, a list of them, or None / [] when all is well


class Monitored(Protocol):
    """A critical part of the daemon: the clock's timer thread, the launcher, the table's worker, MQTT."""

    def health(self, now: float, deadline_s: float) -> Health:
        """What keeps this part from progressing for more than ``deadline_s`` at ``now`` (``time.monotonic()``)."""
        ...


class Watchdog:
    """A list of named health checks, all held to one deadline.

    Example::

        >>> import time
        >>> from unolauncher.clock import RealClock
        >>> clock = RealClock()
        >>> watchdog = Watchdog(2.0)
        >>> watchdog.watch("timers", clock)
        >>> watchdog.problems(time.monotonic())
        []
        >>> clock.close()
    """

    def __init__(self, deadline_s: float) -> None:
        self.deadline_s = deadline_s
        self._parts: list[tuple[str, Monitored]] = []

    def watch(self, name: str, part: Monitored) -> None:
        self._parts.append((name, part))

    def problems(self, now: float) -> list[str]:
        """Every problem found now (``now`` is ``time.monotonic()``), each prefixed with its part's name."""
        found: list[str] = []
        for name, part in self._parts:
            try:
                result = part.health(now, self.deadline_s)
            except Exception as exc:  # a check that fails is a problem too, not a reason to stop watching
                log.exception("health check %s failed", name)
                result = f"its health check failed: {exc}"
            if isinstance(result, str):
                result = [result]
            found.extend(f"{name}: {problem}" for problem in result or ())
        return found
