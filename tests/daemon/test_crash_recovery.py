"""Crash test: the daemon SIGKILLed at random points of a game and restarted, over and over (24 times).

A crash, not a power cut: SIGKILL keeps the kernel's page cache, so whatever the daemon wrote reaches the disk even
without an fsync. The power cut (unsynced writes lost) is ``tests/reliability/test_power_cut.py``.

After every restart: the daemon's state equals the state of an uninterrupted run (a fresh referee fed the
journalled commands) at the same journal position; the journal's events are exactly what that run produces;
the motor driver's lines are low. At the end the observer, connected throughout, holds a gap-free event sequence
whose every event equals the journalled one.

The lines outlive the process, as on a Pi without ``dtparam=strict_gpiod`` (the kernel keeps driving an output after
the process that drove it died): the virtual launcher keeps their levels in a file (``persist_outputs_file``) and
drives them again when the next daemon starts, so a kill in the middle of a run leaves the motor "running" until the
new daemon switches it off itself. ``test_a_restart_switches_off_a_motor_the_dead_daemon_left_running`` makes that
happen on purpose.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from daemon.game import NEW_GAME, public, uninterrupted_run
from support.daemon import FAST_LAUNCHER, DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.store.journal import Journal

KILLS = 24
LINES = ("motor_enable", "motor_forward", "motor_reverse")


def kept_lines(path: Path) -> dict[str, bool]:
    """The driver lines' levels as the (simulated) kernel keeps them between processes."""
    return json.loads(path.read_text()) if path.exists() else {}


def with_kept_lines(workdir: Path, launcher: dict[str, Any] | None = None) -> tuple[dict[str, Any], Path]:
    """Daemon config overrides whose virtual launcher keeps its driver lines in ``workdir/driver-lines.json``."""
    lines = workdir / "driver-lines.json"
    launcher = launcher or FAST_LAUNCHER
    return {"launcher": {**launcher, "virtual": {**launcher["virtual"], "persist_outputs_file": str(lines)}}}, lines


pytestmark = pytest.mark.timeout(240)


def test_sigkill_at_random_points_then_restart_resumes_exactly(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    overrides, lines = with_kept_lines(tmp_path)
    left_running = 0
    with Mosquitto() as broker:
        daemon = DaemonProcess(tmp_path, broker_port=broker.port, overrides=overrides)
        journal_path = daemon.state_dir / "journal.sqlite3"
        daemon.start()
        observer = TableClient("127.0.0.1", broker.port, daemon.table, name="observer")
        try:
            with TableClient("127.0.0.1", broker.port, daemon.table, name="setup") as setup:
                assert setup.command(NEW_GAME)["ok"]
            for round_no in range(KILLS):
                mirror, _ = uninterrupted_run(journal_path)
                bot = Bot("random", seed=round_no)
                # Fire a burst without waiting: moves, presses and a status, then kill somewhere inside it.
                with TableClient("127.0.0.1", broker.port, daemon.table, name=f"burst{round_no}") as player:
                    for _ in range(rng.randint(2, 8)):
                        command = bot.next_command(mirror)
                        if command is None:
                            break
                        if command["type"] == "hit":
                            # Kill before, during or after the run (the plan may hold a suspense delay).
                            player.send(json.dumps({"type": "press"}))
                            if rng.random() < 0.5:  # kill right as the motor runs, if this press fires
                                wait_until(lambda: kept_lines(lines).get("motor_enable"), 1.0, interval=0.002)
                            else:
                                time.sleep(rng.uniform(0.0, 1.0))  # the fault: a kill at a random moment
                            break  # the mirror cannot know the cards yet; the next round re-reads the journal
                        player.send(json.dumps(command))
                        mirror.handle(command)
                    if not kept_lines(lines).get("motor_enable"):
                        time.sleep(rng.uniform(0.0, 0.25))  # the fault's timing: a kill at a random quiet moment
                    daemon.kill()
                left_running += kept_lines(lines).get("motor_enable", False)
                daemon.start()
                expected, events = uninterrupted_run(journal_path)
                with TableClient("127.0.0.1", broker.port, daemon.table, name=f"check{round_no}") as check:
                    status = check.command({"type": "status"})
                data = status["data"]
                assert data["seq"] == events
                assert data["state"] == expected.public_state(), f"after kill {round_no + 1}"
                assert data["launcher"]["motor_on"] is False, "the motor pin must be low after a restart"
                assert not any(kept_lines(lines).values()), f"driver lines after restart {round_no + 1}"
            # The observer stayed connected to the broker the whole time: it must hold every event.
            final_seq = uninterrupted_run(journal_path)[1]
            assert wait_until(lambda: observer.last_seq() >= final_seq, 15)
            journal = Journal(journal_path)
            journalled = {e["seq"]: e for e in journal.events(1, 100_000)}
            journal.close()
            assert sorted(observer.events) == list(range(1, final_seq + 1))
            for seq, event in observer.events.items():
                assert event == journalled[seq]
            assert final_seq > 60, "the run should have produced a real game's worth of events"
            assert observer.state is not None and public(observer.state) == expected.public_state()
            print(f"{left_running} of {KILLS} kills left the motor running; each restart switched it off")
        finally:
            observer.close()
            daemon.stop()


def test_a_restart_switches_off_a_motor_the_dead_daemon_left_running(tmp_path: Path) -> None:
    """SIGKILL in the middle of a run: the (simulated) kernel keeps the enable line high; the restarted daemon must
    drive it low before anything else (before READY). Nothing else can: the dead process cannot."""
    slow = {**FAST_LAUNCHER, "virtual": {**FAST_LAUNCHER["virtual"], "cards_per_s": 2.0, "pulse_ms": 5.0}}
    overrides, lines = with_kept_lines(tmp_path, slow)
    overrides["table"] = {"lockout": False}  # presses fire without a game
    daemon = DaemonProcess(tmp_path, overrides=overrides)  # the embedded broker: "press" commands come over MQTT
    daemon.start()
    try:
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as phone:
            for _ in range(40):  # the model decides which presses fire: press until one does
                assert phone.command({"type": "press"})["ok"]
                if wait_until(lambda: kept_lines(lines).get("motor_enable"), 0.3):
                    break
        assert kept_lines(lines).get("motor_enable"), "some press should have started the motor"
        daemon.kill()
        assert kept_lines(lines)["motor_enable"], "the dead daemon left the line driven high"
        daemon.start()
        assert kept_lines(lines) == dict.fromkeys(LINES, False), "driven low by the new daemon as it started"
    finally:
        daemon.stop()
