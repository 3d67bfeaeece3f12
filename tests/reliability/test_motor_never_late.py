"""The motor never runs late, twice, or after shutdown (issue 26): faults injected into a real ``unolauncher run``.

Each case runs the daemon through :mod:`reliability.motor_faults` (virtual launcher on mock pins, the enable pin's
changes recorded inside the process on the machine-wide monotonic clock), injects one fault, and measures how long
the motor line stays high and the exit code.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reliability.test_motor_safety import CONFIG, LAUNCHER, MOTOR_SLACK_S, FaultyDaemon, Notifications
from support.net import wait_until

pytestmark = pytest.mark.timeout(120)


class MotorFaultDaemon(FaultyDaemon):
    """``unolauncher run`` through :mod:`reliability.motor_faults`."""

    def command_line(self) -> list[str]:
        return [sys.executable, "-m", "reliability.motor_faults", self.fault, "run", "--config", str(self.config_path)]

    def replies(self) -> dict[Any, dict[str, Any]]:
        return {r["reply"].get("id"): r["reply"] for r in self.records() if "reply" in r}

    def motor_on_time_after(self, since: float) -> float:
        """Seconds the enable line was high after ``since`` (up to the last record)."""
        total, on_at = 0.0, None
        for record in self.records():
            if "on" not in record:
                continue
            if record["on"] and on_at is None:
                on_at = max(record["t"], since)
            elif not record["on"] and on_at is not None:
                total += max(0.0, record["t"] - on_at)
                on_at = None
        assert on_at is None, "the motor line is still high at the last record"
        return total


@pytest.fixture
def notify(tmp_path: Path) -> Any:
    listener = Notifications(str(tmp_path / "notify.sock"))
    yield listener
    listener.close()


def start(
    tmp_path: Path, fault: str, notify: Notifications, overrides: dict[str, Any] | None = None
) -> MotorFaultDaemon:
    env = {"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"}
    daemon = MotorFaultDaemon(tmp_path, fault, env, overrides)
    daemon.start(wait_mqtt=False)
    assert wait_until(lambda: daemon.mark("injected") is not None, 15), daemon.records()
    return daemon


def test_an_enable_after_sigterm_cannot_restart_the_motor(tmp_path: Path, notify: Notifications) -> None:
    """Item 1: SIGTERM while the worker is held with an ``enable`` and a press queued behind it; they are applied
    after the signal's motor-off. The enable is refused (``stopping``), the press never runs the motor, exit 0."""
    long_run = {**CONFIG, "launcher": {**LAUNCHER, "max_run_s": 5.0}}
    daemon = start(tmp_path, "enable-after-stop", notify, long_run)
    try:
        assert daemon.process is not None
        sent = time.monotonic()
        os.kill(daemon.process.pid, signal.SIGTERM)
        code = daemon.wait_exit(30)
        assert daemon.mark("released") is not None, daemon.records()
        replies = daemon.replies()
        assert "enable" in replies, f"the enable was applied after the signal: {daemon.records()}"
        on_after = daemon.motor_on_time_after(sent)
        assert on_after == 0.0, f"the motor ran {on_after * 1000:.1f} ms after SIGTERM; replies: {replies}"
        assert replies["enable"]["ok"] is False and replies["enable"]["code"] == "stopping", replies["enable"]
        assert code == 0, daemon.log_text()
    finally:
        daemon.stop()


def on_segments(daemon: MotorFaultDaemon) -> list[tuple[float, float]]:
    """(on, off) times of the enable line, in order."""
    segments, on_at = [], None
    for record in daemon.records():
        if record.get("on") is True and on_at is None:
            on_at = record["t"]
        elif record.get("on") is False and on_at is not None:
            segments.append((on_at, record["t"]))
            on_at = None
    assert on_at is None, "the motor line is still high at the last record"
    return segments


FORCED = {
    # max_run_s = 1 and no card ever comes (the magazine is empty and believed so): the run ends by max run
    "max-run": ("press", {**LAUNCHER, "retract_ms": 120, "settle_ms": 40}, 1.0),
    # the launcher believes it holds 40 cards, none comes: a jam after 0.3 s
    "jam": ("press", {**LAUNCHER, "retract_ms": 120, "settle_ms": 40, "magazine": 40, "jam_timeout_s": 0.3,
                      "max_run_s": 5.0}, 0.3),
    # the emergency stop 0.2 s into a run that would last 5 s
    "e-stop": ("estop", {**LAUNCHER, "retract_ms": 120, "settle_ms": 40, "max_run_s": 5.0}, 0.2),
}  # fmt: skip


@pytest.mark.parametrize("case", list(FORCED))
def test_after_a_forced_stop_nothing_drives_the_motor_again(tmp_path: Path, notify: Notifications, case: str) -> None:
    """Item 4: the default 120 ms retract once re-energised the motor (in reverse) after a max-run stop. After a
    max-run, jam or e-stop stop the enable line stays low until the run is over; the daemon then stops cleanly."""
    fault, launcher, stop_after = FORCED[case]
    daemon = start(tmp_path, fault, notify, {**CONFIG, "launcher": launcher})
    try:
        assert daemon.mark("run over") is not None, daemon.records()
        segments = on_segments(daemon)
        assert segments, f"the press must have run the motor: {daemon.records()}"
        ran = segments[0][1] - segments[0][0]
        assert ran <= stop_after + MOTOR_SLACK_S, f"{case}: the forced stop came after {ran:.3f} s"
        assert len(segments) == 1, f"{case}: the motor was driven again after the forced stop: {segments}"
        assert daemon.stop() == 0, daemon.log_text()
    finally:
        daemon.stop()
