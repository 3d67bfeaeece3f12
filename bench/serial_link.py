#!/usr/bin/env python3
"""Serial co-processor figures: status round trip over a pty pair, and press → motor-command latency through the
serial backend next to the GPIO backend in the same run.

The co-processor is the real firmware (``firmware/unofw``) running under CPython on the fake ``machine`` with a
simulated launcher (``tests/firmware/fwsim.py``), on one end of an ``os.openpty()`` pair; the host end is opened
with pyserial, exactly as a Pico's ``/dev/ttyACM0`` would be.

1. **Status round trip**: host writes a STATUS frame, waits for the STATUS reply (pyserial + ``FrameDecoder``).
   The firmware's main loop idles ``--idle-ms`` (1 ms, as on the Pico) between iterations, which dominates.
2. **Press → motor command**: the simulated button pin falls (timestamped inside the firmware thread) → firmware
   PRESS event → ``SerialLauncher.on_press`` → ``fire()`` → FIRE frame → firmware → motor PWM duty > 0
   (timestamped inside the fake PWM). Side by side, alternating press by press: ``GpioLauncher`` on gpiozero mock
   pins, mock button ``drive_low()`` → motor enable pin > 0. Both behind the daemon's ``PressHandler`` (ejection
   model set to always fire one card, so every press commands the motor).

    .venv/bin/python bench/serial_link.py [--round-trips 2000] [--presses 200] [--idle-ms 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import serial  # noqa: E402
from firmware.fwsim import SimDevice  # noqa: E402
from firmware.mpfakes import mp_time  # noqa: E402
from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from support.benchstats import TimedPin, percentile, timed_press  # noqa: E402
from support.claims import ModelClaims  # noqa: E402
from support.net import wait_until  # noqa: E402
from unolauncher.clock import RealClock, VirtualClock  # noqa: E402
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher  # noqa: E402
from unolauncher.launcher.backends.gpio.settings import DeviceSettings  # noqa: E402
from unolauncher.launcher.backends.serial import protocol as sp  # noqa: E402
from unolauncher.launcher.backends.serial.launcher import SerialLauncher, SerialSettings  # noqa: E402
from unolauncher.launcher.pins import DEFAULT_PINS  # noqa: E402
from unolauncher.launcher.press import PressHandler  # noqa: E402
from unolauncher.rules.ejection import EjectionModel  # noqa: E402


def summary(name: str, values: list[float], unit: str = "µs") -> str:
    return (
        f"{name:<34} median {statistics.median(values):9.1f} {unit}   p99 {percentile(values, 0.99):9.1f} {unit}"
        f"   (n={len(values)})"
    )


def set_idle(idle_ms: float) -> None:
    """The firmware loop's idle (``time.sleep_ms`` in the fake); 0 = spin."""
    real_sleep = mp_time._real.sleep

    def sleep_ms(ms: int) -> None:
        if idle_ms:
            real_sleep(idle_ms / 1000)
        mp_time.run_hooks()

    mp_time.sleep_ms = sleep_ms


def round_trips(device: SimDevice, count: int) -> list[float]:
    port = serial.serial_for_url(str(device.link), baudrate=115200, timeout=1.0)
    decoder = sp.FrameDecoder()
    port.write(sp.encode_frame(sp.HELLO, 1, bytes([sp.PROTOCOL_VERSION])))
    time.sleep(0.05)
    port.reset_input_buffer()
    samples = []
    try:
        for i in range(count):
            seq = (i + 2) & 0xFFFF
            frame = sp.encode_frame(sp.STATUS, seq)
            start = time.perf_counter_ns()
            port.write(frame)
            done = False
            while not done:
                data = port.read(port.in_waiting or 1)
                if not data:
                    raise RuntimeError("no STATUS reply within 1 s")
                for reply in decoder.feed(data):
                    if reply.type == sp.STATUS_REPLY and sp.decode_status(reply.body)["seq"] == seq:
                        done = True
            samples.append((time.perf_counter_ns() - start) / 1000)
    finally:
        port.close()
    return samples


class SerialPath:
    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.edge_at = 0
        self.motor_at = 0
        board = device.board
        button, pwm = board._button, board._pwm
        drive, duty = button.drive, pwm.duty_u16

        def timed_drive(level: int) -> None:
            if level == 0 and button.value() == 1 and not self.edge_at:
                self.edge_at = time.perf_counter_ns()
            drive(level)

        def timed_duty(d: int | None = None) -> int | None:
            if d and not self.motor_at:
                self.motor_at = time.perf_counter_ns()
            return duty(d)

        button.drive = timed_drive
        pwm.duty_u16 = timed_duty
        self.launcher = SerialLauncher(SerialSettings(port=str(device.link)), RealClock())
        self.results: list[Any] = []
        self.events: list[dict[str, Any]] = []
        self.handler = press_handler(self.launcher, self.results, self.events)
        if not wait_until(lambda: self.launcher.status().extra["connected"], 5):
            raise RuntimeError("the serial launcher did not connect")

    def press(self) -> float:
        self.edge_at = self.motor_at = 0
        count = len(self.results)
        self.device.press(hold_ms=20)
        if not wait_until(lambda: len(self.results) > count, 3, interval=0.001):
            raise RuntimeError(
                f"the serial press did not finish a run: {self.events[-4:]} "
                f"{self.launcher.status()} {self.edge_at} {self.motor_at}"
            )
        if not (self.edge_at and self.motor_at):
            raise RuntimeError("the serial press did not switch the motor on")
        time.sleep(0.05)  # let go of the button
        return (self.motor_at - self.edge_at) / 1000

    def close(self) -> None:
        self.launcher.close()


class GpioPath:
    def __init__(self) -> None:
        self.factory = MockFactory(pin_class=MockPWMPin)
        self.factory.pin(DEFAULT_PINS.motor_enable, pin_class=TimedPin)
        self.clock = VirtualClock()
        self.launcher = GpioLauncher(self.factory, self.clock, DEFAULT_PINS, DeviceSettings(retract_ms=0, settle_ms=0))
        self.factory.pin(DEFAULT_PINS.lid).drive_low()  # lid closed (the mock pin would float up to "open")
        self.clock.advance(1)
        self.handler = press_handler(self.launcher, [])
        self.button = self.factory.pin(DEFAULT_PINS.button)

    def press(self) -> float:
        sample = timed_press(self.button, "the GPIO press")
        self.launcher.stop()
        self.clock.advance(1.0)
        return sample

    def close(self) -> None:
        self.launcher.close()
        self.factory.close()


ALWAYS_ONE = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"1": 1}}  # every press fires one card


def press_handler(launcher: Any, hits: list[Any], events: list[dict[str, Any]] | None = None) -> PressHandler:
    """The press path: a claim (who may hit, the plan of an ejection model: custom, always one card) →
    ``launcher.fire``."""
    claims = ModelClaims(EjectionModel("custom", ALWAYS_ONE))
    return PressHandler(
        launcher, claims.claim, lambda *hit: hits.append(hit), (events if events is not None else []).append
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--idle-ms", type=float, default=1.0, help="firmware loop idle per iteration (Pico: 1)")
    args = parser.parse_args(argv)
    set_idle(args.idle_ms)
    with tempfile.TemporaryDirectory() as tmp:
        device = SimDevice(Path(tmp) / "ttyBench", magazine=100_000, cards_per_s=200.0, spinup_ms=2)
        try:
            print(
                f"firmware loop idle: {args.idle_ms:g} ms per iteration; pty pair; {threading.active_count()} threads"
            )
            rtt = round_trips(device, args.round_trips)
            print(summary("status round trip host→fw→host", rtt))
            serial_path, gpio_path = SerialPath(device), GpioPath()
            try:
                serial_samples, gpio_samples = [], []
                for _ in range(args.presses):  # alternating, so machine noise hits both alike
                    serial_samples.append(serial_path.press())
                    gpio_samples.append(gpio_path.press())
            finally:
                serial_path.close()
                gpio_path.close()
        finally:
            device.close()
    print(summary("press→motor, serial backend", serial_samples))
    print(summary("press→motor, GPIO backend (mock)", gpio_samples))
    ratio_med = statistics.median(serial_samples) / statistics.median(gpio_samples)
    ratio_p99 = percentile(serial_samples, 0.99) / percentile(gpio_samples, 0.99)
    print(f"serial / GPIO: median {ratio_med:.0f}x, p99 {ratio_p99:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
