"""The real-time clock the daemon uses: every timer on one scheduler thread, in due order, cancellable."""

from __future__ import annotations

import functools
import threading

from support.net import wait_until
from unolauncher.clock import RealClock


def test_timers_fire_in_due_order_on_one_thread_and_cancelled_ones_never() -> None:
    clock = RealClock()
    fired: list[tuple[str, float, str]] = []

    def record(name: str) -> None:
        fired.append((name, clock.now(), threading.current_thread().name))

    try:
        start = clock.now()
        # Registered out of order. The order due is read from each timer's own due time, not assumed from the
        # delays: on a loaded machine the registrations themselves can be tens of ms apart.
        due = {
            name: clock.call_later(delay, functools.partial(record, name)).when
            for name, delay in [("c", 0.06), ("a", 0.02), ("b", 0.04)]
        }
        clock.call_later(0.03, lambda: fired.append(("cancelled", 0, ""))).cancel()
        assert wait_until(lambda: len(fired) == 3, 5)
        assert [f[0] for f in fired] == sorted(due, key=due.__getitem__)
        assert all(at >= due[name] for name, at, _ in fired), "a timer fired before it was due"
        assert {f[2] for f in fired} == {"clock-timers"}
        assert clock.now() - start >= 0.06
    finally:
        clock.close()
    assert len(fired) == 3


def test_a_failing_callback_does_not_stop_later_timers_and_close_drops_the_rest() -> None:
    clock = RealClock()
    fired: list[str] = []

    def boom() -> None:
        raise RuntimeError("a broken callback")

    try:
        clock.call_later(0.0, boom)
        clock.call_later(0.01, lambda: fired.append("after"))
        assert wait_until(lambda: fired == ["after"], 5)
        clock.call_later(30.0, lambda: fired.append("never"))
    finally:
        clock.close()
    assert fired == ["after"]
