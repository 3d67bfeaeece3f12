"""Fixtures for the launcher tests: a fresh MockFactory (with PWM pins) per test, a virtual clock, and a rig
(the virtual launcher + the real GpioLauncher on the same mock pins)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from unolauncher.clock import VirtualClock
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
from unolauncher.launcher.interface import FireResult
from unolauncher.launcher.pins import DEFAULT_PINS, PinMap


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory(pin_class=MockPWMPin)
    yield mock
    mock.reset()  # as gpiozero's own conftest does: no pin or reservation leaks into the next test


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@dataclass
class Rig:
    factory: MockFactory
    clock: VirtualClock
    sim: VirtualLauncher
    launcher: GpioLauncher
    events: list[dict[str, Any]] = field(default_factory=list)
    results: list[FireResult] = field(default_factory=list)

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


def make_rig(
    factory: MockFactory,
    clock: VirtualClock,
    pins: PinMap = DEFAULT_PINS,
    settings: DeviceSettings | None = None,
    params: VirtualParams | None = None,
) -> Rig:
    sim = VirtualLauncher(factory, clock, pins, params or VirtualParams(magazine=40))
    launcher = GpioLauncher(factory, clock, pins, settings or DeviceSettings(magazine=40))
    rig = Rig(factory, clock, sim, launcher)
    launcher.on_event = rig.events.append
    return rig


@pytest.fixture
def rig(factory: MockFactory, clock: VirtualClock) -> Iterator[Rig]:
    built = make_rig(factory, clock)
    yield built
    built.launcher.close()
