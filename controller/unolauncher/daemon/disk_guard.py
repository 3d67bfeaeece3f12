"""New games only while the journal's disk has room: a client cannot fill the SD card the rest of the Pi needs.

Legitimate ``new_game``s alone can fill a small disk within seconds, and then every command, the emergency stop
included, gets ``journal_error`` (docs/reliability.md, "Figures behind the guards"). This wraps the table's ``prepare``
hook: a ``new_game`` is refused with ``disk_low`` while the state directory's filesystem has less than
``table.journal_min_free_mb`` free, or the journal is over ``table.journal_max_mb``. Everything else goes on: the
current game's moves, the emergency stop, queries (they need a few KiB at most, and the margin leaves them room).

Before that check, size retention (:class:`SizeRetention`) makes room: while the journal holds more than
``table.journal_budget_mb`` of data, or the disk is under its margin and the journal has less than :data:`ROOM` of
free pages to write into, its oldest *finished* games leave it, whole, oldest first (never the open game, never
anything from an event the broker has not acknowledged on). SQLite reuses the freed pages, so a journal kept under its
budget stops growing, and on a disk under its margin a new game goes into the pages an old one left: the table goes on
without taking space from the rest of the Pi. A ``journal_pruned`` note says what went; ``unolauncher verify`` and
``export`` name the first event that remains.

Thread: the table's worker, as the hook it wraps.

Example::

    >>> from pathlib import Path
    >>> guard = DiskGuard(lambda command: command, Path("."), min_free_mb=0, max_journal_mb=0)
    >>> guard({"type": "new_game"})["type"]
    'new_game'
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from unolauncher.daemon.interfaces import CommandRefused
from unolauncher.daemon.restore import SNAPSHOT_NOTE
from unolauncher.store.journal import Journal

log = logging.getLogger(__name__)

MB = 1024 * 1024
# Free pages the journal needs before a new game on a disk under its margin: about 5-10 games (a game keeps ~27-60
# KiB of journal), so one new game rarely has to prune more than one old one.
ROOM = 256 * 1024
# At most this many games leave per new game (one fsync each): a budget lowered by far shrinks the journal over the
# next games instead of stalling the table's worker at once.
MAX_GAMES_PER_CALL = 16
PRUNED_NOTE = "journal_pruned"


class SizeRetention:
    """Whole finished games leave the journal, oldest first, until it fits (see the module docstring).

    ``on_pruned`` runs after games went (the table writes the next game's preset again if its note went with them).

    Example (not a doctest: needs a journal file)::

        retention = SizeRetention(journal, budget_mb=256)
        retention.make_room(disk_short=False)  # -> {"games": 1, "entries": 412, "first_seq": 9031} or None
    """

    def __init__(self, journal: Journal, budget_mb: float, on_pruned: Callable[[], None] = lambda: None) -> None:
        self.journal = journal
        self.budget = int(budget_mb * MB)
        self.on_pruned = on_pruned

    def make_room(self, disk_short: bool) -> dict[str, Any] | None:
        """Prune until the journal is within its budget and, if ``disk_short``, has :data:`ROOM` to write into;
        returns what went (also journalled as a ``journal_pruned`` note and logged), ``None`` when nothing did."""
        games = entries = 0
        try:
            if disk_short:  # the WAL's space back to the disk first: the deletions below are written there too
                self.journal.checkpoint()
            live, reusable = self.journal.space()
            while games < MAX_GAMES_PER_CALL and (
                (self.budget and live > self.budget) or (disk_short and reusable < ROOM)
            ):
                removed = self.journal.prune_oldest_game("new_game", SNAPSHOT_NOTE)
                if not removed:
                    break  # only the open game, or unpublished events, are left
                games, entries = games + 1, entries + removed
                live, reusable = self.journal.space()
            if disk_short:  # the pruned pages go back into the file, and the WAL's space back to the disk
                self.journal.checkpoint()
        except Exception as exc:  # e.g. a disk too full even for the deletion's WAL: the checks after this decide
            log.warning("journal retention could not prune: %s", exc)
        if not games:
            return None
        why = "the disk is under its free-space margin" if disk_short else "the journal is over table.journal_budget_mb"
        done = {"games": games, "entries": entries, "first_seq": self.journal.first_seq(), "reason": why}
        log.warning(
            "journal retention: %d finished game(s) (%d entries) pruned because %s; the journal now starts at event "
            "seq %d and holds %.1f MB", games, entries, why, done["first_seq"], live / MB,
        )  # fmt: skip
        try:
            self.journal.append_note({"type": PRUNED_NOTE, **done})
        except Exception as exc:  # the games are gone either way; the log line says so
            log.warning("could not journal the pruning note: %s", exc)
        self.on_pruned()
        return done

    def has_room(self) -> bool:
        """Whether the journal has :data:`ROOM` of free pages to write a new game into."""
        try:
            return self.journal.space()[1] >= ROOM
        except Exception:
            return False

    def size(self) -> int:
        """The journal's data in bytes (pages in use; what retention keeps under the budget)."""
        try:
            return self.journal.space()[0]
        except Exception:
            return 0  # cannot tell: the journal's own write will say what is wrong


class DiskGuard:
    """``prepare`` with the disk check in front of ``new_game`` (0 turns a limit off)."""

    def __init__(
        self,
        prepare: Callable[[dict[str, Any]], dict[str, Any]],
        state_dir: Path,
        *,
        min_free_mb: int,
        max_journal_mb: int,
        journal_name: str = "journal.sqlite3",
        retention: SizeRetention | None = None,
    ) -> None:
        self.prepare = prepare
        self.state_dir = state_dir
        self.min_free_mb = min_free_mb
        self.max_journal_mb = max_journal_mb
        self.journal_name = journal_name
        self.retention = retention
        self.refused = 0

    def __call__(self, command: dict[str, Any]) -> dict[str, Any]:
        if command.get("type") == "new_game":
            problem = self.problem()
            if problem is not None:
                self.refused += 1
                raise CommandRefused("disk_low", problem)
        return self.prepare(command)

    def problem(self) -> str | None:
        """Why no new game may start now, in one sentence; None when there is room."""
        try:
            usage = shutil.disk_usage(self.state_dir)
            if self.retention is not None:  # data in use: the freed pages inside the file are the journal's room
                min_free = min(self.min_free_mb * MB, usage.total // 10)
                self.retention.make_room(bool(min_free) and usage.free < min_free)
                usage = shutil.disk_usage(self.state_dir)
                size = self.retention.size()
            else:
                size = sum(p.stat().st_size for p in self.state_dir.glob(self.journal_name + "*"))
            free = usage.free
        except OSError:
            return None  # cannot tell: the journal's own write will say what is wrong
        # A tenth of a small disk at most (a 16 MiB test filesystem; a 64 MB minimum would refuse every game there).
        min_free = min(self.min_free_mb * MB, usage.total // 10)
        if min_free and free < min_free and (self.retention is None or not self.retention.has_room()):
            nothing_left = "" if self.retention is None else ", and no finished game is left to prune"
            return (
                f"No new game: the journal's disk has {free / MB:.1f} MB free, under its margin of "
                f"{min_free / MB:.1f} MB (table.journal_min_free_mb){nothing_left}; free some space (export, then "
                "remove old games). The current game and the emergency stop still work."
            )
        if self.max_journal_mb and size > self.max_journal_mb * MB:
            return (
                f"No new game: the journal is {size // MB} MB, over table.journal_max_mb ({self.max_journal_mb} MB); "
                "lower table.journal_budget_mb or table.journal_keep_days, or move the journal aside. The current "
                "game and the emergency stop still work."
            )
        return None
