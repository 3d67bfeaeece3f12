"""A daemon in this process with a game on, whose launcher runs on a :class:`VirtualClock`: its timers (a run's end,
a click's hit, the button's release) fire only when the test advances the clock, so "not yet" is a fact, not a race.
No broker: the bus retries in the background. Used by the press path's scheduling tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support.daemon import running_daemon
from support.fault_daemon import start_game
from unolauncher.clock import VirtualClock
from unolauncher.daemon.app import Daemon


@contextmanager
def game_on_virtual_time(
    tmp_path: Path, table: str, overrides: dict[str, dict[str, Any]]
) -> Iterator[tuple[Daemon, VirtualClock]]:
    """The daemon and its launcher's clock, once someone may hit."""
    clock = VirtualClock(start=100.0)
    with running_daemon(tmp_path, table, overrides=overrides, clock=clock) as daemon:
        assert daemon.table is not None and daemon.virtual is not None and daemon.launcher is not None
        assert start_game(daemon.table), "no game started"
        yield daemon, clock


def journalled(daemon: Daemon, kind: str) -> list[dict[str, Any]]:
    """The journalled events of type ``kind``."""
    assert daemon.journal is not None
    return [e for e in daemon.journal.events(1, 1000) if e["type"] == kind]
