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


def _realtime_allowed(priority: int) -> bool:
    import os
    import resource

    return os.geteuid() == 0 or resource.getrlimit(resource.RLIMIT_RTPRIO)[0] >= priority


def test_a_realtime_separate_clock_raises_only_its_own_thread() -> None:
    """The motor guard's clock: its thread (only it) runs SCHED_FIFO where the system allows it, so that a busy
    machine cannot make the guard's deadline late; where it does not, the clock says why and how to allow it."""
    import os

    base = RealClock()
    guard = base.separate("motor-guard", realtime_priority=20)
    try:
        seen: dict[str, tuple[int, int]] = {}  # clock -> (policy, priority) of the thread that ran its timer
        done = threading.Event()

        def policy_of(name: str) -> None:
            seen[name] = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)  # 0: the calling thread
            if len(seen) == 2:
                done.set()

        guard.call_later(0.0, lambda: policy_of("guard"))
        base.call_later(0.0, lambda: policy_of("base"))
        assert done.wait(5)
        if _realtime_allowed(20):
            assert guard.realtime is True
            assert seen["guard"] == (os.SCHED_FIFO, 20)
        else:
            assert isinstance(guard.realtime, str) and "LimitRTPRIO=20" in guard.realtime
        assert seen["base"] == (os.SCHED_OTHER, 0), "only the separate clock's thread is raised"
        assert os.sched_getscheduler(0) == os.SCHED_OTHER, "the caller's thread must stay as it was"
        assert base.realtime is None
    finally:
        guard.close()
        base.close()
