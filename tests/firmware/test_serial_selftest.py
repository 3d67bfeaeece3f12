"""``unolauncher selftest --serial``: the wiring selftest of a Pico-backed launcher, against the real firmware
(under CPython, simulated launcher) over a real pty. One test per broken-wiring case the GPIO selftest catches:
each must FAIL with the part named and its fix, and a correct build must pass every part."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.fwsim import SimDevice
from support.net import wait_until
from unolauncher.cli.selftest import PrintedResults, Result
from unolauncher.launcher.serial_selftest import run_serial

PARTS = [
    "co-processor",
    "pin button",
    "pin uno",
    "pin sensor",
    "pin lid",
    "pull-down enable",
    "pull-down forward",
    "pull-down reverse",
    "button",
    "motor",
]


@pytest.fixture
def make_device(tmp_path: Path) -> Iterator[Any]:
    devices: list[SimDevice] = []

    def make(**options: Any) -> SimDevice:
        dev = SimDevice(tmp_path / f"ttyUNO{len(devices)}", **options)
        devices.append(dev)
        return dev

    yield make
    for dev in devices:
        dev.close()


Parts = dict[str, tuple[bool | None, str]]


def selftest(dev: SimDevice, press: bool = True, timeout: float = 3.0) -> tuple[int, Parts]:
    results: list[Result] = PrintedResults()
    status = run_serial(str(dev.link), timeout, results, on_waiting_for_press=dev.press if press else None)
    return status, {part: (ok, detail) for part, ok, detail in results}


def failed(parts: Parts) -> list[str]:
    return [part for part, (ok, _) in parts.items() if ok is False]


def hold(dev: SimDevice, pin: Any, level: int) -> None:
    """The outside world holds an input at ``level`` (a miswired switch, a blocked beam) before the test starts."""
    assert dev.physics is not None
    dev.physics.at(0, pin, level)
    assert wait_until(lambda: pin.value() == level, 5)


def test_a_correct_build_passes_every_part(make_device: Any, capsys: pytest.CaptureFixture[str]) -> None:
    dev = make_device()
    status, parts = selftest(dev)
    assert status == 0, parts
    assert list(parts) == PARTS and not failed(parts)
    assert "GP3 reads low when released" in parts["pull-down forward"][1]
    assert "PASS  motor" in capsys.readouterr().out
    assert not dev.motor_on()


@pytest.mark.parametrize(
    ("role", "part", "ref"),
    [
        ("motor_enable", "pull-down enable", "R2"),
        ("motor_forward", "pull-down forward", "R3"),
        ("motor_reverse", "pull-down reverse", "R4"),
    ],
)
def test_a_missing_pull_down_fails_and_names_the_resistor(make_device: Any, role: str, part: str, ref: str) -> None:
    dev = make_device(missing_pull_downs=(role,))
    status, parts = selftest(dev)
    assert status == 1 and failed(parts) == [part], parts
    assert f"fit {ref}, 10 kΩ" in parts[part][1] and f"GP{dev.rp2040.PINS[role]} reads high" in parts[part][1]
    assert parts["motor"][0] is True  # the probe gave every line back: the motor still runs


@pytest.mark.parametrize(
    ("pin", "part", "fix"),
    [
        ("_button", "pin button", "reads pressed at rest"),
        ("_uno", "pin uno", "reads pressed at rest"),
        ("_beam", "pin sensor", "beam blocked or receiver unpowered"),
    ],
)
def test_an_input_stuck_low_at_rest_fails(make_device: Any, pin: str, part: str, fix: str) -> None:
    dev = make_device()
    hold(dev, getattr(dev.board, pin), 0)
    _, parts = selftest(dev, press=False, timeout=0.3)
    assert parts[part][0] is False and fix in parts[part][1], parts
    assert "pull-down forward" not in failed(parts)


def test_an_open_lid_fails_the_lid_and_the_motor(make_device: Any) -> None:
    dev = make_device()
    dev.set_lid(True)
    assert wait_until(lambda: dev.board._lid.value() == 1, 5)
    status, parts = selftest(dev)
    assert status == 1 and failed(parts) == ["pin lid", "motor"], parts
    assert "close the lid" in parts["pin lid"][1] and "close the lid" in parts["motor"][1]
    assert not dev.motor_on()


def test_no_press_fails_the_button(make_device: Any) -> None:
    dev = make_device()
    status, parts = selftest(dev, press=False, timeout=0.3)
    assert status == 1 and failed(parts) == ["button"], parts
    assert "no press within 0.3 s" in parts["button"][1]


def test_no_card_through_the_beam_fails_the_motor(make_device: Any) -> None:
    dev = make_device(magazine=0)
    status, parts = selftest(dev)
    assert status == 1 and failed(parts) == ["motor"], parts
    assert "no card reached the beam" in parts["motor"][1] and "forward GP3" in parts["motor"][1]


def test_firmware_without_the_probe_is_told_to_update(make_device: Any) -> None:
    dev = make_device()
    dev.board.probe = lambda: None  # an older firmware answers PROBE as an unknown message type
    status, parts = selftest(dev)
    assert status == 1 and failed(parts) == ["probe"], parts
    assert "update it" in parts["probe"][1]


def test_nothing_answering_on_the_port_fails_with_exit_2() -> None:
    master, slave = os.openpty()  # a Pico without the firmware: the port opens, nobody speaks the protocol
    try:
        results: list[Result] = PrintedResults()
        status = run_serial(os.ttyname(slave), 0.3, results)
    finally:
        os.close(master)
        os.close(slave)
    assert status == 2
    assert [(part, ok) for part, ok, _ in results] == [("co-processor", False)]
    assert "install the firmware" in results[0][2]
