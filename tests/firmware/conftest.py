"""Fixtures for the firmware and serial-backend tests: the firmware runs under CPython on fakes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.fwsim import Harness, SimDevice
from firmware.mpfakes import mp_time


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    mp_time.use_real()


@pytest.fixture
def device(tmp_path: Path) -> Iterator[SimDevice]:
    dev = SimDevice(tmp_path / "ttyUNO")
    yield dev
    dev.close()
