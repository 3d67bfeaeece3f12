"""``unolauncher selftest``: check a freshly wired launcher part by part, with a pass/fail line for each.

1. the pin map (defaults, or ``--pins FILE``) is valid;
2. every pin can be claimed, and the inputs read sensible idle levels (button up, lid closed, beam clear);
3. the motor is pulsed briefly forward then back (watch the wheel turn both ways);
4. a button press is awaited (press it within ``--timeout`` seconds);
5. one card is fired through the beam sensor and counted (closed loop, stops at the first card).

``--virtual`` runs the same steps against the virtual launcher in virtual time (a simulated person presses the
button); that is how the command itself is tested. Exit 0 when every part passed, 1 when one failed, 2 when the
test could not start (bad pin file, no GPIO). ``--calibrate`` measures cards per second instead and writes
``ms_per_card`` to the configuration (:mod:`unolauncher.launcher.calibrate`).

Example::

    $ unolauncher selftest --pins my-pins.toml
    PASS  pin map          9 parts on GPIO 12, 23, 24, 17, 27, 22, 6, 25, 16
    ...
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gpiozero import DigitalInputDevice, DigitalOutputDevice

from unolauncher.clock import Clock, RealClock, VirtualClock
from unolauncher.launcher.factory import LauncherSetupError, make_pin_factory
from unolauncher.launcher.gpio import DeviceSettings, GpioLauncher
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.pins import DEFAULT_PINS, OUTPUT_ROLES, PinMap, PinMapError, load_pin_file
from unolauncher.launcher.virtual import VirtualLauncher, VirtualParams
from unolauncher.launcher.waits import Wait, real_wait, virtual_wait

Result = tuple[str, bool, str]


class PrintedResults(list[Result]):
    """Results that are printed the moment they are known (a person is waiting at the box)."""

    def append(self, item: Result) -> None:
        part, ok, detail = item
        print(f"{'PASS' if ok else 'FAIL'}  {part:<16} {detail}", flush=True)
        super().append(item)

    def extend(self, items: Iterable[Result]) -> None:
        for item in items:
            self.append(item)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pins", help="pins TOML file (default: the built-in map, hardware/pins.toml)")
    parser.add_argument("--virtual", action="store_true", help="test against the virtual launcher (no hardware)")
    parser.add_argument("--pin-factory", help="gpiozero pin factory: lgpio (default), rpigpio, pigpio, native")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for the button (default 20)")
    parser.add_argument("--virtual-magazine", type=int, default=10, help=argparse.SUPPRESS)
    parser.add_argument("--virtual-no-press", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--calibrate", action="store_true",
                        help="measure cards per second through the beam and write ms_per_card to --config")
    parser.add_argument("--config", help="configuration file for --calibrate (default /etc/unolauncher/config.toml)")


def run(args: argparse.Namespace) -> int:
    if args.calibrate:
        from unolauncher.launcher.calibrate import run_calibration

        return run_calibration(args)
    results: list[Result] = PrintedResults()
    try:
        pins = load_pin_file(Path(args.pins)) if args.pins else DEFAULT_PINS
    except PinMapError as exc:
        print(f"unolauncher selftest: {exc}", file=sys.stderr)
        return 2
    if not 0.1 <= args.timeout <= 600:
        print("unolauncher selftest: --timeout must be between 0.1 and 600 seconds", file=sys.stderr)
        return 2
    used = ", ".join(str(gpio) for _, gpio in pins.items())
    results.append(("pin map", True, f"{len(pins.items())} parts on GPIO {used}"))
    virtual: VirtualLauncher | None = None
    clock: Clock
    if args.virtual:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        if args.virtual_magazine < 0:
            print("unolauncher selftest: --virtual-magazine must be 0 or more", file=sys.stderr)
            return 2
        vclock = VirtualClock()
        clock = vclock
        factory: Any = MockFactory(pin_class=MockPWMPin)
        virtual = VirtualLauncher(factory, vclock, pins, VirtualParams(magazine=args.virtual_magazine))
        wait = virtual_wait(vclock)
    else:
        try:
            factory = make_pin_factory(args.pin_factory)
        except LauncherSetupError as exc:
            print(f"unolauncher selftest: {exc}", file=sys.stderr)
            return 2
        clock = RealClock()
        wait = real_wait
    try:
        results.extend(check_pins(pins, factory))
        if all(ok for _, ok, _ in results):
            run_parts(pins, factory, clock, wait, args.timeout, virtual, not args.virtual_no_press, results)
    finally:
        if hasattr(factory, "close") and not args.virtual:
            factory.close()
    failed = [part for part, ok, _ in results if not ok]
    print("all parts passed" if not failed else f"failed: {', '.join(failed)}")
    return 0 if not failed else 1


def check_pins(pins: PinMap, factory: Any) -> list[Result]:
    """Claim each pin on its own (so a dead or busy pin is named) and read the inputs' idle levels."""
    results: list[Result] = []
    for role, gpio in pins.items():
        try:
            if role in OUTPUT_ROLES:
                device: Any = DigitalOutputDevice(gpio, initial_value=False, pin_factory=factory)
                detail = f"GPIO {gpio} output, driven low"
                ok = True
            else:
                device = DigitalInputDevice(gpio, pull_up=True, pin_factory=factory)
                active = bool(device.value)  # pull-up: active = line held low
                ok, detail = _idle_check(role, gpio, active)
            device.close()
        except Exception as exc:
            ok, detail = False, f"GPIO {gpio} cannot be used: {exc}"
        results.append((f"pin {role}", ok, detail))
    return results


def _idle_check(role: str, gpio: int, low: bool) -> tuple[bool, str]:
    if role == "button" or role == "uno":
        return (not low, f"GPIO {gpio} " + ("reads pressed at rest: check the wiring" if low else "released"))
    if role == "sensor":
        return (not low, f"GPIO {gpio} " + ("beam blocked or receiver unpowered" if low else "beam clear"))
    if role == "lid":
        return (low, f"GPIO {gpio} " + ("lid closed" if low else "lid open or switch unwired: close the lid"))
    return True, f"GPIO {gpio} input"


def run_parts(
    pins: PinMap,
    factory: Any,
    clock: Clock,
    wait: Wait,
    timeout: float,
    virtual: VirtualLauncher | None = None,
    simulate_press: bool = True,
    results: list[Result] | None = None,
) -> list[Result]:
    """Motor pulse, button press and one card, on a :class:`GpioLauncher` built on ``factory``."""
    results = [] if results is None else results
    launcher = GpioLauncher(factory, clock, pins, DeviceSettings(jam_timeout_s=2.0, max_run_s=3.0, retract_ms=0))
    try:
        # Motor: short forward and reverse pulses at half power (no card should leave at this speed and length).
        seen: list[str] = []
        launcher.drive_motor("forward", 0.5)
        seen.append(virtual.motor_direction if virtual else "forward")
        wait(lambda: False, 0.1)
        launcher.drive_motor("reverse", 0.5)
        seen.append(virtual.motor_direction if virtual else "reverse")
        wait(lambda: False, 0.1)
        launcher.drive_motor("off")
        motor_ok = seen == ["forward", "reverse"] and not launcher.motor_on
        results.append(("motor", motor_ok, "pulsed forward then reverse (the wheel should twitch both ways)"))

        presses: list[float] = []
        launcher.on_press = lambda: presses.append(clock.now())
        print(f"press the launcher button within {timeout:g} s ...", flush=True)
        if virtual is not None and simulate_press:
            clock.call_later(0.3, virtual.press_button)
        pressed = wait(lambda: bool(presses), timeout)
        results.append(("button", pressed, "press seen" if pressed else f"no press within {timeout:g} s"))
        launcher.on_press = None

        if pins.sensor is None:
            results.append(("card sensor", True, "not fitted: the launcher will run open loop"))
        else:
            done: list[FireResult] = []
            launcher.fire(FirePlan(fire=True, cards=1, run_ms=400, power=1.0), done.append)
            wait(lambda: bool(done), 6.0)
            result = done[0] if done else None
            ok = result is not None and result.cards_out >= 1
            if result is None:
                detail = "the run did not finish"
            elif ok:
                detail = f"{result.cards_out} card(s) counted after {result.ran_ms} ms"
            else:
                detail = f"no card counted ({result.outcome}): check the magazine, the beam and the motor"
            results.append(("card sensor", ok, detail))
    finally:
        launcher.close()
    return results
