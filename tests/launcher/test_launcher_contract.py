"""The :class:`~unolauncher.launcher.interface.Launcher` contract, run against every backend.

In the style of gpiozero's per-pin-factory tests: one suite, parametrized over the ways a launcher is built -

- ``gpio``: :class:`GpioLauncher` built as on a Pi, on gpiozero mock pins, with the simulated toy on those pins;
- ``virtual``: the daemon's ``virtual`` backend, as :func:`create_launcher` builds it (virtual clock);
- ``serial``: :class:`SerialLauncher` over a real pty to the co-processor firmware running under CPython with the
  simulated launcher (real time, real threads).

Each backend is wrapped in a :class:`Bench` that knows how to watch the *physical* motor (the toy's driver pin, the
firmware board's motor output) and how to wait (advance the virtual clock, or poll in real time), so every
assertion below is about what the hardware would do, not about what the backend says about itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from firmware.fwsim import SimDevice
from firmware.mpfakes import mp_time
from gpiozero.pins.mock import MockFactory, MockPWMPin

from support.net import wait_until
from unolauncher.clock import RealClock, VirtualClock
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.launcher import SerialLauncher, SerialSettings
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
from unolauncher.launcher.factory import create_launcher
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher
from unolauncher.launcher.pins import DEFAULT_PINS

MAX_RUN_S = 0.5  # short, so the max-run test is quick; the toy ejects 9 (virtual) or 40 (firmware sim) cards a second
MAGAZINE = 40
LONG = FirePlan(fire=True, cards=30)  # more cards than fit in MAX_RUN_S on either toy: the run lasts until max_run
SHORT = FirePlan(fire=True, cards=3)


class Bench:
    """One backend with its simulated toy, and the recorded callbacks."""

    name: str
    launcher: Launcher

    def __init__(self) -> None:
        self.results: list[FireResult] = []
        self.events: list[dict[str, Any]] = []

    def attach(self) -> None:
        self.launcher.on_event = self.events.append

    def motor_on(self) -> bool:
        """The physical motor is driven."""
        raise NotImplementedError

    def motor_starts(self) -> int:
        """How many times the physical motor has been switched on so far."""
        raise NotImplementedError

    def ejected(self) -> int:
        """Cards that physically left the toy so far."""
        raise NotImplementedError

    def set_lid(self, is_open: bool) -> None:
        raise NotImplementedError

    def wait(self, predicate: Callable[[], object], timeout_s: float = 3.0) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def fire(self, plan: FirePlan) -> bool:
        return self.launcher.fire(plan, self.results.append)

    def fire_long_and_wait_for_motor(self) -> None:
        assert self.fire(LONG)
        assert self.wait(self.motor_on), "the motor never started"


class ToyBench(Bench):
    """GPIO code on mock pins with the virtual toy, on a virtual clock."""

    def __init__(
        self, name: str, launcher: Launcher, sim: VirtualLauncher, clock: VirtualClock, factory: MockFactory | None
    ) -> None:
        super().__init__()
        self.name, self.launcher, self.sim, self.clock, self.factory = name, launcher, sim, clock, factory
        self.attach()

    def motor_on(self) -> bool:
        return self.sim.motor_pin_high

    def motor_starts(self) -> int:
        return self.sim.motor_starts

    def ejected(self) -> int:
        return self.sim.cards_out

    def set_lid(self, is_open: bool) -> None:
        if is_open:
            self.sim.open_lid()
        else:
            self.sim.close_lid()

    def wait(self, predicate: Callable[[], object], timeout_s: float = 3.0) -> bool:
        deadline = self.clock.now() + timeout_s
        while not predicate():
            if self.clock.now() >= deadline:
                return False
            self.clock.advance(0.005)
        return True

    def close(self) -> None:
        self.launcher.close()
        if self.factory is not None:
            self.factory.reset()


class SerialBench(Bench):
    """The serial backend and the firmware under CPython on a pty, in real time."""

    def __init__(self, device: SimDevice) -> None:
        super().__init__()
        self.name = "serial"
        self.device = device
        settings = SerialSettings(
            port=str(device.link), magazine=MAGAZINE, device=sp.DeviceConfig(max_run_ms=round(MAX_RUN_S * 1000))
        )
        self.launcher = SerialLauncher(settings, RealClock())
        self.attach()
        assert wait_until(lambda: self.launcher.status().extra["connected"], 5), self.launcher.status()

    def motor_on(self) -> bool:
        return self.device.motor_on()

    def motor_starts(self) -> int:
        physics = self.device.physics
        assert physics is not None
        return sum(1 for _, direction in physics.trace if direction == 1)

    def ejected(self) -> int:
        physics = self.device.physics
        assert physics is not None
        return physics.ejected

    def set_lid(self, is_open: bool) -> None:
        self.device.set_lid(is_open)

    def wait(self, predicate: Callable[[], object], timeout_s: float = 3.0) -> bool:
        return wait_until(predicate, timeout_s, interval=0.002)

    def close(self) -> None:
        self.launcher.close()
        self.device.close()
        mp_time.use_real()


def gpio_bench() -> Bench:
    clock = VirtualClock()
    factory = MockFactory(pin_class=MockPWMPin)
    sim = VirtualLauncher(factory, clock, DEFAULT_PINS, VirtualParams(magazine=MAGAZINE))
    launcher = GpioLauncher(factory, clock, DEFAULT_PINS, DeviceSettings(magazine=MAGAZINE, max_run_s=MAX_RUN_S))
    return ToyBench("gpio", launcher, sim, clock, factory)


def virtual_bench() -> Bench:
    clock = VirtualClock()
    launcher, sim = create_launcher({"backend": "virtual", "magazine": MAGAZINE, "max_run_s": MAX_RUN_S}, clock)
    assert sim is not None
    return ToyBench("virtual", launcher, sim, clock, None)  # its MockFactory is create_launcher's own


@pytest.fixture(params=["gpio", "virtual", "serial"])
def bench(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Bench]:
    built = {"gpio": gpio_bench, "virtual": virtual_bench}.get(request.param)
    made = built() if built is not None else SerialBench(SimDevice(tmp_path / "ttyUNO"))
    try:
        yield made
    finally:
        made.close()


def test_motor_is_off_after_construction(bench: Bench) -> None:
    status = bench.launcher.status()
    assert not bench.motor_on() and bench.motor_starts() == 0
    assert not status.motor_on and not status.running


def test_fire_runs_and_reports_exactly_one_result_with_the_cards_counted(bench: Bench) -> None:
    assert bench.fire(SHORT)
    assert bench.wait(lambda: bench.results)
    assert bench.wait(lambda: not bench.motor_on())
    bench.wait(lambda: len(bench.results) > 1, 0.3)  # a second result would be a bug: give it the time to show
    [result] = bench.results
    assert (result.outcome, result.cards_out, result.counted) == ("ok", 3, True)
    assert bench.ejected() == 3  # what the sensor counted is what physically came out
    assert bench.motor_starts() == 1


def test_a_fire_while_running_is_refused(bench: Bench) -> None:
    bench.fire_long_and_wait_for_motor()
    assert not bench.launcher.fire(SHORT, bench.results.append)
    assert bench.wait(lambda: bench.results)
    bench.wait(lambda: len(bench.results) > 1, 0.3)
    assert [r.outcome for r in bench.results] == ["max_run"]  # the refused fire never reported anything
    assert bench.motor_starts() == 1


def test_lid_open_refuses_fire_without_starting_the_motor(bench: Bench) -> None:
    bench.set_lid(True)
    assert bench.wait(lambda: bench.launcher.status().lid_open)
    accepted = bench.fire(SHORT)
    # Refused at once (GPIO knows the lid), or by the firmware (a fault result with no card): never a run.
    assert bench.wait(lambda: not accepted or bench.results)
    bench.wait(lambda: not bench.motor_on() and bench.motor_starts() > 0, 0.3)
    assert bench.motor_starts() == 0 and bench.ejected() == 0
    if accepted:
        assert [(r.outcome, r.cards_out) for r in bench.results] == [("fault", 0)]
    assert {"type": "fault", "reason": "lid_open", "message": "The lid is open: close it to fire."} in bench.events


def test_opening_the_lid_stops_a_running_motor(bench: Bench) -> None:
    bench.fire_long_and_wait_for_motor()
    bench.set_lid(True)
    assert bench.wait(lambda: not bench.motor_on(), 0.2)  # well before MAX_RUN_S would have stopped it
    assert bench.wait(lambda: bench.results)
    [result] = bench.results
    assert result.outcome == "stopped" and result.cards_out == bench.ejected()
    assert bench.wait(lambda: bench.launcher.status().lid_open)  # reported once debounced / sent by the firmware
    assert not bench.launcher.status().running


def test_set_enabled_false_stops_the_motor_and_refuses_fire_until_enabled(bench: Bench) -> None:
    bench.fire_long_and_wait_for_motor()
    bench.launcher.set_enabled(False)
    assert bench.wait(lambda: not bench.motor_on(), 0.2)
    assert bench.wait(lambda: bench.results)
    assert [r.outcome for r in bench.results] == ["stopped"]
    assert not bench.launcher.status().enabled
    assert not bench.fire(SHORT)
    bench.wait(bench.motor_on, 0.2)
    assert not bench.motor_on() and bench.motor_starts() == 1
    bench.launcher.set_enabled(True)
    assert bench.launcher.status().enabled
    assert bench.fire(SHORT)
    assert bench.wait(lambda: len(bench.results) == 2)
    assert bench.results[1].outcome == "ok"


def test_status_fields(bench: Bench) -> None:
    launcher = bench.launcher
    status = launcher.status()
    assert status.backend == bench.name
    assert (status.lid_open, status.jammed, status.has_sensor, status.enabled) == (False, False, True, True)
    assert status.magazine_estimate == MAGAZINE
    bench.fire_long_and_wait_for_motor()
    assert bench.wait(lambda: launcher.status().motor_on)
    assert launcher.status().running
    assert bench.wait(lambda: bench.results)
    status = launcher.status()
    assert not status.motor_on and not status.running
    assert status.magazine_estimate == MAGAZINE - bench.results[0].cards_out
    launcher.set_magazine(12)
    assert launcher.status().magazine_estimate == 12
    bench.set_lid(True)
    assert bench.wait(lambda: launcher.status().lid_open)


def test_max_run_time_is_enforced(bench: Bench) -> None:
    bench.fire_long_and_wait_for_motor()
    assert bench.wait(lambda: bench.results, MAX_RUN_S + 1.0)
    assert bench.wait(lambda: not bench.motor_on(), 0.3)
    [result] = bench.results
    assert result.outcome == "max_run" and 0 < result.cards_out < LONG.cards
    assert result.cards_out == bench.ejected()
    assert MAX_RUN_S * 1000 * 0.8 <= result.ran_ms <= MAX_RUN_S * 1000 + 150
    [event] = [e for e in bench.events if e["type"] == "max_run"]
    assert event["limit_s"] == MAX_RUN_S


def test_motor_is_off_after_close_and_the_run_ends_once(bench: Bench) -> None:
    bench.fire_long_and_wait_for_motor()
    bench.launcher.close()
    assert bench.wait(lambda: not bench.motor_on(), 0.2)
    assert bench.wait(lambda: bench.results)
    bench.wait(lambda: len(bench.results) > 1, 0.3)
    assert [r.outcome for r in bench.results] == ["stopped"]
    assert not bench.launcher.fire(SHORT, bench.results.append)  # closed: refused
    bench.launcher.close()  # twice is fine


def test_indicate_set_magazine_and_health_are_there_on_every_backend(bench: Bench) -> None:
    """The methods the press path and the watchdog call without probing (Launcher protocol)."""
    bench.launcher.indicate(True, 2)  # feedback only: it must not touch the motor
    bench.launcher.indicate(False, 0)
    assert bench.launcher.health(time.monotonic(), 5.0) == []  # nothing stuck on an idle launcher
    bench.launcher.set_magazine(None)
    assert bench.launcher.status().magazine_estimate is None
    assert not bench.motor_on() and bench.motor_starts() == 0
