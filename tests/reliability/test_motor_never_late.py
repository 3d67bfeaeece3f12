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

from reliability.test_motor_safety import CONFIG, LAUNCHER, FaultyDaemon, Notifications
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
