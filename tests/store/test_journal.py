"""The SQLite journal and outbox: gap-free numbering, atomic appends, durability across reopen."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from unolauncher.store import journal as journal_module
from unolauncher.store.journal import Journal, JournalError


def test_events_get_gap_free_seq_across_commands_and_launcher_events(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    first = journal.append_command({"type": "new_game"}, [{"type": "a"}, {"type": "b"}])
    journal.append_note({"type": "ejection_state", "state": {"press": 1}})
    second = journal.append_events([{"type": "jam"}])
    third = journal.append_command({"type": "hit"}, [])
    assert [e["seq"] for e in first + second] == [1, 2, 3]
    assert third == []
    kinds = [(kind, seq) for _, kind, seq, _ in journal.entries()]
    assert kinds == [("command", None), ("event", 1), ("event", 2), ("note", None), ("event", 3), ("command", None)]
    positions = [pos for pos, *_ in journal.entries()]
    assert positions == list(range(1, 7))


def test_outbox_holds_unacknowledged_events_in_seq_order(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    journal.append_command({"type": "x"}, [{"type": str(i)} for i in range(5)])
    assert [s for s, _ in journal.pending()] == [1, 2, 3, 4, 5]
    journal.mark_delivered([2, 1])
    assert [s for s, _ in journal.pending()] == [3, 4, 5]
    assert [s for s, _ in journal.pending(after_seq=3, limit=1)] == [4]
    assert journal.outbox_size() == 3


def test_pending_from_memory_reads_as_the_file_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh events are handed out from memory after their commit; whatever happens (deliveries out of order, a
    delivery that fails, more undelivered events than memory keeps, a restart), ``pending`` returns exactly the rows
    a second connection reads from the file, for every starting point and limit."""
    monkeypatch.setattr(journal_module, "UNSENT_IN_MEMORY", 8)
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.append_command({"type": "old"}, [{"type": "before", "i": i} for i in range(3)])
    journal.close()
    journal = Journal(path)  # a restart: seq 1-3 wait in the file only
    rng = random.Random(16)

    def same_as_the_file() -> None:
        reader = Journal(path)  # its memory is empty: it reads everything from the file
        try:
            for after in range(journal.last_seq + 1):
                for limit in (1, 3, 100):
                    assert journal.pending(after, limit) == reader.pending(after, limit), (after, limit)
        finally:
            reader.close()

    most_waiting = 0
    for step in range(60):
        journal.append_command({"type": "c", "step": step}, [{"type": "e", "n": n} for n in range(rng.randint(0, 3))])
        waiting = [seq for seq, _ in journal.pending(0, -1)]
        most_waiting = max(most_waiting, len(waiting))
        if step == 20:  # a delivery that fails (the disk): nothing leaves the outbox, in memory either
            assert waiting
            failing = sqlite3.connect(str(path), timeout=0)
            failing.execute("BEGIN IMMEDIATE")
            journal._db.execute("PRAGMA busy_timeout=0")
            with pytest.raises(JournalError):
                journal.mark_delivered(waiting)
            failing.rollback()
            failing.close()
        elif waiting and step % 4 == 3:
            journal.mark_delivered(rng.sample(waiting, rng.randint(1, len(waiting) // 2 + 1)))
        same_as_the_file()
    assert most_waiting > 8, "more events waited than memory keeps"
    assert journal.pending(0, -1), "the test left some events undelivered"
    assert len(journal._unsent) <= 8


def test_reopen_continues_numbering_and_keeps_outbox_and_commands(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.append_command({"type": "new_game", "seed": 3}, [{"type": "a"}])
    journal.append_command({"type": "hit", "player": "ann"}, [{"type": "b"}])
    journal.mark_delivered([1])
    journal.append_note({"type": "ejection_state", "state": {"press": 7}})
    journal.close()
    again = Journal(path)
    assert again.last_seq == 2
    assert list(again.commands()) == [{"seed": 3, "type": "new_game"}, {"player": "ann", "type": "hit"}]
    assert [s for s, _ in again.pending()] == [2]
    assert again.last_note("ejection_state") == {"type": "ejection_state", "state": {"press": 7}}
    assert again.append_events([{"type": "c"}])[0]["seq"] == 3


def test_commands_upto_position_stops_there(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    for i in range(4):
        journal.append_command({"type": "c", "i": i}, [{"type": "e"}])
    # entries: c0 e c1 e c2 e c3 e -> position 5 is the third command
    assert [c["i"] for c in journal.commands(upto_pos=5)] == [0, 1, 2]


def test_failed_append_leaves_nothing_behind(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    journal.append_command({"type": "ok"}, [{"type": "a"}])
    try:
        journal.append_command({"type": "bad"}, [{"type": "b"}, {"type": "c", "x": {1, 2}}])  # a set is not JSON
    except ValueError:  # StrictJSONError
        pass
    else:  # pragma: no cover - the append must fail
        raise AssertionError("a non-JSON event must make the append fail")
    assert [k for _, k, _, _ in journal.entries()] == ["command", "event"]
    assert journal.last_seq == 1
    assert journal.append_events([{"type": "d"}])[0]["seq"] == 2


def _write_forever(path: str, ready: multiprocessing.synchronize.Event) -> None:
    journal = Journal(Path(path))
    ready.set()
    i = 0
    while True:
        journal.append_command({"type": "c", "i": i}, [{"type": "e", "i": i}, {"type": "f", "i": i}])
        i += 1


def test_sigkill_mid_writing_leaves_whole_transactions_only(tmp_path: Path) -> None:
    """A process killed while appending leaves complete command+events groups and a gap-free seq."""
    path = tmp_path / "j.sqlite3"
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    proc = ctx.Process(target=_write_forever, args=(str(path), ready))
    proc.start()
    assert ready.wait(10)
    for _ in range(1000):  # bounded: wait until the writer has committed a few dozen groups
        if len(Journal(path).entries()) >= 45:
            break
        time.sleep(0.01)
    assert proc.pid is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(5)
    journal = Journal(path)
    entries = journal.entries()
    assert len(entries) % 3 == 0 and len(entries) >= 45
    seqs = [seq for _, kind, seq, _ in entries if kind == "event"]
    assert seqs == list(range(1, len(seqs) + 1))
    for index in range(0, len(entries), 3):
        group = entries[index : index + 3]
        assert [k for _, k, _, _ in group] == ["command", "event", "event"]
        assert {body["i"] for *_, body in group} == {index // 3}


def test_a_full_disk_is_named_as_the_cause_and_nothing_half_written_stays(tmp_path: Path) -> None:
    """SQLITE_FULL (here: the database may not grow past ``max_page_count``) rolls SQLite's transaction back by
    itself; the journal must not then hide the cause behind "cannot rollback - no transaction is active"."""
    journal = Journal(tmp_path / "j.sqlite3")
    journal.append_command({"type": "ok"}, [{"type": "a"}])
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages + 2}")
    big = {"type": "big", "blob": "x" * 20_000}
    with pytest.raises(JournalError) as failure:
        for _ in range(20):  # bounded: the third or so append no longer fits
            journal.append_command({"type": "c"}, [big])
    message = str(failure.value)
    assert message.startswith("The journal's disk is full;"), message
    assert "rollback" not in message.lower()
    assert message.count(". ") == 0 and message.endswith(".")  # one sentence
    kept = journal.last_seq
    assert [e["seq"] for e in journal.events()] == list(range(1, kept + 1))  # nothing half-written
    with pytest.raises(JournalError, match="disk is full"):
        journal.append_events([big])
    journal._db.execute("PRAGMA max_page_count = 1073741823")  # space again
    assert journal.append_events([{"type": "d"}])[0]["seq"] == kept + 1


def test_last_event_of_finds_the_newest_and_reads_past_a_row_it_cannot_parse(tmp_path: Path) -> None:
    """The emergency stop's state is restored with this on every start: a damaged or older row (``NaN``, which
    SQLite 3.40's ``json_extract`` refuses for the whole query) must not stop it, and an event whose nested object
    spells the type must not count."""
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.append_events([{"type": "launcher_disabled", "by": "ann"}])
    journal.append_events([{"type": "note_about", "inner": {"type": "launcher_enabled"}}])
    with sqlite3.connect(path) as db:  # what an older writer could leave: not strict JSON
        db.execute(
            "INSERT INTO journal (kind, ts, body) VALUES ('event', 0, ?)", ('{"type":"launcher_enabled","x":NaN}',)
        )
    found = Journal(path).last_event_of(("launcher_disabled", "launcher_enabled"))
    assert found is not None and found["type"] == "launcher_disabled" and found["by"] == "ann"
    assert Journal(path).last_event_of(("launcher_enabled",)) is None
