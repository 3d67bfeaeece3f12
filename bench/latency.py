#!/usr/bin/env python3
"""Press-edge → motor-pin-high latency through the whole press path, against a bare gpiozero baseline.

Whole path (what the daemon wires): mock button pin falls → GpioLauncher edge callback (own debounce, the
watchdog's progress mark) → PressHandler → the daemon's ``PressGate.claim`` (the referee's next plan from the
snapshot the table published after the previous hit: one swap under the gate's own lock, never ``Table.lock``)
→ GpioLauncher.fire → MotorGuard (deadline armed, then the driver pins); ``Table.on_hit`` after each run, which
applies the press's ``pressed`` and the hit to the referee and publishes the next snapshot. The table's worker is not
started (the journal is written off this path), so its records just gather. Baseline, same run, same pin class:
``Button.when_pressed = motor.forward`` on a gpiozero ``Motor``. Both time from just before ``drive_low()`` to the
moment the motor pin's state becomes > 0 (recorded inside the pin), alternating press by press so machine noise hits
both alike. Also: presses/s the ejection model plans.

    .venv/bin/python bench/latency.py [--presses 20000] [--plans 200000]

Targets (issue 3): median ≤ 2x and p99 ≤ 3x the baseline.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gpiozero import Button, Motor
from gpiozero.pins.mock import MockFactory, MockPWMPin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # support.benchstats

from support.benchstats import TimedPin, percentile, timed_press
from unolauncher.clock import VirtualClock
from unolauncher.daemon.table import Table
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.pins import DEFAULT_PINS
from unolauncher.launcher.press import PressHandler
from unolauncher.rules.ejection import EjectionModel
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

ALWAYS = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"3": 1}}  # every press fires, no suspense


class QuietOutput:
    """The table's output with nowhere to go (the worker, which would use it, is not started)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: 0


def daemon_table(state_dir: Path) -> Table:
    """The daemon's table on a real referee: a table-mode Attack game whose every press fires; hits carry the count,
    so the game goes on turn after turn."""
    table = Table(Journal(state_dir / "journal.sqlite3"), Referee, QuietOutput())
    accepted = table.apply(  # as the worker would (journalled; the next press's snapshot published)
        {"type": "new_game", "ruleset": "attack", "players": ["ann", "bo"], "seed": 1, "mode": "table",
         "secret": "5e" * 32,
         "options": {"ejection_preset": "custom", "ejection_custom": ALWAYS, "target_score": 10**6}}
    )[0]  # fmt: skip
    assert accepted
    return table


def plans_per_second(count: int) -> dict[str, float]:
    rates = {}
    for preset in ("classic", "sequence"):
        model = EjectionModel(preset)
        state = model.start("5e" * 32)
        started = time.perf_counter()
        for _ in range(count):
            _, state = model.plan(state, "ann")
        rates[preset] = count / (time.perf_counter() - started)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=20000)
    parser.add_argument("--plans", type=int, default=200000)
    args = parser.parse_args()

    factory = MockFactory(pin_class=MockPWMPin)
    clock = VirtualClock()
    pins = DEFAULT_PINS
    factory.pin(pins.motor_enable, pin_class=TimedPin)
    # Lid closed, as in a real game (the mock pin would float up to "open").
    launcher = GpioLauncher(factory, clock, pins, DeviceSettings(settle_ms=0, retract_ms=0))
    factory.pin(pins.lid).drive_low()
    clock.advance(1)
    hits: list[Any] = []
    state_dir = Path(tempfile.mkdtemp(prefix="latency-"))
    table = daemon_table(state_dir)

    def on_hit(*result: Any) -> None:
        hits.append(result)
        table.on_hit(*result)

    PressHandler(launcher, table.press.claim, on_hit, lambda e: None)
    # The baseline on other pins of the same factory.
    factory.pin(5, pin_class=TimedPin)
    bare_motor = Motor(forward=5, backward=13, pwm=True, pin_factory=factory)
    bare_button = Button(26, pin_factory=factory)
    bare_button.when_pressed = bare_motor.forward
    button, sensor, bare_pin = factory.pin(pins.button), factory.pin(pins.sensor), factory.pin(26)

    def full_press() -> float:
        sample = timed_press(button, "the full path")
        for _ in range(3):  # the plan's cards pass the beam, 10 ms apart (the glitch filter drops < 4 ms): run ends
            clock.advance(0.01)
            sensor.drive_low()
            sensor.drive_high()
        clock.advance(0.5)
        return sample

    def bare_press() -> float:
        sample = timed_press(bare_pin, "the baseline")
        bare_motor.stop()
        return sample

    for _ in range(200):  # warm-up
        full_press()
        bare_press()
    gc.collect()
    full: list[float] = []
    bare: list[float] = []
    for _ in range(args.presses):  # alternate press by press, so load spikes hit both paths alike
        full.append(full_press())
        bare.append(bare_press())
    if len(hits) < len(full):
        raise RuntimeError("not every press produced a hit")
    launcher.close()
    table.journal.close()
    shutil.rmtree(state_dir, ignore_errors=True)
    bare_button.close()
    bare_motor.close()

    med_full, med_bare = statistics.median(full), statistics.median(bare)
    p99_full, p99_bare = percentile(full, 0.99), percentile(bare, 0.99)
    print(f"press-edge -> motor-pin-high on gpiozero mock pins, {len(full)} presses each, alternating")
    print(
        "claim: the table's published snapshot of a real referee's next plan, one swap under its press lock (every "
        "press fires, no suspense); motor pins written by the MotorGuard"
    )
    print(f"{'path':<44}{'median us':>10}{'p99 us':>10}")
    print(f"{'bare gpiozero when_pressed -> Motor.forward':<44}{med_bare:>10.1f}{p99_bare:>10.1f}")
    print(f"{'button -> PressHandler -> snapshot -> device':<44}{med_full:>10.1f}{p99_full:>10.1f}")
    ratio_med, ratio_p99 = med_full / med_bare, p99_full / p99_bare
    print(f"ratio: median {ratio_med:.2f}x (target <= 2x), p99 {ratio_p99:.2f}x (target <= 3x)")
    rates = plans_per_second(args.plans)
    print("ejection model plans/s: " + ", ".join(f"{k} {v:,.0f}" for k, v in rates.items()))
    print("targets met" if ratio_med <= 2 and ratio_p99 <= 3 else "TARGETS MISSED")


if __name__ == "__main__":
    main()
