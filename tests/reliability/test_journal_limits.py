"""#33 item 12: a journal someone with write access forged — ``seq`` at the end of the numbers, a 400 KB event in
the outbox. The daemon keeps answering, refuses what it cannot record in one sentence, loses nothing journalled,
and is never deaf (the embedded broker used to drop it on every retry of the big event).

Real daemons on the embedded broker, real SQLite files forged with SQLite itself.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from daemon.game import NEW_GAME

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.store.journal import Journal, JournalError
from unolauncher.store.limits import MAX_EVENT_BYTES, SEQ_MAX

pytestmark = pytest.mark.timeout(120)

HONEST: dict[str, dict[str, Any]] = {"launcher": {"allow_rigged": False}, "homeassistant": {"enabled": False}}
GAME = {key: value for key, value in NEW_GAME.items() if key != "seed"}


def forge(state_dir: Path, seq: int, body_extra: str = "", outbox: bool = False) -> None:
    """Append an event row with ``seq`` (and, with ``outbox``, leave it unacknowledged), as a hand with write access
    to the journal would; the journal's own schema first (a real Journal creates the file)."""
    Journal(state_dir / "journal.sqlite3").close()
    body = json.dumps({"seq": seq, "ts": time.time(), "type": "fired", "pad": body_extra}, separators=(",", ":"))
    db = sqlite3.connect(state_dir / "journal.sqlite3")
    with db:
        db.execute("INSERT INTO journal (kind, seq, ts, body) VALUES ('event', ?, ?, ?)", (seq, time.time(), body))
        if outbox:
            db.execute("INSERT INTO outbox (seq) VALUES (?)", (seq,))
    db.close()


def rows(state_dir: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{state_dir / 'journal.sqlite3'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT pos, kind, seq, body FROM journal WHERE kind != 'note' ORDER BY pos").fetchall()
    finally:
        db.close()


@pytest.mark.parametrize("last", [2**63 - 1, SEQ_MAX])
def test_a_journal_at_the_end_of_its_numbers_refuses_writes_in_one_sentence_and_answers(
    tmp_path: Path, last: int
) -> None:
    daemon = DaemonProcess(tmp_path / "d", overrides=HONEST)
    daemon.state_dir.mkdir(parents=True)
    forge(daemon.state_dir, last)
    before = rows(daemon.state_dir)
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        refused = table.command(dict(GAME))
        assert (refused["ok"], refused["code"]) == (False, "journal_error"), refused
        assert "event numbers are used up" in refused["message"] and "move journal.sqlite3 aside" in refused["message"]
        assert table.command({"type": "disable"})["code"] == "journal_error"  # answered; nothing to record it with
        for _ in range(3):  # and it goes on answering
            assert table.command({"type": "status"})["ok"]
        assert table.command({"type": "resend", "from": last})["ok"]
        assert daemon.alive()
    assert rows(daemon.state_dir) == before  # nothing journalled changed, nothing half-written


def test_the_last_number_is_used_and_the_next_write_is_refused_whole(tmp_path: Path) -> None:
    forge(tmp_path, SEQ_MAX - 1)
    journal = Journal(tmp_path / "journal.sqlite3")
    assert journal.append_command({"type": "x"}, [{"type": "a"}])[0]["seq"] == SEQ_MAX
    with pytest.raises(JournalError, match="event numbers are used up"):
        journal.append_command({"type": "y"}, [{"type": "b"}])
    assert [kind for _, kind, _, _ in journal.entries()] == ["event", "command", "event"]  # no 'y' command row
    assert journal.last_seq == SEQ_MAX


def test_a_huge_event_in_the_outbox_goes_out_as_a_stand_in_and_the_daemon_is_not_deaf(tmp_path: Path) -> None:
    daemon = DaemonProcess(tmp_path / "d", overrides=HONEST)
    daemon.state_dir.mkdir(parents=True)
    forge(daemon.state_dir, 1, "x" * 400_000, outbox=True)  # 400 KB: over the brokers' 256 KiB packet cap
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        assert table.wait_for_seq(1), "the stand-in never came"
        stand_in = table.events[1]
        assert stand_in["type"] == "event_too_large" and stand_in["original_type"] == "fired"
        assert stand_in["bytes"] > MAX_EVENT_BYTES
        started = table.command(dict(GAME))
        assert started["ok"], started
        assert table.wait_for_seq(2) and table.events[2]["type"] == "game_started"  # events after it flow
        assert table.command({"type": "status"})["ok"]
        resent = len(table.arrivals)
        assert table.command({"type": "resend", "from": 1})["ok"]
        assert wait_until(lambda: table.arrivals[resent:].count(1) >= 1, 10)
        assert not table.conflicts  # the resent copy is the same stand-in
        assert wait_until(lambda: rows_in_outbox(daemon.state_dir) == 0, 10)
    big = [body for _, kind, seq, body in rows(daemon.state_dir) if seq == 1]
    assert len(big) == 1 and len(big[0]) > 400_000  # the event itself is still in the journal


def rows_in_outbox(state_dir: Path) -> int:
    db = sqlite3.connect(f"file:{state_dir / 'journal.sqlite3'}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])
    finally:
        db.close()
