"""The motor guard (launcher/backends/gpio/motor_guard.py): deadlines of its own, interlocks, and no lock shared with
anything."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from support.net import wait_until
from unolauncher.clock import RealClock, VirtualClock
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.motor_guard import GRACE_S, MotorGuard
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.pins import DEFAULT_PINS

from .conftest import Rig, make_rig

PINS = DEFAULT_PINS


def pins(factory: MockFactory) -> tuple[object, object, object]:
    enable, forward, reverse = (factory.pin(n) for n in (PINS.motor_enable, PINS.motor_forward, PINS.motor_reverse))
    for pin in (enable, forward, reverse):
        pin.function = "output"
    return enable, forward, reverse


def levels(factory: MockFactory) -> tuple[float, float, float]:
    return tuple(float(factory.pin(n).state) for n in (PINS.motor_enable, PINS.motor_forward, PINS.motor_reverse))  # type: ignore[return-value]


def test_every_on_has_a_deadline_the_guard_keeps_itself(factory: MockFactory, clock: VirtualClock) -> None:
    guard = MotorGuard(*pins(factory), clock)
    assert guard.run(True, False, 0.8, limit_s=2.0)
    assert levels(factory) == (0.8, 1.0, 0.0) and guard.on
    clock.advance(2.0 + GRACE_S - 0.001)
    assert guard.on, "not before the limit (plus the grace left to the launcher's own stop)"
    clock.advance(0.002)
    assert levels(factory) == (0.0, 0.0, 0.0) and not guard.on and guard.trips == 1


def test_a_new_on_replaces_the_deadline_and_off_drops_it(factory: MockFactory, clock: VirtualClock) -> None:
    guard = MotorGuard(*pins(factory), clock)
    guard.run(True, False, 1.0, limit_s=1.0)
    clock.advance(0.9)
    guard.run(True, False, 0.5, limit_s=0.5)  # a new "on": its own, shorter limit
    clock.advance(0.5 + GRACE_S + 0.001)
    assert not guard.on and guard.trips == 1
    guard.run(True, False, 1.0, limit_s=1.0)
    guard.off()
    clock.advance(5)
    assert guard.trips == 1, "a deadline dropped by off() never trips"


def test_off_is_enable_first_and_on_is_direction_first(factory: MockFactory, clock: VirtualClock) -> None:
    order: list[str] = []
    enable, forward, reverse = pins(factory)

    class Spy:
        def __init__(self, name: str, pin: object) -> None:
            self.name, self.pin = name, pin

        @property
        def state(self) -> float:
            return float(self.pin.state)  # type: ignore[attr-defined]

        @state.setter
        def state(self, value: float) -> None:
            order.append(f"{self.name}={float(value):g}")
            self.pin.state = value  # type: ignore[attr-defined]

    guard = MotorGuard(Spy("en", enable), Spy("fwd", forward), Spy("rev", reverse), clock)
    order.clear()
    guard.run(True, False, 0.7, limit_s=1.0)
    guard.off()
    # The pin of the way the motor last turned changes last (out of a brake it is the one already high).
    assert order == ["rev=0", "fwd=1", "en=0.7", "en=0", "rev=0", "fwd=0"]


@pytest.mark.parametrize("interlock", ["lid", "disabled", "halted"])
def test_an_interlock_switches_off_at_once_and_refuses_every_on(
    factory: MockFactory, clock: VirtualClock, interlock: str
) -> None:
    guard = MotorGuard(*pins(factory), clock)
    guard.run(True, False, 1.0, limit_s=5.0)
    guard.set_interlock(interlock, True)
    assert levels(factory) == (0.0, 0.0, 0.0) and guard.refusal() == interlock
    assert guard.run(True, False, 1.0, limit_s=5.0) is False and not guard.on
    guard.set_interlock(interlock, False)
    if interlock == "halted":
        assert guard.run(True, False, 1.0, limit_s=5.0) is False, "halted is for good"
    else:
        assert guard.run(True, False, 1.0, limit_s=5.0) and guard.on


def test_bad_power_or_limit_refused(factory: MockFactory, clock: VirtualClock) -> None:
    guard = MotorGuard(*pins(factory), clock)
    for power, limit in ((0.0, 1.0), (1.5, 1.0), (0.5, 0.0)):
        with pytest.raises(ValueError, match="motor guard needs"):
            guard.run(True, False, power, limit)
    assert levels(factory) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="unknown interlock"):
        guard.set_interlock("door", True)


def test_on_the_real_clock_the_deadline_runs_on_the_guards_own_thread(factory: MockFactory) -> None:
    """The launcher's timer thread blocked for good (a done-callback stuck on the table's lock): the guard's own
    thread still switches the motor off at the limit."""
    clock = RealClock()
    blocked, release = threading.Event(), threading.Event()

    def stuck() -> None:
        blocked.set()
        release.wait()

    launcher = GpioLauncher(factory, clock, PINS, DeviceSettings(max_run_s=0.3, jam_timeout_s=5.0))
    try:
        factory.pin(PINS.lid).drive_low()
        assert wait_until(lambda: not launcher.lid_open, 5)  # the lid's debounce, on the real clock
        clock.call_later(0.0, stuck)
        assert blocked.wait(5)  # the timer thread is stuck from now on
        results: list[FireResult] = []
        assert launcher.fire(FirePlan(fire=True, cards=3), results.append) and launcher.motor_on
        assert wait_until(lambda: not launcher.motor_on, 3)
        enable = factory.pin(PINS.motor_enable).states
        assert [bool(s.state) for s in enable[-2:]] == [True, False]
        ran = enable[-1].timestamp  # MockPin: seconds since the previous change, i.e. since the motor went on
        assert ran <= 0.3 + 0.1, f"the motor ran {ran:.3f} s"
        assert results == [], "the run's bookkeeping waits for the timer thread; only the motor could not"
        assert launcher.status().extra["guard_trips"] == 1
        assert launcher.health(time.monotonic(), 5.0) == []  # the guard's own thread is fine
    finally:
        release.set()
        launcher.close()
        clock.close()


def test_an_emergency_stop_waits_for_no_lock_the_launcher_holds(rig: Rig) -> None:
    """set_enabled(False) takes only the guard's lock: even with the launcher's own lock held by a stuck thread
    the motor goes off at once."""
    rig.launcher.fire(FirePlan(fire=True, cards=8), rig.results.append)
    assert rig.sim.motor_pin_high
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with rig.launcher.runs.lock:
            held.set()
            release.wait()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    try:
        assert held.wait(5)
        rig.launcher.set_enabled(False)
        assert not rig.sim.motor_pin_high
    finally:
        release.set()
        thread.join(5)


def test_lid_interlock_follows_the_debounced_lid(factory: MockFactory, clock: VirtualClock) -> None:
    """A lid that opens and closes again within its debounce still stops the run, and releases the guard once the
    closed level has held for the debounce."""
    rig = make_rig(factory, clock)
    try:
        clock.advance(0.1)
        rig.launcher.fire(FirePlan(fire=True, cards=5), rig.results.append)
        clock.advance(0.2)
        rig.sim.open_lid()
        clock.advance(0.01)
        rig.sim.close_lid()
        assert not rig.sim.motor_pin_high
        assert rig.launcher.fire(FirePlan(fire=True, cards=1), rig.results.append) is False  # not settled yet
        clock.advance(0.1)
        assert rig.launcher.fire(FirePlan(fire=True, cards=1), rig.results.append) and rig.sim.motor_pin_high
        clock.advance(2)
    finally:
        rig.launcher.close()
