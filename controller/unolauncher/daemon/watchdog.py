"""The daemon's own watchdog: is every critical thread still making progress?

systemd's ``WATCHDOG=1`` means "all is well", so the daemon sends it only while this says so. Each critical part
registers a check that names what keeps it from progressing (a thread died; one piece of work — a timer callback,
a GPIO edge callback, a journal write — has run longer than the deadline); see :mod:`unolauncher.progress`. When
any check complains, the daemon switches the motor off, stops pinging and exits non-zero
(:meth:`unolauncher.daemon.app.Daemon.run_until_stopped`).

Example (not a doctest: needs the daemon's table)::

    watchdog = Watchdog(deadline_s=10.0)
    watchdog.watch("worker", table.health)
    watchdog.problems(time.monotonic())      # [] while the worker is healthy
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Check = Callable[[float, float], Any]  # (now, deadline_s) -> a problem sentence, a list of them, or None / []


class Watchdog:
    """A list of named health checks, all held to one deadline.

    Example::

        >>> import time
        >>> from unolauncher.clock import RealClock
        >>> clock = RealClock()
        >>> watchdog = Watchdog(2.0)
        >>> watchdog.watch("timers", clock.health)
        >>> watchdog.problems(time.monotonic())
        []
        >>> clock.close()
    """

    def __init__(self, deadline_s: float) -> None:
        self.deadline_s = deadline_s
        self._checks: list[tuple[str, Check]] = []

    def watch(self, name: str, check: Check) -> None:
        self._checks.append((name, check))

    def problems(self, now: float) -> list[str]:
        """Every problem found now (``now`` is ``time.monotonic()``), each prefixed with its part's name."""
        found: list[str] = []
        for name, check in self._checks:
            try:
                result = check(now, self.deadline_s)
            except Exception as exc:  # a check that fails is a problem too, not a reason to stop watching
                log.exception("health check %s failed", name)
                result = f"its health check failed: {exc}"
            if isinstance(result, str):
                result = [result]
            found.extend(f"{name}: {problem}" for problem in result or ())
        return found
