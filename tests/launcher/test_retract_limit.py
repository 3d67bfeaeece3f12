"""A normal retract stays inside the run's time limit (issue 26 item 4), on the real GPIO code and the simulated toy
(mock pins, virtual time: the eject's length is exact)."""

from __future__ import annotations

from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from unolauncher.clock import VirtualClock
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
from unolauncher.launcher.interface import FirePlan
from unolauncher.launcher.pins import DEFAULT_PINS

MAX_RUN_S = 0.5


@pytest.mark.parametrize(
    "cards, retract_s",
    # 1 card: the eject ends at 0.05 s, the whole 120 ms retract fits. 4 cards: the eject ends at 0.425 s and the
    # coast (settle) at 0.465 s: 35 ms are left of the run's 0.5 s, and the retract gets just that.
    [(1, 0.12), (4, 0.035)],
    ids=["retract-fits", "retract-cut-at-the-limit"],
)
def test_a_normal_retract_ends_within_max_run(cards: int, retract_s: float) -> None:
    factory, clock = MockFactory(pin_class=MockPWMPin), VirtualClock()
    toy = VirtualLauncher(factory, clock, DEFAULT_PINS, VirtualParams(magazine=40, cards_per_s=8.0, spin_up_ms=50))
    settings = DeviceSettings(magazine=40, max_run_s=MAX_RUN_S, jam_timeout_s=0.45, retract_ms=120, settle_ms=40)
    launcher = GpioLauncher(factory, clock, DEFAULT_PINS, settings)
    changes: list[tuple[float, bool, bool]] = []  # (time, enable high, reverse)
    toy.pin("motor_enable").listeners.append(
        lambda: changes.append((clock.now(), toy.motor_pin_high, bool(toy.pin("motor_reverse").state)))
    )
    results: list[Any] = []
    try:

        def press() -> None:
            launcher.fire(FirePlan(fire=True, cards=cards), results.append)

        launcher.on_press = press
        toy.press_button()
        clock.advance(3.0)
        assert results and results[0].outcome == "ok", results
        ons = [t for t, high, _ in changes if high]
        offs = [t for t, high, _ in changes if not high]
        reverse = [t for t, high, rev in changes if high and rev]
        assert ons and offs[-1] - ons[0] <= MAX_RUN_S + 1e-9, f"the motor was on until {offs[-1] - ons[0]:.3f} s"
        assert len(reverse) == 1, changes
        assert offs[-1] - reverse[0] == pytest.approx(retract_s), changes
    finally:
        launcher.close()
