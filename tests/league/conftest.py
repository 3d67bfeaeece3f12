"""Fixtures for the league tests: a real mosquitto and a scripted table publisher."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from support.fake_tables import TablePublisher
from support.mosquitto import Mosquitto


@pytest.fixture
def broker() -> Iterator[Mosquitto]:
    with Mosquitto() as b:
        yield b


@pytest.fixture
def tables(broker: Mosquitto) -> Iterator[TablePublisher]:
    pub = TablePublisher(broker.port)
    yield pub
    pub.close()


LEAGUE = [sys.executable, "-m", "unolauncher", "league"]


@pytest.fixture
def run_league() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``unolauncher league ARGS`` as a user would, in a separate process."""

    def go(*args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*LEAGUE, *args], capture_output=True, text=True, timeout=timeout, check=False)

    return go
