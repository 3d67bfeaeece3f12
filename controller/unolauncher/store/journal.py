"""The table's journal and outbox in one SQLite file (WAL).

Every accepted command, every event and every launcher note is appended here *before* anything else depends
on it. Two counters are gap-free:

- ``pos``: the journal position of every entry (commands, events, notes), in the order they happened;
- ``seq``: the event number published on MQTT (events only).

The outbox is the set of event ``seq`` numbers the broker has not acknowledged yet; the publisher drains it in
``seq`` order and deletes a row on PUBACK. The newest undelivered events this process committed are also kept in
memory (their bodies as written, at most :data:`UNSENT_IN_MEMORY`), so that handing a fresh event to MQTT right
after its commit reads nothing back from SQLite (the press → event path); older rows are read from the file. A
restart rebuilds the referee by re-applying the journalled commands (:meth:`Journal.commands`) and publishes
whatever is still in the outbox.

Bodies are written and read with the same strict codec (:mod:`unolauncher.strict_json`), never with SQLite's JSON
functions (whose acceptance of ``NaN`` and the like changed between SQLite versions), so a row written is a row that
reads back. A row that cannot be read all the same (written by an older version, or damaged) raises
:class:`UnreadableRow`; the daemon then sets it and everything after it aside with :meth:`Journal.quarantine_from`:
the rows stay in the file, listed in the ``quarantine`` table, and no later read returns them.

Example (not a doctest: writes an SQLite file)::

    journal = Journal(Path("/var/lib/unolauncher/journal.sqlite3"))
    events = journal.append_command({"type": "new_game", ...}, [{"type": "game_started"}])
    assert events[0]["seq"] == 1
    journal.mark_delivered([1])
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from unolauncher import strict_json
from unolauncher.errors import UnolauncherError
from unolauncher.store.limits import SeqExhausted, check_seq, stand_in, stand_in_body, too_large

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    pos  INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('command', 'event', 'note')),
    seq  INTEGER UNIQUE,
    ts   REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY);
"""
# Command and note rows set aside because they could not be read (see the module docstring): positions first_pos to
# last_pos. Events are never set aside: they are the published history.
QUARANTINE_SCHEMA = """
CREATE TABLE IF NOT EXISTS quarantine (
    first_pos INTEGER PRIMARY KEY,
    last_pos  INTEGER NOT NULL,
    ts        REAL NOT NULL,
    reason    TEXT NOT NULL
);
"""
# Undelivered event bodies kept in memory after their commit (see the module docstring): 100 events is one outbox
# window (bus.mqtt.WINDOW); a longer outage falls back to reading the file.
UNSENT_IN_MEMORY = 256
_NOT_QUARANTINED = "NOT EXISTS (SELECT 1 FROM quarantine q WHERE journal.pos BETWEEN q.first_pos AND q.last_pos)"


class JournalError(UnolauncherError, RuntimeError):
    """A journal write failed; the message is one sentence that names the cause (e.g. a full disk)."""


class UnreadableRow(UnolauncherError, ValueError):
    """A command or note row that is not strict JSON (an older version's, or damaged): ``pos`` and the reason."""

    def __init__(self, pos: int, reason: str) -> None:
        super().__init__(f"journal row {pos} cannot be read: {reason}")
        self.pos = pos
        self.reason = reason


def _read(pos: int, body: str) -> Any:
    try:
        return strict_json.loads(body)
    except strict_json.StrictJSONError as exc:
        raise UnreadableRow(pos, str(exc)) from None


def _write_error(exc: sqlite3.Error, path: Path) -> JournalError:
    """The sentence for a failed write: a full disk said plainly, anything else with SQLite's own words."""
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return JournalError(
            f"The journal's disk is full; free space on {path.parent} and the table goes on from its last "
            f"recorded move."
        )
    return JournalError(f"The journal could not be written ({exc}).")


def _type_needle(name: str) -> str:
    """``"type":"<name>"`` as the writer spells it (compact, keys sorted): found with SQLite's ``instr``, which works
    on any row, where ``json_extract`` fails the whole query at one row that is not strict JSON (SQLite 3.40). The
    commands' and notes' nested objects have no ``type`` key, and a quote inside a string is escaped, so only the
    row's own type matches."""
    return '"type":' + strict_json.dumps(name)


def _dumps(value: Any) -> str:
    return strict_json.dumps(value)  # compact, sorted keys; refuses what could not be read back


class Journal:
    """Append-only journal plus outbox. One instance per thread that writes (SQLite connections are not shared).

    Every commit is fsynced (``synchronous=FULL``; WAL + FULL costs one fsync of the WAL per transaction): an
    event is published only after its commit returned, so a power cut can never take back an event that a
    subscriber saw (``tests/reliability/test_power_cut.py`` cuts the power under a playing daemon to prove it).
    ``NORMAL`` is not offered: after a power cut it lost commits whose events were already published, and the
    restarted table gave their ``seq`` numbers to other events.

    Example (not a doctest: needs a journal file and a referee)::

        journal = Journal(path)
        journal.append_note({"type": "ejection_state", "state": {...}})
        for command in journal.commands():
            referee.handle(command)
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # check_same_thread=False + our own lock: the daemon's worker writes, the publisher reads and deletes.
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        # FULL before anything is written: the switch to WAL and the schema of a new journal are synced too (a
        # power cut right after the first start must not leave a file without its tables).
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._db.executescript(QUARANTINE_SCHEMA)
        row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
        self._last_seq = int(row[0])
        # seq -> body of the events committed by this process and still in the outbox, oldest first; every outbox
        # row with seq >= _unsent_from is among them (rows from before this process, or pushed out by the bound,
        # are read from the file). The same text as the row: what is published is exactly what was journalled.
        self._unsent: dict[int, str] = {}
        self._unsent_from = self._last_seq + 1

    # -- writing ------------------------------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the newest event (0 when there is none)."""
        return self._last_seq

    def append_command(self, command: dict[str, Any], events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append an accepted command and the events it produced in one transaction.

        Returns the events with ``seq`` and ``ts`` added (the form published on MQTT); they are in the outbox.
        """
        return self._write([(command, list(events))])[0]

    def append_events(self, events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append events that no command caused (launcher events: jam, ignored press, ...)."""
        return self._write([(None, list(events))])[0]

    def append_note(self, note: dict[str, Any]) -> None:
        """Append an internal record that is neither replayed nor published (e.g. ejection-model state)."""
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO journal (kind, ts, body) VALUES ('note', ?, ?)", (time.time(), _dumps(note))
                )
            except sqlite3.Error as exc:
                raise _write_error(exc, self.path) from exc

    def append_batch(
        self, entries: Iterable[tuple[dict[str, Any] | None, Iterable[dict[str, Any]]]]
    ) -> list[list[dict[str, Any]]]:
        """Append several ``(command or None, events)`` entries in order, in one transaction (group commit: one
        fsync for all of them). Returns each entry's events as published; all or nothing."""
        return self._write([(command, list(events)) for command, events in entries])

    def _write(self, entries: list[tuple[dict[str, Any] | None, list[dict[str, Any]]]]) -> list[list[dict[str, Any]]]:
        now = time.time()
        out: list[list[dict[str, Any]]] = []
        bodies: list[tuple[int, str]] = []
        with self._lock:
            seq = self._last_seq
            with self._transaction():
                for command, events in entries:
                    if command is not None:
                        self._db.execute(
                            "INSERT INTO journal (kind, ts, body) VALUES ('command', ?, ?)", (now, _dumps(command))
                        )
                    stamped: list[dict[str, Any]] = []
                    for event in events:
                        seq += 1
                        check_seq(seq)  # a forged journal at the end of the numbers: refused, nothing written
                        full = {**event, "seq": seq, "ts": round(now, 3)}
                        body = _dumps(full)
                        self._db.execute(
                            "INSERT INTO journal (kind, seq, ts, body) VALUES ('event', ?, ?, ?)", (seq, now, body)
                        )
                        self._db.execute("INSERT INTO outbox (seq) VALUES (?)", (seq,))
                        stamped.append(full)
                        bodies.append((seq, body))
                    out.append(stamped)
            self._last_seq = seq
            self._unsent.update(bodies)  # committed: from here on they are outbox rows
            while len(self._unsent) > UNSENT_IN_MEMORY:
                oldest = next(iter(self._unsent))
                del self._unsent[oldest]
                self._unsent_from = oldest + 1
        return out

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT; on any error roll back and report SQLite's cause in one sentence."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            yield
            self._db.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                raise _write_error(exc, self.path) from exc
            if isinstance(exc, SeqExhausted):
                raise JournalError(str(exc)) from exc
            raise

    def _rollback(self) -> None:
        # SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR, ...); a ROLLBACK
        # then fails with "no transaction is active", and that secondary error would hide the real cause.
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def mark_delivered(self, seqs: Iterable[int]) -> None:
        """Remove acknowledged events from the outbox."""
        rows = [(s,) for s in seqs]
        if not rows:
            return
        with self._lock:
            # One transaction, and no fsync of its own: losing a deletion in a power cut only means the event is
            # published once more (consumers drop a seq they have seen), while an fsync here would make the next
            # append wait. The next FULL commit makes it durable anyway.
            self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                with self._transaction():
                    self._db.executemany("DELETE FROM outbox WHERE seq = ?", rows)
            finally:
                self._db.execute("PRAGMA synchronous=FULL")
            for (seq,) in rows:  # only once the rows are gone: a failed delete keeps them pending, here and there
                self._unsent.pop(seq, None)

    def prune(self, before_ts: float, game_start: str, base_note: str) -> dict[str, int]:
        """Retention: delete whole games that began before ``before_ts``, and the snapshots no restart needs.

        A game begins at a command whose ``type`` is ``game_start``; ``base_note`` is the type of the notes a
        restart starts from (the referee snapshot written after each new game). The journal keeps everything from
        the oldest game that began at or after ``before_ts`` — the current game at least — provided a snapshot
        follows that game's start; between the first snapshot it keeps and the newest one, snapshots are dropped (a
        restart reads the newest; the first is where a full replay starts). Nothing is cut after an event that is
        still in the outbox. Returns ``{"entries": n, "snapshots": m}`` deleted. Freed pages are reused by later
        writes (no VACUUM: it would rewrite the whole file on the SD card).

        Example (not a doctest: needs a journal file)::

            journal.prune(time.time() - 30 * 86400, "new_game", "referee_snapshot")
        """
        nothing = {"entries": 0, "snapshots": 0}
        with self._lock:
            snapshots = [
                int(pos)
                for (pos,) in self._db.execute(
                    "SELECT pos FROM journal WHERE kind = 'note' AND instr(body, ?) > 0 ORDER BY pos",
                    (_type_needle(base_note),),
                )
            ]
            starts = self._db.execute(
                "SELECT pos, ts FROM journal WHERE kind = 'command' AND instr(body, ?) > 0 AND pos < ? ORDER BY pos",
                (_type_needle(game_start), snapshots[-1] if snapshots else 0),
            ).fetchall()
            if not starts:
                return nothing
            cut = next((int(pos) for pos, ts in starts if ts >= before_ts), int(starts[-1][0]))
            undelivered = self._db.execute(
                "SELECT MIN(j.pos) FROM outbox o JOIN journal j ON j.seq = o.seq"
            ).fetchone()[0]
            if undelivered is not None and undelivered < cut:
                earlier = [int(pos) for pos, _ in starts if pos <= undelivered]
                if not earlier:
                    return nothing
                cut = earlier[-1]
            first_kept = next(pos for pos in snapshots if pos > cut)
            with self._transaction():
                entries = self._db.execute("DELETE FROM journal WHERE pos < ?", (cut,)).rowcount
                dropped = self._db.execute(
                    "DELETE FROM journal WHERE kind = 'note' AND instr(body, ?) > 0 AND pos > ? AND pos < ?",
                    (_type_needle(base_note), first_kept, snapshots[-1]),
                ).rowcount
        return {"entries": entries, "snapshots": dropped}

    def prune_oldest_game(self, game_start: str, base_note: str) -> int:
        """Size retention's step: delete the journal's oldest *finished* game (up to the next ``game_start``
        command); returns how many entries went, 0 when nothing may go. The open game never goes (a game is finished
        only once another began), nor anything at or after an event the broker has not acknowledged, nor the last
        game before the newest ``base_note`` snapshot a restart starts from. Two short reads from the journal's start
        and one transaction: cheap on a journal of any length."""
        with self._lock:
            starts = self._db.execute(
                "SELECT pos FROM journal WHERE kind = 'command' AND instr(body, ?) > 0 ORDER BY pos LIMIT 2",
                (_type_needle(game_start),),
            ).fetchall()
            if len(starts) < 2:
                return 0
            cut = int(starts[1][0])
            blocked = self._db.execute(
                "SELECT (SELECT MIN(j.pos) FROM outbox o JOIN journal j ON j.seq = o.seq) < ? OR NOT EXISTS (SELECT 1 "
                "FROM journal WHERE pos > ? AND kind = 'note' AND instr(body, ?) > 0)",
                (cut, cut, _type_needle(base_note)),
            ).fetchone()[0]
            if blocked:
                return 0
            with self._transaction():
                return int(self._db.execute("DELETE FROM journal WHERE pos < ?", (cut,)).rowcount)

    def space(self) -> tuple[int, int]:
        """``(bytes in use, bytes free inside the file)``: freed pages are reused before the file grows."""
        with self._lock:
            page, count, free = (
                int(self._db.execute(f"PRAGMA {name}").fetchone()[0])
                for name in ("page_size", "page_count", "freelist_count")
            )
        return (count - free) * page, free * page

    def checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it (what a disk under its margin needs: the WAL otherwise keeps up
        to SQLite's 1,000-page autocheckpoint, ~4 MB, beside the file)."""
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def first_seq(self) -> int:
        """The ``seq`` of the oldest event still in the journal (retention removed those before it); 0 if none."""
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MIN(seq), 0) FROM journal").fetchone()[0])

    # -- reading ------------------------------------------------------------------------------------------------

    def commands(self, upto_pos: int | None = None, after_pos: int = 0) -> Iterator[dict[str, Any]]:
        """The accepted commands in journal order (optionally only those at positions in (``after_pos``,
        ``upto_pos``]); raises :class:`UnreadableRow` at a row that cannot be read."""
        for _, command in self.commands_at(upto_pos, after_pos):
            yield command

    def commands_at(self, upto_pos: int | None = None, after_pos: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """:meth:`commands` with each command's position; quarantined rows are left out."""
        limit = upto_pos if upto_pos is not None else 2**62
        with self._lock:
            rows = self._db.execute(
                "SELECT pos, body FROM journal WHERE kind = 'command' AND pos > ? AND pos <= ? AND "
                + _NOT_QUARANTINED
                + " ORDER BY pos",
                (after_pos, limit),
            ).fetchall()
        for pos, body in rows:
            yield int(pos), _read(int(pos), body)

    def entries(self) -> list[tuple[int, str, int | None, dict[str, Any]]]:
        """Every entry as ``(pos, kind, seq, body)`` in order (for tests, audits and the ``journal`` tools)."""
        with self._lock:
            rows = self._db.execute("SELECT pos, kind, seq, body FROM journal ORDER BY pos").fetchall()
        return [(int(p), str(k), None if s is None else int(s), _read(int(p), b)) for p, k, s, b in rows]

    def last_note(self, note_type: str) -> dict[str, Any] | None:
        """The newest readable note whose ``type`` is ``note_type``."""
        found = self.last_note_at(note_type)
        return found[1] if found is not None else None

    def last_note_at(self, note_type: str) -> tuple[int, dict[str, Any]] | None:
        """The newest readable note whose ``type`` is ``note_type``, with its position (``commands(after_pos=...)``
        then gives what came after it)."""
        return next(self.notes_newest_first(note_type), None)

    def notes_newest_first(self, note_type: str) -> Iterator[tuple[int, dict[str, Any]]]:
        """The notes whose ``type`` is ``note_type`` as ``(pos, note)``, newest first, walking the journal backwards
        from its end (a recent note is found at once). A note that cannot be read is skipped with one log line, so
        the caller gets the last good one."""
        needle = _type_needle(note_type)
        before = 2**62
        while True:
            with self._lock:  # one row per query: SQLite walks the primary key backwards and stops at the first
                row = self._db.execute(
                    "SELECT pos, body FROM journal WHERE kind = 'note' AND pos < ? AND instr(body, ?) > 0 AND "
                    + _NOT_QUARANTINED
                    + " ORDER BY pos DESC LIMIT 1",
                    (before, needle),
                ).fetchone()
            if row is None:
                return
            before = int(row[0])
            try:
                note = _read(before, row[1])
            except UnreadableRow as exc:
                log.warning("%s; skipping it", exc)
                continue
            if isinstance(note, dict) and note.get("type") == note_type:
                yield before, note

    def quarantine_from(self, pos: int, reason: str) -> int:
        """Set the command and note rows from ``pos`` to the journal's end aside (they stay in the file, listed in
        the ``quarantine`` table; no read returns them again). Returns how many such rows that was."""
        with self._lock, self._transaction():
            last = int(self._db.execute("SELECT COALESCE(MAX(pos), ?) FROM journal", (pos,)).fetchone()[0])
            self._db.execute(
                "INSERT OR REPLACE INTO quarantine (first_pos, last_pos, ts, reason) VALUES (?, ?, ?, ?)",
                (pos, last, time.time(), reason),
            )
            count = self._db.execute(
                "SELECT COUNT(*) FROM journal WHERE kind != 'event' AND pos BETWEEN ? AND ?", (pos, last)
            ).fetchone()[0]
        return int(count)

    def quarantined(self) -> list[tuple[int, int, str]]:
        """The ranges set aside, as ``(first_pos, last_pos, reason)``."""
        with self._lock:
            rows = self._db.execute("SELECT first_pos, last_pos, reason FROM quarantine ORDER BY first_pos").fetchall()
        return [(int(a), int(b), str(r)) for a, b, r in rows]

    def last_event_of(self, types: tuple[str, ...], after_pos: int = 0) -> dict[str, Any] | None:
        """The newest event whose ``type`` is one of ``types`` at a position after ``after_pos``, or ``None``.

        Walks back from the end of the journal, down to ``after_pos`` at most: give a recent position (the last
        snapshot note) to keep it short on a long journal.
        """
        # instr on the writer's spelling, not json_extract (see _type_needle); the parse confirms the row's own type
        # (an event's nested objects could spell it too) and skips a row that cannot be read.
        needles = " OR ".join("instr(body, ?) > 0" for _ in types)
        with self._lock:
            rows = self._db.execute(
                f"SELECT pos, body FROM journal WHERE pos > ? AND kind = 'event' AND ({needles}) ORDER BY pos DESC",
                (after_pos, *(_type_needle(name) for name in types)),
            ).fetchall()
        for pos, body in rows:
            try:
                event = _read(int(pos), body)
            except UnreadableRow as exc:
                log.warning("%s; skipped", exc)
                continue
            if isinstance(event, dict) and event.get("type") in types:
                return event
        return None

    def events(self, from_seq: int = 1, limit: int = 1000) -> list[dict[str, Any]]:
        """Events with ``seq >= from_seq`` in order (the ``resend`` command uses this); an event that cannot be read
        (an older version's) is left out with one log line."""
        with self._lock:
            rows = self._db.execute(
                "SELECT pos, seq, body FROM journal WHERE seq >= ? ORDER BY seq LIMIT ?", (from_seq, limit)
            ).fetchall()
        events = []
        for pos, seq, body in rows:
            try:
                events.append(stand_in(int(seq), body) if too_large(body) else _read(int(pos), body))
            except UnreadableRow as exc:
                log.warning("%s; not re-sent", exc)
        return events

    def pending(self, after_seq: int = 0, limit: int = 100) -> list[tuple[int, str]]:
        """Undelivered events with ``seq > after_seq`` as ``(seq, json text)``, oldest first.

        Fresh events come from memory (the bodies kept at their commit), older ones from the file: the same rows
        either way (``tests/store/test_journal.py`` compares both with a second connection's reading)."""
        with self._lock:
            if after_seq >= self._unsent_from - 1:
                fresh = ((seq, stand_in_body(seq, body)) for seq, body in self._unsent.items() if seq > after_seq)
                return list(itertools.islice(fresh, limit if limit >= 0 else None))  # LIMIT -1: no limit, as SQLite
            rows = self._db.execute(
                "SELECT j.seq, j.body FROM outbox o JOIN journal j ON j.seq = o.seq WHERE o.seq > ? "
                "ORDER BY o.seq LIMIT ?",
                (after_seq, limit),
            ).fetchall()
        return [(int(s), stand_in_body(int(s), str(b))) for s, b in rows]  # never a body the brokers cut

    def outbox_size(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
