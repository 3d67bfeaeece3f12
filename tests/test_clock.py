"""The injected clocks: virtual time fires timers in order and exactly at their due instant."""

from __future__ import annotations

import threading

from unolauncher.clock import RealClock, VirtualClock


def test_virtual_clock_fires_due_timers_in_order_at_their_instant() -> None:
    clock = VirtualClock(start=10.0)
    seen: list[tuple[str, float]] = []
    clock.call_later(2.0, lambda: seen.append(("b", clock.now())))
    clock.call_later(1.0, lambda: seen.append(("a", clock.now())))
    clock.call_later(5.0, lambda: seen.append(("late", clock.now())))
    clock.advance(3.0)
    assert seen == [("a", 11.0), ("b", 12.0)]
    assert clock.now() == 13.0
    assert clock.pending() == 1


def test_virtual_clock_cancelled_timer_never_fires() -> None:
    clock = VirtualClock()
    fired: list[int] = []
    handle = clock.call_later(1.0, lambda: fired.append(1))
    handle.cancel()
    clock.advance(2.0)
    assert fired == []
    assert clock.pending() == 0


def test_virtual_clock_timer_scheduled_by_a_timer_fires_in_same_advance() -> None:
    clock = VirtualClock()
    seen: list[float] = []

    def first() -> None:
        seen.append(clock.now())
        clock.call_later(0.5, lambda: seen.append(clock.now()))

    clock.call_later(1.0, first)
    clock.advance(2.0)
    assert seen == [1.0, 1.5]


def test_run_until_idle_drains_chains_of_timers() -> None:
    clock = VirtualClock()
    count = [0]

    def tick() -> None:
        count[0] += 1
        if count[0] < 5:
            clock.call_later(1.0, tick)

    clock.call_later(1.0, tick)
    clock.run_until_idle()
    assert count[0] == 5
    assert clock.now() == 5.0


def test_real_clock_timer_fires_and_is_monotonic() -> None:
    clock = RealClock()
    done = threading.Event()
    start = clock.now()
    clock.call_later(0.01, done.set)
    assert done.wait(2.0)
    assert clock.now() >= start
