"""The worker plans the next press only once the press's event is on its way (issue 16, press → event): the press's
claim goes to the referee before the journal write (its events are what is journalled), but the next press's plan
— 0.2–0.3 ms of the ejection model, an HMAC and the snapshot — waits until the event is handed to MQTT. Until then
the press gate stays closed, so every way out of the worker's step must reopen it, or the launcher would stop
answering presses.

The launcher runs on a :class:`VirtualClock` that nobody advances: the press's run never ends, so its hit (which
publishes a snapshot of its own) never comes, and a reopened gate can only be the worker's doing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.fault_daemon import FIVE_EVERY_TIME
from support.net import wait_until
from unolauncher.daemon.app import Daemon

from .honest import HONEST
from .virtual_time import game_on_virtual_time, journalled

pytestmark = pytest.mark.timeout(60)

CONFIG: dict[str, dict[str, Any]] = {
    **HONEST,
    "launcher": {**HONEST["launcher"], "preset": "custom", "custom": FIVE_EVERY_TIME, "debounce_ms": 0},
}


def press_journalled(daemon: Daemon) -> bool:
    return bool(journalled(daemon, "press"))


def opened(daemon: Daemon) -> bool:
    """The first press's snapshot is published (a game is on)."""
    assert daemon.table is not None
    return daemon.table.press.is_open()


def on_worker(calls: list[str], name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """``original``, noting ``name`` in ``calls`` first when the table's worker calls it."""

    def wrapped(*args: Any) -> Any:
        if threading.current_thread().name == "table-worker":
            calls.append(name)
        return original(*args)

    return wrapped


def test_the_next_press_is_planned_after_the_press_event_is_handed_to_mqtt(tmp_path: Path) -> None:
    """On the worker, for one press: the claim is applied, then the events go to MQTT, then the next plan — and the
    gate is open again while the press's run is still going."""
    with game_on_virtual_time(tmp_path, "planned", CONFIG) as (daemon, _):
        assert opened(daemon), "the first press's snapshot is published"
        table, launcher, virtual = daemon.table, daemon.launcher, daemon.virtual
        assert table is not None and launcher is not None and virtual is not None
        calls: list[str] = []
        gate, output = table.press, table.output
        settle = gate.settle

        def noting_claims(referee: Any) -> None:
            if gate.has_claims():
                on_worker(calls, "claim applied", settle)(referee)
            else:
                settle(referee)

        gate.settle = noting_claims  # type: ignore[method-assign]
        gate.publish = on_worker(calls, "next press planned", gate.publish)  # type: ignore[method-assign]
        output.events_journalled = on_worker(calls, "events to MQTT", output.events_journalled)  # type: ignore[method-assign]

        virtual.press_button()
        assert virtual.motor_pin_high, "the press fired"
        assert wait_until(lambda: press_journalled(daemon) and gate.is_open(), 10), "the gate never reopened"
        assert launcher.status().running, "the run is still going: no hit has published a snapshot"
        applied = calls.index("claim applied")
        assert calls[applied : applied + 3] == ["claim applied", "events to MQTT", "next press planned"], calls


def test_the_gate_reopens_when_handing_the_events_to_mqtt_fails(tmp_path: Path) -> None:
    """The hand-off to MQTT raises (the events stay in the outbox for the publisher): the worker still plans the
    next press, and a later press is claimed with it."""
    with game_on_virtual_time(tmp_path, "planned", CONFIG) as (daemon, _):
        assert opened(daemon), "the first press's snapshot is published"
        table, launcher, virtual = daemon.table, daemon.launcher, daemon.virtual
        assert table is not None and launcher is not None and virtual is not None
        output = table.output
        hand_over = output.events_journalled
        failures: list[str] = []

        def failing_once() -> None:
            if not failures:
                failures.append("raised")
                raise RuntimeError("paho refused the publish")
            hand_over()

        output.events_journalled = failing_once  # type: ignore[method-assign]
        virtual.press_button()
        assert wait_until(lambda: press_journalled(daemon) and table.press.is_open(), 10), "the gate stayed closed"
        assert failures == ["raised"]
        assert launcher.status().running, "the run is still going: no hit has published a snapshot"
        claim = table.press.claim(lockout=True)
        assert claim is not None and not isinstance(claim, str), f"the next press was not served: {claim!r}"


def test_the_gate_reopens_when_the_journal_refuses_the_press(tmp_path: Path) -> None:
    """The journal write fails: the press did not happen (the referee goes back to the journal), and the gate opens
    again on the journal's referee."""
    with game_on_virtual_time(tmp_path, "planned", CONFIG) as (daemon, _):
        assert opened(daemon), "the first press's snapshot is published"
        table, launcher, virtual, journal = daemon.table, daemon.launcher, daemon.virtual, daemon.journal
        assert table is not None and launcher is not None and virtual is not None and journal is not None
        append_batch = journal.append_batch
        refused: list[str] = []

        def refusing_once(entries: Any) -> Any:
            if not refused:
                refused.append("refused")
                raise OSError("disk I/O error")
            return append_batch(entries)

        journal.append_batch = refusing_once  # type: ignore[method-assign]
        referee_before = table.referee.to_json()
        virtual.press_button()
        assert wait_until(lambda: bool(refused) and table.press.is_open(), 10), "the gate stayed closed"
        assert not press_journalled(daemon)
        assert table.referee.to_json() == referee_before, "the unjournalled press was rolled back"
