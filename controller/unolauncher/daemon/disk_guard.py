"""New games only while the journal's disk has room: a client cannot fill the SD card the rest of the Pi needs.

Legitimate ``new_game``s (~27 KiB of journal each, ~4 MB/s) once filled 24 MiB in 5 s; afterwards every command, the
emergency stop included, got ``journal_error``. This wraps the table's ``prepare`` hook: a ``new_game`` is refused
with ``disk_low`` while the state directory's filesystem has less than ``table.journal_min_free_mb`` free, or the
journal is over ``table.journal_max_mb``. Everything else goes on: the current game's moves, the emergency stop,
queries (they need a few KiB at most, and the margin leaves them room).

Thread: the table's worker, as the hook it wraps.

Example::

    >>> from pathlib import Path
    >>> guard = DiskGuard(lambda command: command, Path("."), min_free_mb=0, max_journal_mb=0)
    >>> guard({"type": "new_game"})["type"]
    'new_game'
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from unolauncher.daemon.interfaces import CommandRefused

MB = 1024 * 1024


class DiskGuard:
    """``prepare`` with the disk check in front of ``new_game`` (0 turns a limit off)."""

    def __init__(
        self, prepare: Callable[[dict[str, Any]], dict[str, Any]], state_dir: Path, min_free_mb: int,
        max_journal_mb: int, journal_name: str = "journal.sqlite3",
    ) -> None:
        self.prepare = prepare
        self.state_dir = state_dir
        self.min_free_mb = min_free_mb
        self.max_journal_mb = max_journal_mb
        self.journal_name = journal_name
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
            free = usage.free
            size = sum(p.stat().st_size for p in self.state_dir.glob(self.journal_name + "*"))
        except OSError:
            return None  # cannot tell: the journal's own write will say what is wrong
        # A tenth of a small disk at most (a 16 MiB test filesystem; a 64 MB minimum would refuse every game there).
        min_free = min(self.min_free_mb * MB, usage.total // 10)
        if min_free and free < min_free:
            return (
                f"No new game: the journal's disk has {free / MB:.1f} MB free, under its margin of "
                f"{min_free / MB:.1f} MB (table.journal_min_free_mb); free some space (export, then remove old games). "
                "The current game and the emergency stop still work."
            )
        if self.max_journal_mb and size > self.max_journal_mb * MB:
            return (
                f"No new game: the journal is {size // MB} MB, over table.journal_max_mb ({self.max_journal_mb} MB); "
                "lower table.journal_keep_days or move the journal aside. The current game and the emergency stop "
                "still work."
            )
        return None
