"""The table's journalling: records journalled in the order they happened, one transaction for whatever has
gathered (group commit), then published; a rollback when the journal cannot take them; and what follows a journalled
batch (a dispense run, a referee snapshot note, retention).

Thread: the **table's worker** only — it is the journal's one writer, which is what keeps journal order the
referee's order and lets a rollback read the journal outside ``Table.lock``. A mixin of
:class:`~unolauncher.daemon.table.Table` (as the referee is composed of one mixin per concern): the state it uses is
the table's, declared below.

Example (not a doctest: needs a running table)::

    table.apply({"type": "hit", "player": "ann"})  # the worker: referee, then _journal_pending() -> one transaction
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from unolauncher.daemon.emergency_stop import ENABLE_EVENTS, EmergencyStop
from unolauncher.daemon.interfaces import PresetChoice, Record, RefereeLike, RefereeType, TableOutput
from unolauncher.daemon.press_gate import HANDOFF_YIELD_S, PressGate
from unolauncher.daemon.restore import PRESET_NOTE, SNAPSHOT_NOTE, prune, replay
from unolauncher.daemon.sensors import SensorPublisher
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher
from unolauncher.store.journal import Journal

log = logging.getLogger("unolauncher.daemon.table")  # the table's log, as before the split: same logger for one table

# Journal retention (``table.journal_keep_days``) is applied at start-up and after a new game, at most this often.
PRUNE_INTERVAL_S = 3600.0


class Journalling:
    """Worker-only journalling of a :class:`~unolauncher.daemon.table.Table` (see the module docstring)."""

    journal: Journal
    referee: RefereeLike
    referee_factory: RefereeType
    output: TableOutput
    launcher: Launcher | None
    lock: threading.Lock
    press: PressGate
    emergency: EmergencyStop
    sensors: SensorPublisher
    preset: PresetChoice
    keep_days: float
    _unjournalled: collections.deque[Record]
    _snapshot_due: bool
    _rebuild_due: bool
    _reopen_due: bool
    _pruned_at: float | None
    # Hears every journalled batch's events (the voice: docs/voice.md); must not block (it runs on the press path).
    on_journalled: Callable[[list[list[dict[str, Any]]]], None] | None = None

    def _changing(self, reopen: bool = True) -> AbstractContextManager[None]:
        raise NotImplementedError  # Table's: around every change of the referee, under its lock

    def _reopen_press(self) -> None:
        raise NotImplementedError  # Table's: the next press snapshot, if the worker left the gate closed

    def republish(self) -> None:
        raise NotImplementedError  # Table's: queue a republish of the retained topics

    def on_launcher_event(self, event: dict[str, Any]) -> None:
        raise NotImplementedError  # Table's: a launcher event into the journal queue (any thread)

    def _journal_now(self, record: Record) -> None:
        """Journal ``record`` now, after everything waiting before it (a daemon command's events)."""
        self._unjournalled.append(record)
        self._journal_pending()

    def _journal_pending(self) -> None:
        """Journal every waiting record in order (one transaction), then publish what they changed. Worker only.

        Claims (presses, lid openings) are applied to the referee first, but the next press is planned only once
        their events are handed to MQTT (:meth:`_journalled`), or on the way out whatever happens: planning takes
        0.2–0.3 ms that the press → event path does not wait for (docs/performance.md). Until then the press gate
        stays closed; the press that was just claimed keeps the press handler busy until its hit anyway.
        """
        try:
            if self.press.has_claims():
                with self._changing(reopen=False):
                    pass
            batch = self._drain()
            if not batch:
                return
            try:
                written = self.journal.append_batch((r.command, r.events) for r in batch)
            except Exception as exc:
                self._journal_failed(batch, exc)
                return
            try:
                self._journalled(batch, written)
            except Exception:  # journalled = happened; a failure to publish it must not lose the command's reply
                log.exception(
                    "error while publishing %d journalled record(s); republishing the retained state", len(batch)
                )
                self.republish()
        finally:
            self._reopen_press()  # never left closed: every way out of here plans the next press

    def _journalled(self, batch: list[Record], written: list[list[dict[str, Any]]]) -> None:
        """Publish what a journalled batch changed, and what follows from it (dispensing, a snapshot)."""
        self.output.events_journalled()  # hand the new events to MQTT first: this is the press -> event path
        if any(r.origin == "press" for r in batch):
            time.sleep(HANDOFF_YIELD_S)
            self._reopen_press()  # the event is on its way: now the next press's plan
        if self.on_journalled is not None:
            self.on_journalled(written)
        seq = self.journal.last_seq - sum(len(w) for w in written)
        latest: Record | None = None
        launcher_changed = False
        for record, stamped in zip(batch, written, strict=True):
            seq += len(stamped)
            record.seq = seq
            if record.public is not None:
                latest = record
            if record.origin != "worker":
                launcher_changed = True
            if record.origin == "press":
                press = record.events[-1]
                self.output.press({"player": press.get("player"), "index": press.get("index")})
        if latest is not None:
            assert latest.public is not None
            self.output.state({**latest.public, "seq": latest.seq})
            self.sensors.publish(latest.public)
        elif launcher_changed:  # with a command, sensors.publish above has published the launcher status already
            self.sensors.publish_launcher()
        for record in batch:
            if record.command is not None:
                if record.command.get("type") == "new_game":
                    self._snapshot_due = True
                for event in record.events:
                    if event.get("type") == "dispense":
                        self._dispense(event)
            for event in record.events:
                if event.get("type") in ENABLE_EVENTS:
                    self.emergency.journalled = event["type"] == "launcher_enabled"
        if self._snapshot_due:
            self._snapshot()

    def _drain(self) -> list[Record]:
        """Everything waiting to be journalled, in order, up to the first claim the referee has not applied yet (the
        worker is the only consumer). Claims that had nothing to record are left out."""
        batch = []
        pending = self._unjournalled
        while pending and not pending[0].pending:
            record = pending.popleft()
            if record.command is not None or record.events:
                batch.append(record)
        return batch

    def _journal_failed(self, batch: list[Record], exc: Exception) -> None:
        """Not journalled = did not happen: the referee goes back to what the journal says.

        The journal is read outside :attr:`lock` (only this thread writes it, so it cannot change meanwhile): a
        failing disk may make that read slow, and nothing that takes the lock — a run's hit on the launcher's
        timer thread — should wait for it.
        """
        log.error("could not journal %d record(s): %s; rolling the referee back to the journal", len(batch), exc)
        referee = replay(self.journal, self.referee_factory)[0]
        with self._changing():
            batch = batch + self._drain()  # applied to the referee after these: they go too
            self.referee = referee
            self._rebuild_due = False  # the journal's referee replaces one that raised, too
        for record in batch:
            record.error = exc
            if record.origin == "hit" and record.command is not None:
                log.warning(
                    "hit by %s with %s card(s) lost: %s", record.command.get("player"), record.command.get("cards"), exc
                )

    def _snapshot(self) -> None:
        """Journal the referee as it stands (worker only), if it holds exactly what the journal holds: with records
        still waiting (a hit applied meanwhile) or a rebuild due, it waits for the next batch. The note goes after
        every command the snapshot contains and before any it does not, since only this thread journals."""
        with self.lock:
            if self._unjournalled or self._rebuild_due:
                return
            snapshot = self.referee.to_json()
        note = {"type": SNAPSHOT_NOTE, "referee": snapshot, "launcher_enabled": self.emergency.journalled}
        try:
            self.journal.append_note(note)
        except Exception as exc:  # not fatal: a restart replays from the previous snapshot, only more slowly
            log.warning("could not journal a referee snapshot: %s", exc)
            return
        self._snapshot_due = False
        self.prune_journal()

    def prune_journal(self) -> None:
        """Apply ``keep_days`` (worker or start-up only): games that began before the horizon leave the journal,
        and so do the snapshots no restart needs. At most once per :data:`PRUNE_INTERVAL_S`."""
        now = time.monotonic()
        if self.keep_days <= 0 or (self._pruned_at is not None and now - self._pruned_at < PRUNE_INTERVAL_S):
            return
        self._pruned_at = now
        if prune(self.journal, self.keep_days):
            self.keep_preset_note()

    def keep_preset_note(self) -> None:
        """After retention (worker only): the preset chosen for the next game still holds; if its note was older
        than what retention kept, it is written again."""
        if self.preset.chosen and self.journal.last_note(PRESET_NOTE) is None:
            # The preset chosen for the next game was older than the horizon: it still holds, so it is written again.
            try:
                self.journal.append_note({"type": PRESET_NOTE, "preset": self.preset.name})
            except Exception as exc:
                log.warning("could not keep the next game's preset in the journal: %s", exc)

    def _dispense(self, event: dict[str, Any]) -> None:
        """``mario-kart``/``classic``: a launcher with a card-exit sensor serves as the stock (counted draw).

        Without a sensor the players draw by hand, as the rules say. The referee has already dealt the cards; this
        only moves them physically, and reports what came out as a ``dispensed`` event.
        """
        if self.launcher is None or not self.launcher.status().has_sensor:
            return
        player, count = event.get("player"), int(event.get("count", 0))

        def done(result: FireResult) -> None:
            self.sensors.publish_motor()
            dispensed = {"player": player, "cards": result.cards_out, "wanted": count, "outcome": result.outcome}
            self.on_launcher_event({"type": "dispensed", **dispensed})

        if count > 0 and not self.launcher.fire(FirePlan(fire=True, cards=count, run_ms=400 + 150 * count), done):
            why = "was busy" if self.emergency.enabled else "is disabled"
            message = f"The launcher {why}; draw by hand."
            self.on_launcher_event({"type": "dispense_skipped", "player": player, "wanted": count, "message": message})
        else:
            self.sensors.publish_motor()
