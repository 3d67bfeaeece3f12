"""The motor stops whatever fails: faults injected into a real ``unolauncher run`` process (issue 12).

Each case starts the daemon under a fake ``NOTIFY_SOCKET`` with systemd's watchdog (``WATCHDOG_USEC``), lets
``support.fault_daemon`` inject one fault and press the button (every press fires; the magazine is empty, so a run
lasts until ``max_run_s``), and checks, as it applies:

- **motor off within max run + 0.1 s** (times of the enable pin, recorded inside the daemon on the machine-wide
  monotonic clock), or at once (≤ 0.1 s) where the fault itself must stop it;
- **watchdog pings stop**: no ``WATCHDOG=1`` after the daemon said it stalled, none later than the stall deadline
  after the fault, while pings did flow before it;
- **exit code non-zero** (3: a thread stalled or died, 1: an uncaught exception, 131: SIGQUIT), so that systemd's
  ``Restart=on-failure`` restarts the service; 0 for the stop signals.

The lid case runs the real daemon in this process, with a thread standing in for lgpio's one GPIO callback thread:
a lid that opens while the journal's disk is failing stops the motor within 20 ms.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support.daemon import FAST_LAUNCHER, DaemonProcess, running_daemon
from support.fault_daemon import FIVE_EVERY_TIME, EdgeThread, hold_forever, start_game
from support.net import free_port, wait_until
from unolauncher.store.journal import JournalError

ROOT = Path(__file__).resolve().parents[2]
MAX_RUN_S = 1.0
STALL_S = 1.5
MOTOR_SLACK_S = 0.1  # the bound: off within max run + 0.1 s
WATCHDOG_USEC = 1_000_000  # pings every 0.5 s

pytestmark = pytest.mark.timeout(120)

LAUNCHER = {
    **FAST_LAUNCHER,
    "preset": "custom",  # every press fires 5 cards ...
    "custom": FIVE_EVERY_TIME,
    "magazine": 0,  # ... and none comes out: the run lasts until max_run_s
    "max_run_s": MAX_RUN_S,
    "jam_timeout_s": 5.0,
    "virtual": {**FAST_LAUNCHER["virtual"], "magazine": 0},
}
CONFIG: dict[str, dict[str, Any]] = {
    "table": {"lockout": False, "stall_timeout_s": STALL_S},
    "launcher": LAUNCHER,
    "homeassistant": {"enabled": False},
}


class FaultyDaemon(DaemonProcess):
    """``unolauncher run`` through ``support.fault_daemon``; no broker (MQTT keeps retrying; it is not needed)."""

    def __init__(
        self, workdir: Path, fault: str, env: dict[str, str], overrides: dict[str, dict[str, Any]] | None = None
    ) -> None:
        super().__init__(workdir, broker_port=free_port(), overrides=overrides or CONFIG,
                         env={**env, "PYTHONPATH": str(ROOT / "tests")})  # fmt: skip
        self.fault = fault

    def command_line(self) -> list[str]:
        return [sys.executable, "-m", "support.fault_daemon", self.fault, "run", "--config", str(self.config_path)]

    def records(self) -> list[dict[str, Any]]:
        path = self.state_dir / "motor.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def mark(self, name: str) -> float | None:
        return next((r["t"] for r in self.records() if r.get("mark") == name), None)

    def motor_on_at(self) -> float | None:
        return next((r["t"] for r in self.records() if r.get("on") is True), None)

    def motor_off_after(self, since: float) -> float | None:
        return next((r["t"] for r in self.records() if r.get("on") is False and r["t"] >= since), None)

    def wait_exit(self, timeout: float) -> int | None:
        assert self.process is not None
        if not wait_until(lambda: self.process is not None and self.process.poll() is not None, timeout):
            return None
        return self.process.returncode


@dataclass
class Notifications:
    """A fake systemd: every datagram on NOTIFY_SOCKET with the (monotonic) time it arrived."""

    path: str
    received: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096).decode()
            except TimeoutError:
                continue
            self.received.append((time.monotonic(), data))

    def pings(self) -> list[float]:
        return [t for t, text in self.received if text == "WATCHDOG=1"]

    def first(self, prefix: str) -> float | None:
        return next((t for t, text in self.received if text.startswith(prefix)), None)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def notify(tmp_path: Path) -> Any:
    listener = Notifications(str(tmp_path / "notify.sock"))
    yield listener
    listener.close()


def start(
    tmp_path: Path, fault: str, notify: Notifications, overrides: dict[str, dict[str, Any]] | None = None
) -> FaultyDaemon:
    env = {"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": str(WATCHDOG_USEC)}
    daemon = FaultyDaemon(tmp_path, fault, env, overrides)
    daemon.start(wait_mqtt=False)
    assert wait_until(lambda: daemon.mark("injected") is not None, 15), daemon.records()
    return daemon


def assert_motor_stopped_by_the_limit(daemon: FaultyDaemon) -> None:
    on = daemon.motor_on_at()
    assert on is not None, f"the press must have started the motor: {daemon.records()}"
    assert wait_until(lambda: daemon.motor_off_after(on) is not None, MAX_RUN_S + 5), daemon.records()
    off = daemon.motor_off_after(on)
    assert off is not None and off - on <= MAX_RUN_S + MOTOR_SLACK_S, f"the motor ran {off - on:.3f} s"  # type: ignore[operator]


def assert_pings_stopped(notify: Notifications, fault_at: float) -> None:
    pings = notify.pings()
    assert pings, "watchdog pings flowed (the fault comes after the first one)"
    stalled = notify.first("STATUS=stalled")
    assert stalled is not None, notify.received
    assert not [t for t in pings if t > stalled], "no WATCHDOG=1 after the daemon found a stall"
    assert max(pings) <= fault_at + STALL_S + 1.0, "the pings stopped within the stall deadline"


@pytest.mark.parametrize(
    "fault, why",
    [
        ("hang-timers", "the timer thread (max-run and jam stops, end-of-run callbacks) hangs before the press"),
        ("hold-table-lock", "a thread takes Table.lock during a run and never lets go"),
        ("block-journal", "the journal's disk stops answering: every write hangs"),
        ("stall-edge", "the button's edge callback never returns (after switching the motor on)"),
        ("stall-uno-edge", "the UNO button's edge callback never returns, during a run (nothing else is stuck)"),
        ("kill-worker", "the table's worker thread ends (returns: no exception for threading.excepthook)"),
    ],
)
def test_a_stalled_or_dead_thread_stops_the_motor_the_pings_and_the_process(
    tmp_path: Path, notify: Notifications, fault: str, why: str
) -> None:
    daemon = start(tmp_path, fault, notify)
    try:
        fault_at = daemon.mark("fault")
        assert fault_at is not None, daemon.records()
        assert_motor_stopped_by_the_limit(daemon)
        code = daemon.wait_exit(STALL_S + 20)
        assert code == 3, f"{why}: exit code {code} (3: a critical thread stalled or died); log:\n{daemon.log_text()}"
        assert_pings_stopped(notify, fault_at)
        assert "watchdog pings stopped" in daemon.log_text()
    finally:
        daemon.stop()


def test_an_uncaught_exception_in_any_thread_stops_the_motor_at_once_and_exits_1(
    tmp_path: Path, notify: Notifications
) -> None:
    daemon = start(tmp_path, "thread-exception", notify)
    try:
        fault_at = daemon.mark("fault")
        assert fault_at is not None and daemon.motor_on_at() is not None, daemon.records()
        assert wait_until(lambda: daemon.motor_off_after(fault_at) is not None, 5), daemon.records()
        off = daemon.motor_off_after(fault_at)
        assert off is not None and off - fault_at <= MOTOR_SLACK_S, f"motor off {off - fault_at:.3f} s after"  # type: ignore[operator]
        assert daemon.wait_exit(20) == 1, daemon.log_text()
        pings = notify.pings()
        assert not [t for t in pings if t > fault_at + 0.5], "the pings stop with the process"
        assert "uncaught exception in thread crashing-thread" in daemon.log_text()
    finally:
        daemon.stop()


def test_an_exception_in_a_launcher_callback_stops_the_motor_at_once_and_the_daemon_goes_on(
    tmp_path: Path, notify: Notifications
) -> None:
    daemon = start(tmp_path, "raise-in-callback", notify)
    try:
        on = daemon.motor_on_at()
        assert on is not None, daemon.records()
        assert wait_until(lambda: daemon.motor_off_after(on) is not None, 5), daemon.records()
        off = daemon.motor_off_after(on)
        assert off is not None and off - on <= MOTOR_SLACK_S, f"motor off {off - on:.3f} s after it started"  # type: ignore[operator]
        # Handled (a ``fault`` event): the daemon stays healthy and keeps pinging; a stop request is then clean.
        fault_at = daemon.mark("fault")
        assert fault_at is not None
        assert wait_until(lambda: len([t for t in notify.pings() if t > fault_at]) >= 4, 10), notify.received
        assert daemon.alive()
        assert daemon.stop() == 0
        assert "a bug in the press path" in daemon.log_text()
    finally:
        daemon.stop()


@pytest.mark.parametrize(
    "signum, code",
    [(signal.SIGTERM, 0), (signal.SIGINT, 0), (signal.SIGHUP, 0), (signal.SIGQUIT, 128 + signal.SIGQUIT)],
    ids=["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"],
)
def test_each_signal_stops_the_motor_first(
    tmp_path: Path, notify: Notifications, signum: signal.Signals, code: int
) -> None:
    long_run = {**CONFIG, "launcher": {**LAUNCHER, "max_run_s": 5.0}}  # still running when the signal comes
    daemon = start(tmp_path, "none", notify, long_run)
    try:
        on = daemon.motor_on_at()
        assert on is not None, daemon.records()
        assert daemon.motor_off_after(on) is None, "still running when the signal comes"
        assert daemon.process is not None
        sent = time.monotonic()
        os.kill(daemon.process.pid, signum)
        assert daemon.wait_exit(20) == code, daemon.log_text()
        off = daemon.motor_off_after(on)
        assert off is not None and off - sent <= MOTOR_SLACK_S, "the motor goes off on the signal, first"
        assert notify.first("STOPPING=1") is not None
        assert not [t for t in notify.pings() if t > sent + 0.5]
    finally:
        daemon.stop()


# -- the lid, in this process: lgpio's one callback thread is a thread that runs pin actions in order ----------------


class FailingDisk:
    """The SD card failing: every journal write fails, and reading the journal back (the rollback) hangs."""

    def __init__(self, journal: Any) -> None:
        self.reading = threading.Event()
        self.release = threading.Event()
        self._journal = journal
        self._write, self._notes = journal._write, journal.notes_newest_first

        def write(entries: Any) -> Any:
            raise JournalError("The journal could not be written (disk I/O error).")

        def notes_newest_first(note_type: str) -> Any:  # the rollback's first read: where the last snapshot is
            self.reading.set()
            self.release.wait()
            return self._notes(note_type)

        journal._write, journal.notes_newest_first = write, notes_newest_first

    def heal(self) -> None:
        self._journal._write, self._journal.notes_newest_first = self._write, self._notes
        self.release.set()


@pytest.mark.parametrize("trouble", ["journal-failing", "journal-hung", "table-lock-held"])
def test_lid_open_stops_the_motor_within_20_ms_while_the_table_is_stuck(tmp_path: Path, trouble: str) -> None:
    # No button debounce: the second press below must reach the press path, however soon after the first it comes.
    overrides = {**CONFIG, "launcher": {**LAUNCHER, "max_run_s": 5.0, "jam_timeout_s": 10.0, "debounce_ms": 0}}
    with running_daemon(tmp_path, "lid", overrides=overrides) as daemon:
        table, virtual, journal = daemon.table, daemon.virtual, daemon.journal
        assert table is not None and journal is not None and virtual is not None
        assert start_game(table)
        off_at: list[float] = []
        virtual.pin("motor_enable").listeners.append(
            lambda: None if virtual.motor_pin_high else off_at.append(time.monotonic())
        )
        edges = EdgeThread()
        release = threading.Event()
        disk = None
        if trouble == "journal-failing":
            disk = FailingDisk(journal)
        elif trouble == "journal-hung":
            write = journal._write
            journal._write = lambda entries: (release.wait(), write(entries))[1]  # type: ignore[method-assign]
        try:
            edges.call(virtual.press_button)
            assert wait_until(lambda: virtual.motor_pin_high, 5), "the press must start the motor"
            if trouble == "table-lock-held":
                assert hold_forever(table.lock, release), "another thread holds the table's lock from now on"
            if disk is not None:
                assert disk.reading.wait(5), "the worker is rolling back, reading the stuck disk"
            edges.call(virtual.press_button)  # a press during the run: ignored, and reported as such
            lid_opened: list[float] = []

            def open_lid() -> None:
                lid_opened.append(time.monotonic())
                virtual.open_lid()

            edges.call(open_lid)
            assert wait_until(lambda: not virtual.motor_pin_high, 5), "the lid must stop the motor"
            assert lid_opened and off_at
            delay = off_at[-1] - lid_opened[0]
            assert delay <= 0.020, f"motor off {delay * 1000:.1f} ms after the lid opened ({trouble})"
        finally:
            release.set()
            if disk is not None:
                disk.heal()
        assert not virtual.motor_pin_high


def test_the_motor_guard_shares_no_thread_with_the_launcher_timers(tmp_path: Path) -> None:
    """In-process, the guard's deadline alone: the timer thread blocked, a run in progress stops at its limit."""
    with running_daemon(tmp_path, "guard", overrides=CONFIG) as daemon:
        virtual, launcher = daemon.virtual, daemon.launcher
        assert virtual is not None and launcher is not None
        assert start_game(daemon.table)
        times: list[tuple[float, bool]] = []
        virtual.pin("motor_enable").listeners.append(lambda: times.append((time.monotonic(), virtual.motor_pin_high)))
        blocked, release = threading.Event(), threading.Event()

        def hang() -> None:
            blocked.set()
            release.wait()

        daemon.clock.call_later(0.0, hang)
        try:
            assert blocked.wait(5)
            virtual.press_button()
            assert times and times[0][1], "the press switched the motor on without the timer thread"
            assert wait_until(lambda: not virtual.motor_pin_high, MAX_RUN_S + 2)
            ran = next(t for t, on in times if not on) - times[0][0]
            assert ran <= MAX_RUN_S + MOTOR_SLACK_S, f"the motor ran {ran:.3f} s with the timer thread hung"
            assert launcher.status().extra["guard_trips"] == 1
        finally:
            release.set()


def test_a_press_never_waits_for_the_tables_lock(tmp_path: Path) -> None:
    """With the table's lock held forever a press is still served at once, with the referee's next plan: the press
    path claims the table's published snapshot and never takes the lock, so the edge thread that delivered the press
    is free for the next edge (lgpio has one). The referee records that very plan once the lock is free."""
    with running_daemon(tmp_path, "busy", overrides=CONFIG) as daemon:
        table, virtual, journal = daemon.table, daemon.virtual, daemon.journal
        assert table is not None and journal is not None and virtual is not None and start_game(table)
        expected = table.referee.next_fire_plan(table.referee.hitter())  # nothing changes the referee meanwhile
        edges, release = EdgeThread(), threading.Event()
        try:
            assert hold_forever(table.lock, release)
            edges.call(virtual.press_button)
            after_press = threading.Event()
            edges.call(after_press.set)
            assert after_press.wait(5), "the next edge waited behind a press stuck on the table's lock"
            assert virtual.motor_pin_high, "the press was served with the table's lock held"
        finally:
            release.set()
        assert wait_until(lambda: table.idle() and not virtual.motor_pin_high, 10)
        journalled = list(journal.events(1, 1000))
        assert not [e for e in journalled if e["type"] == "press_refused"]
        assert [e["plan"] for e in journalled if e["type"] == "press"] == [expected.to_json()]  # type: ignore[union-attr]
