"""`table.lockout`: a press when nobody may hit does not fire (default); with lockout off it fires unattributed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from support.daemon import running_daemon
from support.net import wait_until


@pytest.mark.parametrize("lockout", [True, False])
def test_press_with_nobody_to_hit(tmp_path: Path, lockout: bool) -> None:
    with running_daemon(tmp_path, "lock", overrides={"table": {"lockout": lockout}}) as daemon:  # no broker needed
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
            time.sleep(0.1)  # a bound: the motor does not start late either (the refusal was journalled first)
            assert daemon.virtual.motor_starts == motor_starts, "a locked-out press must not start the motor"
            assert list(daemon.journal.commands()) == [], "nothing reaches the referee"
        else:
            # Free play: the daemon committed to a fresh secret at start, before any press (its own command), and
            # the press is on the launcher's record; no hit.
            assert types[:2] == ["ejection_commit", "press"] and journal.events()[1]["player"] is None
            commands = list(journal.commands())
            assert [c["type"] for c in commands] == ["free_play", "pressed"], "the press is recorded, no hit"
            assert "secret" not in commands[1], "the press opened nothing: free play's commitment was out before it"
