"""Start-up replays from the journal's last referee snapshot, not from the table's first command.

A snapshot note is journalled after each new game, so a restart replays at most about one game instead of every
command the table ever took (a café table takes tens of thousands in a few weeks). The restored referee must be
exactly the one a full replay gives, undo included.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from unolauncher.daemon.restore import SNAPSHOT_NOTE
from unolauncher.daemon.table import Table
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

from .test_busy import Recorder


def new_game(seed: int) -> dict[str, Any]:
    return {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob", "cy"], "mode": "full", "seed": seed}


def play(table: Table, steps: int, seed: int) -> int:
    """Let a random bot play ``steps`` accepted commands through the table (as its worker would)."""
    bot = Bot("random", seed=seed)
    for _ in range(steps):
        assert isinstance(table.referee, Referee)
        command = bot.next_command(table.referee)
        assert command is not None, "the game ended early; use another seed"
        ok, code, message, _ = table.apply(command)
        assert ok, (command, code, message)
    return steps


def full_replay(journal: Journal) -> Referee:
    referee = Referee()
    for command in journal.commands():
        referee.handle(command)
    return referee


def two_games(path: Path) -> tuple[Table, dict[str, Any]]:
    """Game 1 (40 commands), then game 2 (25 commands); returns the table and the public state game 1 ended at."""
    table = Table(Journal(path), Referee, Recorder())
    assert table.apply(new_game(1))[0]
    play(table, 40, seed=1)
    before_second = table.referee.public_state()
    assert table.apply(new_game(2))[0]
    play(table, 25, seed=2)
    return table, before_second


def test_a_restart_replays_only_the_commands_after_the_last_snapshot_and_gets_the_same_referee(tmp_path: Path) -> None:
    live, _ = two_games(tmp_path / "j.sqlite3")
    assert [
        note["referee"]["history"][0]["seed"]
        for _, kind, _, note in live.journal.entries()
        if kind == "note" and note.get("type") == SNAPSHOT_NOTE
    ] == [1, 2]  # one snapshot per new game, right after it

    restarted = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder())
    assert restarted.restore() == 25  # game 2's commands after its new_game, not all 67
    assert restarted.referee.to_json() == live.referee.to_json()
    assert restarted.referee.to_json() == full_replay(restarted.journal).to_json()


def test_after_a_restart_undo_still_takes_back_the_new_game(tmp_path: Path) -> None:
    _, before_second = two_games(tmp_path / "j.sqlite3")
    restarted = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder())
    restarted.restore()
    for _ in range(26):  # game 2's 25 moves, then its new_game
        assert restarted.apply({"type": "undo"})[0]
    assert restarted.referee.public_state() == before_second
    # Exactly where a referee fed every journalled command (the undos included) ends up.
    assert restarted.referee.to_json() == full_replay(restarted.journal).to_json()


def test_an_unusable_snapshot_gives_way_to_the_one_before(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    live, _ = two_games(tmp_path / "j.sqlite3")
    live.journal.append_note({"type": SNAPSHOT_NOTE, "referee": {"version": 99}})  # e.g. written by a newer version
    restarted = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder())
    with caplog.at_level(logging.WARNING, logger="unolauncher.daemon.table"):
        assert restarted.restore() == 25  # game 2's snapshot, then its moves
    assert "cannot be used" in caplog.text
    assert restarted.referee.to_json() == live.referee.to_json()


def test_without_a_usable_snapshot_everything_is_replayed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    live, _ = two_games(tmp_path / "j.sqlite3")
    with live.journal._lock:  # every snapshot unusable (another version's)
        live.journal._db.execute(
            "UPDATE journal SET body = ? WHERE kind = 'note'", ('{"referee":{"version":99},"type":"referee_snapshot"}',)
        )
    restarted = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder())
    with caplog.at_level(logging.WARNING, logger="unolauncher.daemon.table"):
        assert restarted.restore() == 67  # both new games and every move
    assert caplog.text.count("cannot be used") == 2
    assert restarted.referee.to_json() == live.referee.to_json()


def test_retention_prunes_old_games_and_compacts_snapshots_and_a_restart_is_unchanged(tmp_path: Path) -> None:
    """``journal_keep_days``: games that began before the horizon leave the journal (whole: from their
    ``new_game``), snapshots between the first kept one and the newest go, and a restart gives the same referee."""
    path = tmp_path / "j.sqlite3"
    live, _ = two_games(path)
    for seed in (3, 4):
        assert live.apply(new_game(seed))[0]
        play(live, 10, seed=seed)
    journal = live.journal
    last_seq = journal.last_seq
    journal.mark_delivered(range(1, last_seq + 1))
    before = journal.entries()
    starts = [pos for pos, kind, _, body in before if kind == "command" and body["type"] == "new_game"]
    assert len(starts) == 4 and sum(kind == "note" for _, kind, _, _ in before) == 4

    assert journal.prune(0, "new_game", SNAPSHOT_NOTE) == {"entries": 0, "snapshots": 2}  # all games within horizon
    removed = journal.prune(time.time() + 1, "new_game", SNAPSHOT_NOTE)  # all of them older: the current one stays
    after = journal.entries()
    assert after[0][0] == starts[-1] and after[0][3]["type"] == "new_game", "whole games: from their new_game"
    assert removed["entries"] == len(before) - 2 - len(after)
    assert [kind for _, kind, _, _ in after].count("note") == 1
    assert journal.last_seq == last_seq and journal.events(1, 10)[0]["seq"] > 1, "seq goes on; resend starts later"

    restarted = Table(Journal(path), Referee, Recorder())
    restarted.restore()
    assert restarted.referee.to_json() == live.referee.to_json()


def test_retention_never_cuts_after_an_event_the_broker_has_not_acknowledged(tmp_path: Path) -> None:
    live, _ = two_games(tmp_path / "j.sqlite3")
    journal = live.journal
    first_game_events = [e["seq"] for e in journal.events(1, 10_000)][:3]
    journal.mark_delivered(range(first_game_events[-1] + 1, journal.last_seq + 1))  # game 1's first events wait
    assert journal.prune(time.time() + 1, "new_game", SNAPSHOT_NOTE)["entries"] == 0
    journal.mark_delivered(first_game_events)
    assert journal.prune(time.time() + 1, "new_game", SNAPSHOT_NOTE)["entries"] > 0


def test_the_daemon_table_prunes_at_start_up_with_keep_days(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    live, _ = two_games(path)
    live.journal.mark_delivered(range(1, live.journal.last_seq + 1))
    kept = Table(Journal(path), Referee, Recorder(), keep_days=30)
    kept.restore()
    assert kept.journal.entries()[0][0] == 1, "both games began within 30 days"
    pruned = Table(Journal(path), Referee, Recorder(), keep_days=1e-9)  # a horizon of a few microseconds
    pruned.restore()
    assert pruned.journal.entries()[0][3] == new_game(2) and pruned.referee.to_json() == live.referee.to_json()
