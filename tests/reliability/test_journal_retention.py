"""#33 item 5 (pruning): the journal is kept under a size budget and within a disk under its margin, by pruning whole
finished games, oldest first; the open game and unpublished events stay; ``verify``/``export`` work on what remains
and say what was pruned.

Real daemons (embedded broker, real SQLite): one with ``table.journal_budget_mb`` a few games' worth, played through
many new games; one on a 16 MiB tmpfs whose free space an outsider takes. And the journal's own guards on a real
SQLite file (an unacknowledged event, the open game, a missing snapshot).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from daemon.game import NEW_GAME

from support.daemon import DaemonProcess, TableClient
from unolauncher.daemon.disk_guard import PRUNED_NOTE, ROOM
from unolauncher.daemon.restore import SNAPSHOT_NOTE
from unolauncher.store.journal import Journal

pytestmark = pytest.mark.timeout(240)

BUDGET_MB = 0.25
HONEST: dict[str, dict[str, Any]] = {"launcher": {"allow_rigged": False}, "homeassistant": {"enabled": False}}


def game(number: int) -> dict[str, Any]:
    """A new game whose third player names it (the daemon draws its own secret: allow_rigged is off)."""
    return {key: value for key, value in NEW_GAME.items() if key != "seed"} | {"players": ["ann", "bob", f"p{number}"]}


def journal_rows(state_dir: Path) -> tuple[int, int, int, list[tuple[str, int | None, str]]]:
    """(bytes in use, seq of the first event, journal_pruned notes, rows as (kind, seq, body)) read-only."""
    db = sqlite3.connect(f"file:{state_dir / 'journal.sqlite3'}?mode=ro", uri=True)
    try:
        pragmas = ("page_size", "page_count", "freelist_count")
        page, count, free = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in pragmas)
        rows = db.execute("SELECT kind, seq, body FROM journal ORDER BY pos").fetchall()
        first = db.execute("SELECT MIN(seq) FROM journal").fetchone()[0]
    finally:
        db.close()
    notes = sum(1 for kind, _, body in rows if kind == "note" and f'"type":"{PRUNED_NOTE}"' in body)
    return (count - free) * page, int(first), notes, rows


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unolauncher", *args], capture_output=True, text=True, timeout=60)


def test_the_journal_stays_under_its_budget_and_verify_export_restart_work_on_what_remains(tmp_path: Path) -> None:
    daemon = DaemonProcess(
        tmp_path / "d", overrides={**HONEST, "table": {"journal_budget_mb": BUDGET_MB, "journal_keep_days": 0}}
    )
    sizes = []
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        for number in range(1, 41):
            answer = table.command(game(number))
            assert answer["ok"], answer
            sizes.append(journal_rows(daemon.state_dir)[0])
        state = table.command({"type": "status"})["data"]["state"]
    largest_game = max(b - a for a, b in itertools.pairwise(sizes) if b > a)
    live, first_seq, notes, rows = journal_rows(daemon.state_dir)
    # Pruning runs before each new game: the journal holds its budget plus the game that came after it, at most.
    assert live <= BUDGET_MB * 1024 * 1024 + largest_game, (live, largest_game, sizes)
    assert max(sizes[20:]) <= BUDGET_MB * 1024 * 1024 + largest_game
    assert first_seq > 1 and notes >= 1, (first_seq, notes)
    first_command = next(body for kind, _, body in rows if kind == "command")
    assert '"type":"new_game"' in first_command  # whole games went: what remains starts at a game's beginning
    games_left = sum(1 for kind, _, body in rows if kind == "command" and '"type":"new_game"' in body)
    assert 2 <= games_left < 40
    last_game = [body for kind, _, body in rows if kind == "command" and '"type":"new_game"' in body][-1]
    assert '"p40"' in last_game and state["players"] == ["ann", "bob", "p40"]  # the open game is the last one

    checked = cli("verify", "--state-dir", str(daemon.state_dir))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith(f"pruned: events seq 1 to {first_seq - 1} "), checked.stdout
    exported = cli("export", "--state-dir", str(daemon.state_dir), "--game", "1")
    assert exported.returncode == 0, exported.stderr
    assert f"it starts at seq {first_seq}" in exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    # The first game that remains, from its start (the reveal before it, at first_seq, closed the last pruned round).
    assert lines and lines[0]["type"] == "game_started" and first_seq <= lines[0]["seq"] <= first_seq + 2, lines[:2]
    too_far = cli("export", "--state-dir", str(daemon.state_dir), "--game", str(games_left + 1))
    assert too_far.returncode == 2 and "pruned: events seq 1 to" in too_far.stderr

    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:  # a restart from the pruned journal
        assert table.command({"type": "status"})["data"]["state"] == state
        assert table.command(game(41))["ok"]


def test_a_disk_under_its_margin_rotates_old_games_out_instead_of_refusing(tmp_path: Path, small_fs: Path) -> None:
    """The 16 MiB tmpfs: after 30 games an outsider leaves half the margin free. New games still start, written into
    the pages pruned games left (the disk's free space does not shrink by a game each); with only the open game left
    to keep, ``disk_low`` as before (tests/reliability/test_journal_space.py)."""
    daemon = DaemonProcess(
        tmp_path / "d", overrides={**HONEST, "table": {"journal_budget_mb": 0, "journal_keep_days": 0}}
    )
    daemon.state_dir = small_fs / "state"
    daemon.config["table"]["state_dir"] = str(daemon.state_dir)
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        for number in range(1, 31):
            assert table.command(game(number))["ok"]
        usage = shutil.disk_usage(small_fs)
        filler = small_fs / "filler"
        filler.write_bytes(b"\0" * (usage.free - usage.total // 20))  # leaves half the margin
        try:
            free_before = shutil.disk_usage(small_fs).free
            for number in range(31, 61):
                answer = table.command(game(number))
                assert answer["ok"], answer
            _, first_seq, notes, _ = journal_rows(daemon.state_dir)
            assert first_seq > 1 and notes >= 1
            # 30 more games (~1 MB of journal) and the disk gave the journal at most a few pages more.
            assert free_before - shutil.disk_usage(small_fs).free < ROOM, (free_before, shutil.disk_usage(small_fs))
            assert table.command({"type": "disable"})["ok"]
            assert table.command({"type": "enable"})["ok"]
        finally:
            os.unlink(filler)
    checked = cli("verify", "--state-dir", str(daemon.state_dir))
    assert checked.returncode == 0 and checked.stdout.startswith("pruned: "), checked.stdout + checked.stderr


def played(journal: Journal, seed: int, delivered: bool = True) -> None:
    """A game's journal entries as the table writes them: the command and its events, then a snapshot."""
    events = journal.append_command({"type": "new_game", "seed": seed}, [{"type": "game_started", "n": seed}])
    if delivered:
        journal.mark_delivered(e["seq"] for e in events)
    journal.append_note({"type": SNAPSHOT_NOTE, "referee": {"seed": seed, "hands": "x" * 20_000}})  # a few pages


def test_the_journal_never_prunes_the_open_game_an_unpublished_event_or_a_restart_base(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    played(journal, 1)
    assert journal.prune_oldest_game("new_game", SNAPSHOT_NOTE) == 0  # only the open game
    played(journal, 2, delivered=False)  # game 2's event is still waiting for the broker
    played(journal, 3)
    assert journal.prune_oldest_game("new_game", SNAPSHOT_NOTE) == 3  # game 1 went: its command, event, snapshot
    assert journal.prune_oldest_game("new_game", SNAPSHOT_NOTE) == 0  # game 2 holds an unpublished event
    journal.mark_delivered([2])
    assert journal.prune_oldest_game("new_game", SNAPSHOT_NOTE) == 3
    journal.append_command({"type": "new_game", "seed": 4}, [])  # game 4 has no snapshot yet: game 3 is the base
    assert journal.prune_oldest_game("new_game", SNAPSHOT_NOTE) == 0
    assert journal.first_seq() == 3 and [e["seq"] for e in journal.events()] == [3]
    assert journal.space()[1] > 0  # the pages of the games that went are free for the next ones
