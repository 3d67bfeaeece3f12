"""Start-up replays from the journal's last referee snapshot, not from the table's first command.

A snapshot note is journalled after each new game, so a restart replays at most about one game instead of every
command the table ever took (a café table takes tens of thousands in a few weeks). The restored referee must be
exactly the one a full replay gives, undo included.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from unolauncher.daemon.table import SNAPSHOT_NOTE, Table
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
    assert [note["referee"]["history"][0]["seed"] for _, kind, _, note in live.journal.entries() if kind == "note"
            and note.get("type") == SNAPSHOT_NOTE] == [1, 2]  # one snapshot per new game, right after it

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
        live.journal._db.execute("UPDATE journal SET body = ? WHERE kind = 'note'", ('{"referee":{"version":99},'
                                                                                    '"type":"referee_snapshot"}',))
    restarted = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder())
    with caplog.at_level(logging.WARNING, logger="unolauncher.daemon.table"):
        assert restarted.restore() == 67  # both new games and every move
    assert caplog.text.count("cannot be used") == 2
    assert restarted.referee.to_json() == live.referee.to_json()
