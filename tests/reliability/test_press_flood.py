"""A flood of button presses (1,000/s for 10 s) and a clock jump, on the whole daemon in this process.

The daemon runs with a :class:`VirtualClock`, so 10 s of presses and the launcher's timers run in virtual time;
the journal, the table worker and MQTT (a real mosquitto) are real. A stuck or chattering button must not make the
motor run twice at once, must not lose or reorder events, and must leave the referee exactly where a replay of the
journal puts it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from daemon.game import start_game

from support.daemon import TableClient, running_daemon
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.clock import VirtualClock
from unolauncher.daemon.app import Daemon
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

pytestmark = pytest.mark.timeout(120)

PRESSES_PER_S = 1000
FLOOD_S = 10


class Rig(NamedTuple):
    """A daemon in this process on virtual time, on a real mosquitto, with a player connected."""

    daemon: Daemon
    clock: VirtualClock
    player: TableClient
    table: Table
    journal: Journal
    virtual: Any


@contextmanager
def daemon_on_virtual_time(tmp_path: Path, table: str) -> Iterator[Rig]:
    clock = VirtualClock(start=1000.0)  # the launcher and its timers run on virtual time
    overrides = {"table": {"lockout": True}, "homeassistant": {"enabled": False}}
    with Mosquitto() as broker, running_daemon(tmp_path, table, broker.port, overrides, clock) as daemon:
        assert daemon.bus is not None and daemon.table is not None and daemon.journal is not None
        assert daemon.virtual is not None
        assert wait_until(daemon.bus.connected.is_set, 10)
        with TableClient("127.0.0.1", broker.port, table, name="player") as player:
            yield Rig(daemon, clock, player, daemon.table, daemon.journal, daemon.virtual)


def drained(daemon: Daemon) -> bool:
    """Everything journalled by the worker and acknowledged by the broker."""
    return daemon.table is not None and daemon.table.idle() and daemon.bus is not None and daemon.bus.outbox_idle()


def replayed_state(commands: list[dict[str, Any]]) -> dict[str, Any]:
    referee = Referee()
    for command in commands:
        referee.handle(command)
    return referee.public_state()


@pytest.mark.parametrize(
    ("period_s", "hold_s"),
    [
        pytest.param(1 / PRESSES_PER_S, 0.0004, id="1000-per-s-chatter"),
        pytest.param(0.05, 0.01, id="20-per-s-hammering"),
    ],
)
def test_press_flood_for_10_s(tmp_path: Path, period_s: float, hold_s: float) -> None:
    """1,000 presses/s is contact chatter to the launcher (30 ms debounce): it must register as at most a press per
    quiet gap. 20 presses/s (40 ms from release to press) gets through the debounce: presses that land while the
    motor runs must be ignored, never start a second run."""
    with daemon_on_virtual_time(tmp_path, "flood") as (daemon, clock, player, table, journal, virtual):
        start_game(player, Referee())
        assert wait_until(table.idle, 10)
        motor_overlaps = 0
        runs_started = virtual.motor_starts
        flood_started = time.monotonic()
        presses = round(FLOOD_S / period_s)
        bounces_before = getattr(daemon.launcher, "bounces", 0)
        for _ in range(presses):  # bounded: at most 10,000 presses, in virtual time
            was_running = virtual.motor_pin_high
            starts = virtual.motor_starts
            virtual.press_button(hold_s=hold_s)
            if was_running and virtual.motor_starts > starts:
                motor_overlaps += 1  # a second run started while one was going
            clock.advance(period_s)
            # Real time passes at a real table: let the worker apply the hit before the next press (it
            # takes ~1 ms here; virtual time would otherwise outrun it — see docs/reliability.md).
            assert wait_until(table.idle, 10, interval=0.0002)
        clock.advance(5.0)  # let the last run finish and retract
        flood_wall_s = time.monotonic() - flood_started
        assert not virtual.motor_pin_high, "the motor is still driven after the flood"
        assert motor_overlaps == 0
        # The worker catches up (everything journalled), and the outbox drains to the broker.
        assert wait_until(lambda: drained(daemon), 60), f"outbox still holds {journal.outbox_size()} events"
        drain_s = time.monotonic() - flood_started
        assert player.wait_for_seq(journal.last_seq, 30)

        events = [body for _pos, kind, _seq, body in journal.entries() if kind == "event"]
        kinds = Counter(e["type"] for e in events)
        runs = virtual.motor_starts - runs_started
        # Every run the motor made is one "fired" event and one hit (or a recorded refusal); no run was lost.
        assert kinds["fired"] == runs
        assert kinds["hit"] >= runs and kinds["hit_refused"] == 0
        assert kinds["press"] >= runs
        bounces = getattr(daemon.launcher, "bounces", 0) - bounces_before
        registered = kinds["press"] + kinds["ignored_press"] + kinds["lockout"] + kinds["press_refused"]
        if period_s < 0.03:  # inside the debounce: chatter, never a stream of presses
            assert registered <= 1 and bounces >= presses - 2, (registered, bounces)
        else:
            assert registered + bounces >= presses - 1
            assert runs > 10, (runs, dict(kinds), bounces, virtual.motor_starts)
        # Events are gap-free and the observer got every one, in order.
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(1, len(seqs) + 1))
        assert sorted(player.events) == seqs
        assert player.arrivals == sorted(player.arrivals) or len(set(player.arrivals)) == len(seqs)
        # The referee is exactly what a replay of the journal gives.
        assert table.snapshot() | {"seq": 0} == replayed_state(list(journal.commands())) | {"seq": 0}
        reply = player.command({"type": "status"})
        assert reply["ok"] and reply["data"]["launcher"]["motor_on"] is False
        print(
            f"\npress flood: {presses} presses in {FLOOD_S} s virtual ({flood_wall_s:.1f} s wall), "
            f"{bounces} debounced, {runs} motor runs, events {dict(kinds)}, "
            f"all journalled and delivered after {drain_s:.1f} s"
        )


class JumpingWallClock:
    """Stands in for the ``time`` module inside the journal: wall time = real time + an offset the test moves."""

    def __init__(self) -> None:
        self.offset = 0.0

    def time(self) -> float:
        return time.time() + self.offset

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_clock_jumps_change_no_order_and_stop_no_motor_late(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Pi has no real-time clock: its wall clock starts in the past and jumps when NTP syncs (forward years, or
    back an hour). Event order comes from ``seq``, never from ``ts``, so jumps must change nothing but ``ts``. The
    launcher's timers run on the monotonic clock; a jump of that (virtual) clock by an hour mid-run must end the
    run at once with the motor off, exactly once."""
    import unolauncher.store.journal as journal_module

    wall = JumpingWallClock()
    monkeypatch.setattr(journal_module, "time", wall)
    with daemon_on_virtual_time(tmp_path, "jumps") as (daemon, clock, player, table, journal, virtual):
        wall.offset = -40 * 365 * 86400.0  # booted without network: 1986-ish
        start_game(player, Referee())
        stamps: list[float] = []
        motor_runs_cut = 0
        for offset in (-40 * 365 * 86400.0, 0.0, -3600.0, 10 * 365 * 86400.0):  # NTP jumps
            wall.offset = offset
            for _ in range(12):  # bounded
                virtual.press_button(hold_s=0.01)
                if virtual.motor_pin_high:
                    clock.advance(3600.0)  # the monotonic clock jumps an hour in the middle of the run
                    motor_runs_cut += 1
                    assert not virtual.motor_pin_high, "the motor ran on after the clock jumped"
                clock.advance(0.05)
                assert wait_until(table.idle, 10, interval=0.0005)
            stamps.append(wall.time())
        clock.advance(5.0)
        assert wait_until(lambda: drained(daemon), 30)
        assert player.wait_for_seq(journal.last_seq, 10)
        events = [body for _pos, kind, _seq, body in journal.entries() if kind == "event"]
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(1, len(seqs) + 1)) and sorted(player.events) == seqs
        ts = [e["ts"] for e in events]
        assert ts != sorted(ts), "the wall-clock jumps should show in ts (else the test did not jump)"
        kinds = Counter(e["type"] for e in events)
        assert motor_runs_cut > 0 and kinds["fired"] == virtual.motor_starts
        assert kinds["hit_refused"] == 0
        assert table.snapshot() | {"seq": 0} == replayed_state(list(journal.commands())) | {"seq": 0}
        assert not virtual.motor_pin_high
        print(f"\nclock jumps: {len(seqs)} events, {motor_runs_cut} runs cut by a 1 h jump, {dict(kinds)}")
