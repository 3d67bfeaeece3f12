"""Drive a real daemon (in this process) through honest sessions and audit its journal: the fairness tests' tools.

"Honest": ``[launcher] allow_rigged = false``, so every launcher secret is the daemon's own draw. Presses come from
the launcher's button (the virtual launcher's, or the firmware simulator's), commands from the table's queue as
the MQTT thread would queue them.
"""

from __future__ import annotations

import contextlib
import io
import time
from typing import Any

from support.net import wait_until
from unolauncher.cli import main

# Presses closer together than the launcher's debounce (30 ms) are contact bounce and ignored, as they should be.
PRESS_GAP_S = 0.04
PRESS_OUTCOMES = ("hit", "hit_failed", "unattributed_hit", "hit_refused")
HONEST: dict[str, dict[str, Any]] = {"launcher": {"allow_rigged": False}, "homeassistant": {"enabled": False}}


def events(daemon: Any) -> list[dict[str, Any]]:
    return list(daemon.journal.events(1, 1_000_000))


def unsettled(daemon: Any) -> int:
    """Presses whose outcome (hit, hit_failed, ...) is not journalled yet."""
    kinds = [e["type"] for e in events(daemon)]
    return kinds.count("press") - sum(kinds.count(k) for k in PRESS_OUTCOMES)


def settle(daemon: Any, timeout: float = 15.0) -> None:
    """Wait until the launcher is still, every press's outcome is journalled and the table has nothing queued."""
    assert wait_until(
        lambda: not daemon.launcher.status().running and unsettled(daemon) == 0 and daemon.table.idle(), timeout
    ), f"the table did not settle: {[e['type'] for e in events(daemon)][-12:]}"


def command(daemon: Any, command: dict[str, Any]) -> bool:
    """Queue a command as MQTT would; whether the table accepted it (it is in the journal then)."""
    before = len(list(daemon.journal.commands()))
    daemon.table.submit_command(command)
    settle(daemon)
    return len(list(daemon.journal.commands())) > before


PRESS_ANSWERS = ("press", "lockout", "ignored_press", "press_refused")


def answers(daemon: Any) -> int:
    """Presses the table has answered (used a plan, or refused)."""
    return sum(1 for e in events(daemon) if e["type"] in PRESS_ANSWERS)


def press(daemon: Any, press_button: Any = None) -> None:
    """One press of the launcher's button (the virtual one unless ``press_button`` is given): wait until the table
    answered it (the edge travels through a debounce, or the co-processor and the serial link), then settle."""
    time.sleep(PRESS_GAP_S)
    before = answers(daemon)
    (press_button or daemon.virtual.press_button)()
    assert wait_until(lambda: answers(daemon) > before, 10), "the press never reached the table"
    settle(daemon)


def refill(daemon: Any, cards: int = 20) -> None:
    """Open the lid (and wait until the launcher saw it: the lid line is debounced), load cards, close it again."""
    daemon.virtual.open_lid()
    assert wait_until(lambda: daemon.launcher.status().lid_open, 5), "the launcher never saw the lid open"
    daemon.virtual.load(cards)
    daemon.virtual.close_lid()
    assert wait_until(lambda: not daemon.launcher.status().lid_open, 5), "the launcher never saw the lid close"
    settle(daemon)


def cli(*args: str) -> tuple[int, str]:
    """``unolauncher ARGS`` in this process: exit code and what it printed (stdout and stderr)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(list(args))
    return code, out.getvalue()


def public(daemon: Any) -> dict[str, Any]:
    return daemon.table.snapshot()
