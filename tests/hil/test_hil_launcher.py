"""Launcher scenarios, the same on every rig (issue 3, "Hardware-in-loop").

Rigs:
- ``virtual``: the virtual launcher on mock pins in virtual time (instant);
- ``jig``: the loopback jig (hardware/README.md) with the real clock — on real pins through ``lgpio`` when
  ``UNOLAUNCHER_HIL=1`` (on a Pi with the jig wired), otherwise with the jig's wires emulated on mock pins, so the
  HIL code itself runs in CI and never skips.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from support.claims import ModelClaims
from unolauncher.clock import RealClock, VirtualClock
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.pins import DEFAULT_JIG, DEFAULT_PINS
from unolauncher.launcher.press import PressHandler
from unolauncher.rules.ejection import EjectionModel

from .jig import JigToy, wire_mock_jig

HIL = os.environ.get("UNOLAUNCHER_HIL") == "1"
SETTINGS = DeviceSettings(jam_timeout_s=0.5, max_run_s=3.0, retract_ms=50, settle_ms=40, magazine=40)

pytestmark = pytest.mark.hil


@dataclass
class Bench:
    launcher: GpioLauncher
    toy: Any  # VirtualLauncher or JigToy: press_button, open_lid, close_lid, jam, load, magazine, motor_pin_high
    wait: Callable[[float], None]
    events: list[dict[str, Any]] = field(default_factory=list)
    hits: list[tuple[str | None, FirePlan, FireResult]] = field(default_factory=list)

    def until(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        for _ in range(int(timeout / 0.01)):
            if predicate():
                return True
            self.wait(0.01)
        return predicate()

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


def make_press_handler(bench: Bench, cards: int = 3) -> PressHandler:
    always = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {str(cards): 1}}
    return PressHandler(
        bench.launcher,
        ModelClaims(EjectionModel("custom", always)).claim,
        lambda player, plan, result: bench.hits.append((player, plan, result)),
        bench.events.append,
    )


@pytest.fixture(params=["virtual", "jig"])
def bench(request: pytest.FixtureRequest) -> Iterator[Bench]:
    if request.param == "virtual":
        factory = MockFactory(pin_class=MockPWMPin)
        clock = VirtualClock()
        toy: Any = VirtualLauncher(factory, clock, DEFAULT_PINS, VirtualParams(magazine=40))
        launcher = GpioLauncher(factory, clock, DEFAULT_PINS, SETTINGS)
        built = Bench(launcher, toy, clock.advance)
    else:
        if HIL:
            from gpiozero.pins.lgpio import LGPIOFactory

            factory = LGPIOFactory()
        else:
            factory = MockFactory(pin_class=MockPWMPin)
            wire_mock_jig(factory, DEFAULT_PINS, DEFAULT_JIG)
        rclock = RealClock()
        launcher = GpioLauncher(factory, rclock, DEFAULT_PINS, SETTINGS)
        toy = JigToy(factory, DEFAULT_JIG, rclock, magazine=40)
        built = Bench(launcher, toy, time.sleep)
        assert built.until(lambda: not launcher.lid_open, 1.0), "the jig's lid line does not reach the launcher"
    try:
        yield built
    finally:
        built.launcher.close()
        if isinstance(built.toy, JigToy):
            built.toy.close()
        if isinstance(factory, MockFactory):
            factory.reset()
        else:
            factory.close()


def test_press_fires_and_counts(bench: Bench) -> None:
    make_press_handler(bench, cards=3)
    bench.toy.press_button()
    assert bench.until(lambda: bench.toy.motor_pin_high, 0.5)
    assert bench.until(lambda: bool(bench.hits), 5)
    result = bench.hits[0][2]
    assert result.outcome == "ok" and result.cards_out == 3
    assert bench.toy.magazine == 37 and bench.launcher.magazine_estimate == 37
    assert bench.until(lambda: not bench.toy.motor_pin_high, 1)


def test_rapid_presses_ignored(bench: Bench) -> None:
    make_press_handler(bench, cards=4)
    bench.toy.press_button(hold_s=0.05)
    bench.wait(0.2)
    bench.toy.press_button(hold_s=0.05)
    assert bench.until(lambda: bool(bench.hits), 5)
    assert bench.types().count("ignored_press") == 1 and len(bench.hits) == 1


def test_jam_stops_motor(bench: Bench) -> None:
    bench.toy.jam()
    done: list[FireResult] = []
    bench.launcher.on_event = bench.events.append
    bench.launcher.fire(FirePlan(fire=True, cards=3), done.append)
    assert bench.until(lambda: bool(done), 3)
    assert done[0].outcome == "jam" and "jam" in bench.types()
    assert not bench.toy.motor_pin_high


def test_empty_magazine(bench: Bench) -> None:
    bench.toy.empty()
    bench.launcher.set_magazine(0)  # the table knows it: a run that finds no card is "empty", not a jam
    done: list[FireResult] = []
    bench.launcher.on_event = bench.events.append
    bench.launcher.fire(FirePlan(fire=True, cards=2), done.append)
    assert bench.until(lambda: bool(done), 3)
    assert done[0].outcome == "empty" and done[0].cards_out == 0 and "magazine_empty" in bench.types()


def test_lid_open_stops_motor_and_refills(bench: Bench) -> None:
    done: list[FireResult] = []
    bench.launcher.fire(FirePlan(fire=True, cards=30), done.append)
    bench.wait(0.3)
    bench.toy.open_lid()
    assert bench.until(lambda: bool(done), 1)
    assert done[0].outcome == "stopped" and not bench.toy.motor_pin_high
    assert bench.until(lambda: bench.launcher.lid_open, 1)
    assert bench.launcher.magazine_estimate == 40
    bench.toy.close_lid()
    assert bench.until(lambda: not bench.launcher.lid_open, 1)
