"""Data can never brick start-up: rows that cannot be read are set aside and the table starts from the last good point.

The journals here are what earlier versions wrote (``json.dumps`` lets ``Infinity`` and ``NaN`` through) or what a
damaged file holds; they are made with the same SQL the journal uses. SQLite here is 3.40.1, the version of Raspberry
Pi OS bookworm, whose ``json_extract`` refused such a snapshot on every start (issue #18, defect 1).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from daemon.game import NEW_GAME
from support.daemon import DaemonProcess, TableClient
from unolauncher.daemon.restore import SNAPSHOT_NOTE
from unolauncher.daemon.table import Table
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

from .test_busy import Recorder

pytestmark = pytest.mark.timeout(120)

BRICK = {"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 5, "x": float("inf")}


def old_dumps(value: Any) -> str:
    """The journal's writer before the strict codec: ``json.dumps`` lets ``NaN`` and ``Infinity`` through."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def old_version_rows(path: Path, command: dict[str, Any], moves: list[dict[str, Any]]) -> None:
    """Append, as the version before the strict codec did: ``command`` (with its non-JSON value), a referee snapshot
    holding it (as after every new game), then ``moves``."""
    db = sqlite3.connect(path)
    with db:
        now = time.time()
        db.execute("INSERT INTO journal (kind, ts, body) VALUES ('command', ?, ?)", (now, old_dumps(command)))
        snapshot = {"type": SNAPSHOT_NOTE, "referee": {"version": 1, "history": [command], "junk": float("nan")}}
        db.execute("INSERT INTO journal (kind, ts, body) VALUES ('note', ?, ?)", (now, old_dumps(snapshot)))
        for move in moves:
            db.execute("INSERT INTO journal (kind, ts, body) VALUES ('command', ?, ?)", (now, old_dumps(move)))
    db.close()


def one_game(path: Path, steps: int = 12) -> Table:
    table = Table(Journal(path), Referee, Recorder())
    assert table.apply(dict(NEW_GAME))[0]
    bot = Bot("random", seed=3)
    for _ in range(steps):
        assert isinstance(table.referee, Referee)
        command = bot.next_command(table.referee)
        assert command is not None
        assert table.apply(command)[0]
    return table


def test_a_row_an_older_version_wrote_with_infinity_is_set_aside_and_the_table_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "j.sqlite3"
    live = one_game(path)
    good = live.referee.to_json()
    old_version_rows(path, BRICK, [{"type": "draw", "player": "a"}])
    live.journal.close()

    restarted = Table(Journal(path), Referee, Recorder())
    with caplog.at_level(logging.ERROR, logger="unolauncher.daemon.table"):
        restarted.restore()
    assert restarted.referee.to_json() == good  # the last good point: before the unreadable new_game
    set_aside = [r for r in caplog.records if "set aside" in r.getMessage()]
    assert len(set_aside) == 1 and "Infinity is not allowed" in set_aside[0].getMessage()
    [(first, last, reason)] = restarted.journal.quarantined()
    assert last - first == 2 and "Infinity" in reason  # the command, its snapshot, the move after it

    # Play on; the next start neither trips over those rows again nor loses what came after them.
    bot = Bot("random", seed=4)
    for _ in range(5):
        assert isinstance(restarted.referee, Referee)
        command = bot.next_command(restarted.referee)
        assert command is not None and restarted.apply(command)[0]
    again = Table(Journal(path), Referee, Recorder())
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="unolauncher"):
        again.restore()
    assert again.referee.to_json() == restarted.referee.to_json()
    assert "cannot be read" not in caplog.text
    # Retention reads the same rows (json_extract failed on them: no game could ever be pruned again).
    again.journal.mark_delivered(range(1, again.journal.last_seq + 1))
    assert again.journal.prune(time.time() + 1, "new_game", SNAPSHOT_NOTE)["entries"] > 0


def test_a_damaged_row_and_a_row_the_referee_fails_on_are_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    live = one_game(path)
    good = live.referee.to_json()
    with sqlite3.connect(path) as db:  # a half-written body (damage)
        db.execute("INSERT INTO journal (kind, ts, body) VALUES ('command', 0, '{\"type\": \"pl')")
    restarted = Table(Journal(path), Referee, Recorder())
    restarted.restore()
    assert restarted.referee.to_json() == good
    assert "not valid JSON" in restarted.journal.quarantined()[0][2]

    class Fragile(Referee):  # a referee with a bug on one command: it raises instead of refusing
        def handle(self, command: Any) -> list[dict[str, Any]]:
            if command.get("type") == "draw" and command.get("player") == "boom":
                raise RuntimeError("simulated referee bug")
            return super().handle(command)

    with sqlite3.connect(path) as db:
        body = json.dumps({"type": "draw", "player": "boom"})
        db.execute("INSERT INTO journal (kind, ts, body) VALUES ('command', 0, ?)", (body,))
    fragile = Table(Journal(path), Fragile, Recorder())
    fragile.restore()
    assert fragile.referee.to_json() == good
    assert "raised RuntimeError" in fragile.journal.quarantined()[-1][2]


def test_the_daemon_starts_on_a_journal_that_bricked_the_version_before(tmp_path: Path) -> None:
    daemon = DaemonProcess(tmp_path, overrides={"homeassistant": {"enabled": False}})
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as table:
        assert table.command(dict(NEW_GAME))["ok"]
        before = table.command({"type": "status"})["data"]["state"]
    old_version_rows(daemon.state_dir / "journal.sqlite3", BRICK, [])

    for _ in range(2):  # the first start sets the rows aside; the second finds nothing to complain about
        daemon.start()
        try:
            with TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as table:
                assert table.command({"type": "status"})["data"]["state"] == before
        finally:
            assert daemon.stop() == 0
    log = daemon.log_text()
    assert log.count("set aside") == 1, log[-3000:]
    assert "Traceback" not in log and "malformed JSON" not in log
