"""Brake before every reversal on the GPIO path (issue 28 item 6): the H-bridge state after every single write to
the motor driver's three pins, in order, on gpiozero's mock pins under virtual time, read as both supported
drivers would read them (TB6612FNG: PWMA, AIN1, AIN2; DRV8833 on a Pi: IN1, IN2 on/off, PWMA not connected).

A reversal must go drive -> brake (held at least ``BRAKE_MS``) -> the other direction: no coast straight into the
other direction (a coasting motor still spins when the reverse hits it), and no write, not even for the instant
before the next one, that drives against the way the motor turns. The bridge is read by firmware/mpchecks/hbridge.py,
the same file the firmware's twin (firmware/mpchecks/check_brake.py) runs under MicroPython.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from firmware.mpfakes import load_check_module
from gpiozero.pins.mock import MockFactory, MockPWMPin

from unolauncher.clock import VirtualClock
from unolauncher.launcher.backends.gpio.motor_guard import MotorGuard
from unolauncher.launcher.backends.gpio.settings import BRAKE_MS, DeviceSettings
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.pins import DEFAULT_PINS

from .conftest import Rig, make_rig

PINS = DEFAULT_PINS
MOTOR = (PINS.motor_enable, PINS.motor_forward, PINS.motor_reverse)
hbridge = load_check_module("hbridge")
WRITES: list[tuple[float, int, float]] = []  # (virtual time, GPIO, new level) of every change, in order
NOW: list[VirtualClock] = []


class RecordingPin(MockPWMPin):
    """A mock pin that logs every change of level with the virtual clock's time."""

    def _change_state(self, value: Any) -> bool:
        changed: bool = super()._change_state(value)
        if changed and NOW:
            WRITES.append((NOW[0].now(), int(self.info.name.removeprefix("GPIO")), float(value)))
        return changed


@pytest.fixture
def recorded(clock: VirtualClock) -> Iterator[MockFactory]:
    mock = MockFactory(pin_class=RecordingPin)
    WRITES.clear()
    NOW[:] = [clock]
    yield mock
    NOW.clear()
    mock.reset()


def timeline(driver: str) -> tuple[list[tuple[float, str]], list[tuple[float, str, bool]]]:
    """``(settled, steps)`` of ``hbridge.settle`` over every recorded write (writes at one virtual instant are one
    sequence: what lies between them lasts microseconds). A Pi's DRV8833 has IN1/IN2 on/off, PWMA not connected."""
    level = dict.fromkeys(MOTOR, 0.0)
    writes = []
    for when, gpio, value in WRITES:
        if gpio in level:
            level[gpio] = value
            writes.append((when, hbridge.bridge(driver, *(level[g] for g in MOTOR))))
    settled, steps = hbridge.settle(writes)
    return settled, steps


def never_against_the_motor(steps: list[tuple[float, str, bool]]) -> None:
    hbridge.never_against_the_motor(steps)


def brakes_before_reversals(settled: list[tuple[float, str]]) -> list[float]:
    held: list[float] = hbridge.brakes_before_reversals(settled, lambda later, earlier: later - earlier)
    return held


def record(rig: Rig) -> None:
    """Log the rig's motor pins (the virtual toy's own pin class tells listeners of every output change)."""
    for gpio in MOTOR:
        pin = rig.factory.pin(gpio)
        pin.listeners.append(lambda g=gpio, p=pin: WRITES.append((rig.clock.now(), g, float(p.state))))


def runs_back_to_back(rig: Rig, fires: int) -> None:
    for n in range(fires):
        assert rig.launcher.fire(FirePlan(fire=True, cards=2), rig.results.append)
        for _ in range(2000):
            if len(rig.results) == n + 1:
                break  # the next fire at once: only the retract's own brake separates the two
            rig.clock.advance(0.001)
    rig.clock.advance(0.2)


@pytest.mark.parametrize("driver", ["tb6612", "drv8833"])
def test_the_bridge_brakes_before_every_reversal_and_never_drives_against_the_motor(
    recorded: MockFactory, clock: VirtualClock, driver: str
) -> None:
    rig = make_rig(recorded, clock)
    record(rig)
    try:
        clock.advance(0.1)
        runs_back_to_back(rig, 2)
        assert [r.outcome for r in rig.results] == ["ok", "ok"], rig.results
        settled, steps = timeline(driver)
        never_against_the_motor(steps)
        held = brakes_before_reversals(settled)
        assert len(held) == 3, held  # forward -> retract, retract -> forward, forward -> retract
        assert min(held) >= BRAKE_MS / 1000 - 1e-9, held
        assert settled[-1][1] == "coast", settled[-4:]  # the last brake released
    finally:
        rig.launcher.close()


def test_the_guard_refuses_a_reversal_inside_the_gap_and_brakes(recorded: MockFactory, clock: VirtualClock) -> None:
    """The backstop: whoever asks (the selftest's manual drive, a launcher bug), an "on" the other way within
    ``BRAKE_MS`` of the last drive is refused and the motor braked; after the gap it runs."""
    enable, forward, reverse = (recorded.pin(g) for g in MOTOR)
    for pin in (enable, forward, reverse):
        pin.function = "output"
    guard = MotorGuard(enable, forward, reverse, clock)
    assert guard.run(True, False, 1.0, limit_s=2.0)
    clock.advance(0.5)
    assert not guard.run(False, True, 0.5, limit_s=1.0)  # straight from forward into reverse: refused
    assert guard.braking and not guard.on and guard.gap_refusals == 1
    clock.advance(BRAKE_MS / 1000 - 0.002)
    assert not guard.run(False, True, 0.5, limit_s=1.0) and guard.gap_left(False) > 0
    clock.advance(0.002)
    assert guard.gap_left(False) == 0.0 and guard.run(False, True, 0.5, limit_s=1.0)
    assert guard.gap_left(True) == pytest.approx(BRAKE_MS / 1000)  # reversing now: forward waits
    clock.advance(0.1)  # (one virtual instant is one write sequence to the timeline below)
    guard.off()
    clock.advance(0.001)
    assert guard.run(False, True, 0.5, limit_s=1.0), "the same direction needs no gap"
    clock.advance(0.1)
    guard.off()
    clock.advance(0.001)
    guard.brake()  # from a coast: the pin of the way the motor turned (reverse) goes high first
    clock.advance(0.1)
    guard.close()
    for driver in ("tb6612", "drv8833"):
        settled, steps = timeline(driver)
        never_against_the_motor(steps)
        assert min(brakes_before_reversals(settled)) >= BRAKE_MS / 1000 - 1e-9


def test_a_start_right_after_a_manual_reverse_waits_out_the_gap(recorded: MockFactory, clock: VirtualClock) -> None:
    rig = make_rig(recorded, clock, settings=DeviceSettings(magazine=40))
    record(rig)
    results: list[FireResult] = []
    try:
        clock.advance(0.1)
        assert rig.launcher.drive_motor("reverse", 0.4)
        clock.advance(0.2)
        rig.launcher.drive_motor("off")  # a coast: the motor may still turn backwards
        stopped = clock.now()
        assert rig.launcher.fire(FirePlan(fire=True, cards=1), results.append)
        assert not rig.launcher.motor_on and rig.launcher.running  # waiting, not refused
        while not rig.launcher.motor_on and clock.now() - stopped < 1.0:
            clock.advance(0.001)
        assert clock.now() - stopped >= BRAKE_MS / 1000 - 1e-9
        clock.advance(1.0)
        assert [r.outcome for r in results] == ["ok"]
    finally:
        rig.launcher.close()
