"""Crash test: the daemon SIGKILLed at random points of a game and restarted, over and over (24 times).

A crash, not a power cut: SIGKILL keeps the kernel's page cache, so whatever the daemon wrote reaches the disk even
without an fsync. The power cut (unsynced writes lost) is ``tests/reliability/test_power_cut.py``.

After every restart: the daemon's state equals the state of an uninterrupted run (a fresh referee fed the
journalled commands) at the same journal position; the journal's events are exactly what that run produces;
the motor pin is low. At the end the observer, connected throughout, holds a gap-free event sequence whose
every event equals the journalled one.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from daemon.game import NEW_GAME, public, uninterrupted_run
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.store.journal import Journal

KILLS = 24

pytestmark = pytest.mark.timeout(240)


def test_sigkill_at_random_points_then_restart_resumes_exactly(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    with Mosquitto() as broker:
        daemon = DaemonProcess(tmp_path, broker_port=broker.port)
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
                            time.sleep(rng.uniform(0.0, 1.0))
                            break  # the mirror cannot know the cards yet; the next round re-reads the journal
                        player.send(json.dumps(command))
                        mirror.handle(command)
                    time.sleep(rng.uniform(0.0, 0.25))
                    daemon.kill()
                daemon.start()
                expected, events = uninterrupted_run(journal_path)
                with TableClient("127.0.0.1", broker.port, daemon.table, name=f"check{round_no}") as check:
                    status = check.command({"type": "status"})
                data = status["data"]
                assert data["seq"] == events
                assert data["state"] == expected.public_state(), f"after kill {round_no + 1}"
                assert data["launcher"]["motor_on"] is False, "the motor pin must be low after a restart"
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
        finally:
            observer.close()
            daemon.stop()
