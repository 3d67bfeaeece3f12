"""`table.lockout`: a press when nobody may hit does not fire (default); with lockout off it fires unattributed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from support.daemon import FAST_LAUNCHER
from support.net import free_port, wait_until
from unolauncher.daemon.app import Daemon
from unolauncher.daemon.config import parse_config


def _daemon(tmp_path: Path, lockout: bool) -> Daemon:
    config = parse_config(
        {
            "table": {"id": "lock", "state_dir": str(tmp_path / "state"), "lockout": lockout},
            "broker": {"host": "127.0.0.1", "port": free_port(), "reconnect_max": 1},  # no broker needed
            "launcher": FAST_LAUNCHER,
            "dashboard": {"enabled": False},
        }
    )
    daemon = Daemon(config, say=lambda text: None)
    daemon.start()
    return daemon


@pytest.mark.parametrize("lockout", [True, False])
def test_press_with_nobody_to_hit(tmp_path: Path, lockout: bool) -> None:
    daemon = _daemon(tmp_path, lockout)
    try:
        assert daemon.table is not None and daemon.journal is not None and daemon.virtual is not None
        assert daemon.table.hitter() is None  # no game yet: nobody may hit
        motor_starts = daemon.virtual.motor_starts
        daemon.virtual.press_button()
        expected = "lockout" if lockout else "unattributed_hit"
        journal = daemon.journal
        assert journal is not None
        assert wait_until(lambda: any(e["type"] == expected for e in journal.events()), 5)
        types = [e["type"] for e in journal.events()]
        if lockout:
            assert types == ["lockout"]
            time.sleep(0.1)
            assert daemon.virtual.motor_starts == motor_starts, "a locked-out press must not start the motor"
        else:
            assert types[0] == "press" and daemon.journal.events()[0]["player"] is None
        assert list(daemon.journal.commands()) == [], "no hit reaches the referee"
    finally:
        daemon.request_stop()
        daemon.shutdown()
