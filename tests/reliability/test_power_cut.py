"""Power cuts under a playing daemon: nothing a subscriber saw is ever taken back.

The daemon's state directory is a power-cut filesystem (``support/cutfs.py``): every write stays in memory until
it is fsynced, and a cut keeps only what was durable — which a SIGKILL (``tests/daemon/test_crash_recovery.py``)
cannot test, because the kernel keeps the page cache of a killed process. Bots play full-mode games through a real
``unolauncher run`` on a real mosquitto, in bursts of commands sent without waiting (moves, hits, launcher
presses), and two subscribers record every copy of every event. At a random moment — most of them inside a burst —
the daemon is frozen (SIGSTOP), the filesystem cut, the daemon SIGKILLed: process and disk die at the same instant,
and nothing the daemon did after the cut can reach the disk. The cuts rotate through the three models (only what
was fsynced; a random part written back; ext4's commit and write-back timers, 10x faster than Linux's).

After every cut, on the filesystem as the power came back:

- ``PRAGMA integrity_check`` is ``ok``;
- every event either subscriber has seen is in the journal with the same content (and no subscriber ever saw two
  different events under one ``seq``); every ``ok`` reply and retained ``state`` points at a ``seq`` the journal has;
- the restarted daemon's state equals a replay of the journal (whose events are exactly what the replay produces,
  with a gap-free ``seq``), and the motor is off.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from daemon.game import NEW_GAME, uninterrupted_run

from support.cutfs import MODELS, CutFS, require_fuse
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

CUTS = 30
EXT4_TIMERS = (0.5, 0.5, 3.0)  # Linux: commit 5 s, writeback 5 s, expire 30 s; scaled so they fire between cuts

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]


def journal_events(path: Path) -> dict[int, dict[str, Any]]:
    journal = Journal(path)
    try:
        return {event["seq"]: event for event in journal.events(1, 1_000_000)}
    finally:
        journal.close()


def integrity(path: Path) -> str:
    db = sqlite3.connect(str(path))
    try:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()


def next_command(mirror: Referee, bot: Bot, rng: random.Random) -> dict[str, Any]:
    command = bot.next_command(mirror) if mirror.public_state().get("players") else None
    return command if command is not None else {**NEW_GAME, "seed": rng.randrange(1 << 30)}  # no game, or over


def play_steadily(player: TableClient, mirror: Referee, bot: Bot, rng: random.Random) -> None:
    """A few moves one at a time, each waiting for its ``ok``: the game moves on between the cuts."""
    for _ in range(rng.randint(0, 30)):
        command = next_command(mirror, bot, rng)
        reply = player.command(command)
        assert reply["ok"], (command, reply)
        mirror.handle(command)


def play_burst(player: TableClient, mirror: Referee, bot: Bot, rng: random.Random, tag: str) -> int:
    """Send a few legal commands without waiting for their replies; a launcher press ends the burst (its cards are
    counted by the daemon, so the mirror cannot follow past it). Returns how many messages were sent."""
    sent = 0
    for index in range(rng.randint(3, 15)):
        command = next_command(mirror, bot, rng)
        if command["type"] == "hit" and rng.random() < 0.5:
            player.send(json.dumps({"type": "press", "id": f"{tag}-{index}"}))
            return sent + 1
        player.send(json.dumps({**command, "id": f"{tag}-{index}"}))
        mirror.handle(command)
        sent += 1
    return sent


def test_power_cuts_under_load_take_back_nothing_a_subscriber_saw(tmp_path: Path) -> None:
    fusermount = require_fuse()
    rng = random.Random(20261201)
    figures: list[dict[str, Any]] = []
    with Mosquitto() as broker:
        daemon = DaemonProcess(tmp_path / "daemon", broker_port=broker.port)
        journal_path = daemon.state_dir / "journal.sqlite3"
        fs = CutFS(
            daemon.state_dir, tmp_path / "image", model=MODELS[0], seed=13, timers=EXT4_TIMERS, fusermount=fusermount
        )
        fs.mount()
        watchers: list[TableClient] = []
        try:
            daemon.start()
            watchers = [TableClient("127.0.0.1", broker.port, daemon.table, name=n) for n in ("watch-a", "watch-b")]
            acknowledged = 0  # the highest seq an ``ok`` reply has named
            started = time.monotonic()
            for cut_no in range(CUTS):
                mirror, _ = uninterrupted_run(journal_path)
                bot = Bot("random", seed=cut_no)
                in_burst = rng.random() < 0.75
                with TableClient("127.0.0.1", broker.port, daemon.table, name=f"player{cut_no}") as player:
                    play_steadily(player, mirror, bot, rng)
                    sent = play_burst(player, mirror, bot, rng, f"c{cut_no}")
                    # Inside the burst (the daemon is still taking it in) or at a quiet moment after it.
                    time.sleep(rng.uniform(0.0, 0.06) if in_burst else rng.uniform(0.15, 0.8))
                    assert daemon.process is not None
                    daemon.process.send_signal(signal.SIGSTOP)  # the daemon does nothing more from here
                    cut = fs.cut()
                    daemon.kill()
                    with player.lock:
                        answered = [r for r in player.replies.values() if r.get("ok") and "seq" in r]
                    acknowledged = max([acknowledged, *(int(r["seq"]) for r in answered)])
                fs.unmount()
                fs.model = MODELS[(cut_no + 1) % len(MODELS)]
                fs.mount()

                assert integrity(journal_path) == "ok", f"cut {cut_no + 1} ({cut['model']})"
                daemon.start()
                expected, event_count = uninterrupted_run(journal_path)  # gap-free, and what a replay produces
                journalled = journal_events(journal_path)
                assert acknowledged <= event_count, f"an ok reply named {acknowledged}; the journal has {event_count}"
                seen = 0
                for watcher in watchers:
                    with watcher.lock:
                        events, conflicts = dict(watcher.events), list(watcher.conflicts)
                        states = [json.loads(p) for t, p, _ in watcher.messages if t.endswith("/state")]
                    assert conflicts == [], f"two different events under one seq: {conflicts[:2]}"
                    lost = sorted(s for s in events if journalled.get(s) != events[s])
                    assert lost == [], f"cut {cut_no + 1} ({cut['model']}): seen but not journalled as seen: {lost}"
                    assert all(s.get("seq", 0) <= event_count for s in states), "a retained state ahead of the journal"
                    seen = max(seen, len(events))
                with TableClient("127.0.0.1", broker.port, daemon.table, name=f"check{cut_no}") as check:
                    status = check.command({"type": "status"})["data"]
                assert status["seq"] == event_count
                assert status["state"] == expected.public_state(), f"after cut {cut_no + 1}"
                assert status["launcher"]["motor_on"] is False, "the motor must be off after the power comes back"
                figures.append({**cut, "in_burst": in_burst, "sent": sent, "events": event_count, "seen": seen})

            final = len(journal_events(journal_path))
            for watcher in watchers:
                assert watcher.resend_missing(final, timeout=20), "the journal's events must all be deliverable"
                assert sorted(watcher.events) == list(range(1, final + 1))
                assert watcher.conflicts == []
            elapsed = time.monotonic() - started
        finally:
            for watcher in watchers:
                watcher.close()
            daemon.stop()
            fs.close()

    by_model = Counter(f["model"] for f in figures)
    pages = {m: sum(f["pages_lost"] for f in figures if f["model"] == m) for m in by_model}
    written_back = sum(f["pages_written_back_at_cut"] for f in figures)
    print(
        f"\n{len(figures)} power cuts in {elapsed:.0f} s ({dict(by_model)}), "
        f"{sum(f['in_burst'] for f in figures)} inside a burst; {final} events journalled, "
        f"{max(f['seen'] for f in figures)} seen by the subscribers before the last cut; unsynced pages lost per "
        f"model {pages}, metadata operations lost {sum(f['metadata_ops_lost'] for f in figures)}, pages written "
        f"back at a random cut {written_back}; 0 events seen and lost, 0 seq conflicts"
    )
    assert len(figures) >= 20 and sum(f["in_burst"] for f in figures) > len(figures) / 2
    assert sum(pages.values()) > 0, "the cuts must have lost unsynced writes, or they proved nothing"
    assert final > 100, "the run should have produced several games' worth of events"
