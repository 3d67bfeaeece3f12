"""The table from its journal: the referee replayed from its last snapshot, bad rows set aside, the emergency stop
as it was; and the housekeeping that keeps a restart short (snapshot notes, retention).

Threads: the **main thread at start-up** (``Table.restore``, before any other thread of the table runs), and the
**table's worker** when it rolls the referee back to the journal (a failed journal write, a referee that raised) and
after a new game (snapshot, retention). Only the worker writes the journal, so what it reads here cannot change
under it. Nothing here takes ``Table.lock``: a journal on a failing disk may be slow to read.

Example (not a doctest: needs a journal on disk)::

    referee, replayed = replay(journal, Referee)  # the last snapshot + the commands after it
    enabled = restored_enabled(journal)  # False if the table went down disabled
"""

from __future__ import annotations

import logging
import time

from unolauncher.daemon.emergency_stop import ENABLE_EVENTS
from unolauncher.daemon.interfaces import RefereeLike, RefereeType
from unolauncher.store.journal import Journal, UnreadableRow

log = logging.getLogger("unolauncher.daemon.table")  # the table's log, as before the split: same logger for one table

# The journal note holding a referee snapshot, written after each new game: a restart replays the commands after the
# last one (at most about one game) instead of every command the table ever took (20,000 replay in 0.15 s here, and
# a café table takes that many in a few weeks; a Pi Zero is ~10x slower).
SNAPSHOT_NOTE = "referee_snapshot"
# The journal note holding the ejection preset chosen for the next game (the ``preset`` command: Home Assistant's
# select), so that the choice survives a restart.
PRESET_NOTE = "next_preset"


def replay(journal: Journal, referee_factory: RefereeType) -> tuple[RefereeLike, int]:
    """The referee the journal describes — its last good snapshot fed the accepted commands journalled after it
    (all of them if there is none) — and how many commands that replayed.

    Data never stops this: a command row that cannot be read (or that makes the referee raise) is set aside with
    everything after it (:meth:`Journal.quarantine_from`, one log line), and the referee is the one of the last
    good point. A snapshot that cannot be used gives way to the one before it.
    """
    referee, after_pos = last_snapshot(journal, referee_factory)
    count = 0
    try:
        for pos, command in journal.commands_at(after_pos=after_pos):
            try:
                events = referee.handle(command)
            except Exception as exc:  # the referee promises never to raise; on replay that is a bad row too
                raise UnreadableRow(pos, f"the referee raised {type(exc).__name__} on it") from exc
            if events and events[0].get("type") == "rejected":
                # Same commands in the same order must give the same result; if not, the rules changed under us.
                log.error("journalled command %s was refused on replay: %s", command, events[0].get("message"))
            count += 1
    except UnreadableRow as bad:
        try:
            set_aside = journal.quarantine_from(bad.pos, bad.reason)
        except Exception as exc:
            log.error("%s; it could not be set aside (%s): the table goes on from the row before it", bad, exc)
            return referee, count
        log.error(
            "%s; it and the %d command/note row(s) after it are set aside (journal table 'quarantine'): "
            "the table goes on from the last good point, journal position %d",
            bad,
            set_aside - 1,
            bad.pos - 1,
        )
        return replay(journal, referee_factory)  # the rows set aside are not read again: up to the good point
    return referee, count


def last_snapshot(journal: Journal, referee_factory: RefereeType) -> tuple[RefereeLike, int]:
    """The referee of the journal's last usable snapshot and the snapshot's position; a fresh referee and 0
    without one (every command is then replayed, which gives the same referee). Snapshots are tried newest first
    down to the oldest, which is where a pruned journal starts."""
    for pos, note in journal.notes_newest_first(SNAPSHOT_NOTE):
        try:
            return referee_factory.from_json(note["referee"]), pos
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("the referee snapshot at journal position %d cannot be used (%s); trying an older one",
                        pos, exc)  # fmt: skip
    return referee_factory(), 0


def restored_enabled(journal: Journal) -> bool:
    """Whether the launcher was enabled at the end of the journal: the last snapshot note says (default yes),
    then any disable/enable event after it (a bounded scan: at most about one game)."""
    found = journal.last_note_at(SNAPSHOT_NOTE)
    pos, enabled = (found[0], found[1].get("launcher_enabled") is not False) if found else (0, True)
    last = journal.last_event_of(ENABLE_EVENTS, after_pos=pos)
    return enabled if last is None else last["type"] == "launcher_enabled"


def prune(journal: Journal, keep_days: float) -> int:
    """Journal retention: games that began more than ``keep_days`` ago leave the journal, and so do the snapshots no
    restart needs; returns how many entries went. A failure is logged, not raised (the journal only stays bigger
    until the next try)."""
    try:
        removed = journal.prune(time.time() - keep_days * 86400, "new_game", SNAPSHOT_NOTE)
    except Exception as exc:
        log.warning("could not prune the journal: %s", exc)
        return 0
    if removed["entries"] or removed["snapshots"]:
        log.info(
            "journal retention (%s days): %d entries and %d old snapshot(s) removed",
            keep_days,
            removed["entries"],
            removed["snapshots"],
        )
    return int(removed["entries"])
