"""``unolauncher selftest``: check a freshly wired launcher part by part, with a pass/fail line for each.

1. the pin map (defaults, or ``--pins FILE``) is valid;
2. the GPIO parts, in order (:mod:`unolauncher.launcher.gpio_selftest`): pins and idle levels, the motor driver's
   pull-downs, ``strict_gpiod``, a button press within ``--timeout`` seconds, one card fired through the beam.

Each FAIL line names the fix. ``--serial PORT`` runs the same parts on a launcher behind the Pico co-processor
(:mod:`unolauncher.launcher.serial_selftest`). ``--virtual`` runs the same steps against the virtual launcher in
virtual time (a simulated person presses the button and watches the wheel); that is how the command itself is
tested. Exit 0 when no part failed, 1 when one did, 2 when the test could not start (bad pin file, no GPIO).
``--calibrate`` measures cards per second instead and writes ``ms_per_card`` to the configuration (the measuring
and the writing: :mod:`unolauncher.launcher.calibrate`).

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

from unolauncher.launcher.factory import LauncherSetupError
from unolauncher.launcher.gpio_selftest import Result, VirtualBox, run_gpio
from unolauncher.launcher.pins import DEFAULT_PINS, PinMapError, load_pin_file


class PrintedResults(list[Result]):
    """Results that are printed the moment they are known (a person is waiting at the box).

    >>> PrintedResults().append(("lid", True, "GPIO 6 lid closed"))
    PASS  lid              GPIO 6 lid closed
    """

    def append(self, item: Result) -> None:
        part, ok, detail = item
        print(f"{'SKIP' if ok is None else 'PASS' if ok else 'FAIL'}  {part:<16} {detail}", flush=True)
        super().append(item)

    def extend(self, items: Iterable[Result]) -> None:
        for item in items:
            self.append(item)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pins", help="pins TOML file (default: the built-in map, hardware/pins.toml)")
    parser.add_argument("--virtual", action="store_true", help="test against the virtual launcher (no hardware)")
    parser.add_argument("--pin-factory", help="gpiozero pin factory: lgpio (default), rpigpio, pigpio, native")
    parser.add_argument("--board-revision", help="the Pi revision code when the kernel has none (configuration.md)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for the button (default 20)")
    parser.add_argument("--virtual-magazine", type=int, default=10, help=argparse.SUPPRESS)
    parser.add_argument("--virtual-no-press", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--virtual-no-pull-downs", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="measure cards per second through the beam and write ms_per_card to --config",
    )
    parser.add_argument("--config", help="configuration file for --calibrate (default /etc/unolauncher/config.toml)")
    parser.add_argument(
        "--serial",
        metavar="PORT",
        help="test a launcher behind the Pico co-processor on PORT (e.g. /dev/ttyACM0) instead of GPIO",
    )


def run(args: argparse.Namespace) -> int:
    if args.calibrate:
        return _run_calibration(args)
    results: list[Result] = PrintedResults()
    if args.serial:
        return _run_serial(args, results)
    try:
        pins = load_pin_file(Path(args.pins)) if args.pins else DEFAULT_PINS
    except PinMapError as exc:
        print(f"unolauncher selftest: {exc}", file=sys.stderr)
        return 2
    if not 0.1 <= args.timeout <= 600:
        print("unolauncher selftest: --timeout must be between 0.1 and 600 seconds", file=sys.stderr)
        return 2
    if args.virtual and args.virtual_magazine < 0:
        print("unolauncher selftest: --virtual-magazine must be 0 or more", file=sys.stderr)
        return 2
    used = ", ".join(str(gpio) for _, gpio in pins.items())
    results.append(("pin map", True, f"{len(pins.items())} parts on GPIO {used}"))
    virtual = None
    if args.virtual:
        virtual = VirtualBox(args.virtual_magazine, not args.virtual_no_press, not args.virtual_no_pull_downs)
    try:
        run_gpio(
            pins,
            results,
            timeout=args.timeout,
            pin_factory=args.pin_factory,
            board_revision=args.board_revision,
            virtual=virtual,
        )
    except LauncherSetupError as exc:
        print(f"unolauncher selftest: {exc}", file=sys.stderr)
        return 2
    failed = [part for part, ok, _ in results if ok is False]
    print("all parts passed" if not failed else f"failed: {', '.join(failed)}")
    return 0 if not failed else 1


def _run_serial(args: argparse.Namespace, results: list[Result]) -> int:
    from unolauncher.launcher.serial_selftest import run_serial

    if not 0.1 <= args.timeout <= 600:
        print("unolauncher selftest: --timeout must be between 0.1 and 600 seconds", file=sys.stderr)
        return 2
    status = run_serial(args.serial, args.timeout, results)
    failed = [part for part, ok, _ in results if ok is False]
    print("all parts passed" if not failed else f"failed: {', '.join(failed)}")
    return status


def _run_calibration(args: argparse.Namespace) -> int:
    """``selftest --calibrate``: exit 0 when measured and written, 1 when the measurement failed, 2 when it could
    not start (configuration, hardware)."""
    from unolauncher.clock import Clock, RealClock, VirtualClock
    from unolauncher.errors import ConfigError
    from unolauncher.launcher.calibrate import RUNS, CalibrationError, measure, write_ms_per_card
    from unolauncher.launcher.config_table import read_launcher_settings
    from unolauncher.launcher.factory import create_launcher
    from unolauncher.launcher.waits import real_wait, virtual_wait
    from unolauncher.toml_file import CONFIG_PATH

    path = Path(args.config) if args.config else CONFIG_PATH
    try:
        settings: dict[str, Any] = read_launcher_settings(path)  # checked as the daemon checks its [launcher]
    except ConfigError as exc:
        print(f"unolauncher selftest --calibrate: {exc}", file=sys.stderr)
        return 2
    if args.pins:
        settings["pins_file"] = args.pins
        settings.pop("pins", None)
    clock: Clock
    if args.virtual:
        settings["backend"] = "virtual"
        vclock = VirtualClock()
        clock, wait = vclock, virtual_wait(vclock)
    else:
        clock, wait = RealClock(), real_wait
    try:
        launcher, _ = create_launcher(settings, clock)
    except (LauncherSetupError, PinMapError, ValueError) as exc:
        print(f"unolauncher selftest --calibrate: {exc}", file=sys.stderr)
        return 2
    print(f"calibrating with {sum(RUNS)} cards: load the magazine, shut the lid", flush=True)
    try:
        calibration = measure(launcher, wait, say=lambda text: print(text, flush=True))
    except CalibrationError as exc:
        print(f"calibration failed: {exc}", file=sys.stderr)
        return 1
    finally:
        launcher.close()
    try:
        write_ms_per_card(path, calibration.ms_per_card)
    except (CalibrationError, OSError) as exc:
        print(f"measured ms_per_card = {calibration.ms_per_card}, but {path} was not updated: {exc}", file=sys.stderr)
        return 1
    print(
        f"{calibration.cards_per_s:.1f} cards/s: ms_per_card = {calibration.ms_per_card} "
        f"(first card after about {calibration.offset_ms + calibration.ms_per_card} ms), written to {path}; "
        "restart the daemon to use it"
    )
    return 0
