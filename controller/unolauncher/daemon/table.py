"""One table: referee + journal + launcher, fed by commands and button presses, feeding an output (MQTT).

Threads and who may touch what:

- the **worker** thread (one, started by :meth:`Table.start`) is the only one that writes commands and events to
  the journal, in the order they happened, and the only one that applies queued commands to the referee;
- the launcher's input thread (a GPIO edge) **never waits for the table** and never takes :attr:`Table.lock`.
  After every change of the referee the table publishes an immutable :class:`PressSnapshot` — who may hit now, the
  referee's next plan for them and the ``pressed`` command that will record it — by one reference swap. A press
  *claims* it (:meth:`Table.claim_press`) under a tiny press lock of the table's own: the snapshot is swapped for
  "claimed" and the claim appended to a queue of claims; the motor starts at once. A lid opening
  (:meth:`Table.on_lid_opened`) goes into the same queue, closing the snapshot (its plan counted presses from
  before the refill). The emergency stop is read without a lock. Launcher events go to the journal queue without a
  lock;
- **whoever changes the referee** (the worker applying a command, :meth:`Table.on_hit`, a rollback), under
  :attr:`Table.lock`, first closes the snapshot (press lock), applies the waiting claims as ``pressed`` /
  ``lid_opened`` commands in the order they came, then makes its own change, then publishes the next snapshot. So
  the referee sees every press exactly where it happened, with the plan it fired with (checked), journal order is
  the referee's order, and a replay of the journal gives every press the same plan; no press is claimed from stale
  state (a press on a closed or claimed snapshot is ``ignored_press``). :attr:`Table.lock` is held only for
  ``referee.handle()`` and what it publishes, never across a disk or network write, and never by the press path.
  The ejection model's state lives in the referee alone; nothing copies it;
- a finished run's hit is applied to the referee **at once** by the launcher's timer thread (:meth:`Table.on_hit`),
  so the next press is attributed from a referee that already counts it, however slow the disk (the press handler
  ignores presses until then); it is journalled by the worker right after, before anything about it is published;
- every change of the referee (appended under :attr:`Table.lock`, right after the change) and every launcher event
  (appended from any thread, without a lock) goes to one queue in the order it happened; the worker journals that
  queue in order (one transaction for whatever has gathered: group commit), then publishes. Journal order = the
  order the referee saw the commands; nothing is published before it is journalled;
- MQTT's network thread only queues raw payloads (:meth:`Table.submit_payload`); a ``disable`` (emergency stop)
  also stops the motor right there, before it is queued.

Example::

    table = Table(journal, Referee, output)
    table.restore()          # the referee from the journal: its last snapshot plus the commands after it
    table.start()
    table.submit_payload(b'{"id": 1, "type": "new_game", "ruleset": "attack", "players": ["a", "b"]}')
"""

from __future__ import annotations

import collections
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from unolauncher.bus.discovery import sensor_values
from unolauncher.daemon.commands import DAEMON_COMMANDS, check_daemon_command, decode_command, reply, unknown_player
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher
from unolauncher.launcher.press import PressClaim, Refusal
from unolauncher.progress import Progress
from unolauncher.store.journal import Journal, JournalError, UnreadableRow

log = logging.getLogger(__name__)

RESEND_LIMIT = 1000  # events per ``resend`` request
# Commands from MQTT waiting for the worker. A phone sends one at a time; only a misbehaving client gets near this.
# Beyond it a command is answered ``busy`` at once instead of queued: memory stays bounded during a flood, and paho's
# network thread never waits (it is the thread that answers).
MAX_QUEUED_COMMANDS = 256
# Messages handed to paho and not yet acknowledged by the broker (replies, state, events), as the bus counts them
# (TableBus.backlog). During a flood the replies pile up there faster than the broker acknowledges them (measured:
# 17,000 waiting, +50 MB): past this many, new commands are answered ``busy`` too, so that paho's queue stays bounded.
MAX_OUTGOING_BACKLOG = 1000
# The journal note holding a referee snapshot, written after each new game: a restart replays the commands after the
# last one (at most about one game) instead of every command the table ever took (20,000 replay in 0.15 s here, and
# a café table takes that many in a few weeks; a Pi Zero is ~10x slower).
SNAPSHOT_NOTE = "referee_snapshot"
# The journal note holding the ejection preset chosen for the next game (the ``preset`` command: Home Assistant's
# select), so that the choice survives a restart.
PRESET_NOTE = "next_preset"
# Journal retention (``table.journal_keep_days``) is applied at start-up and after a new game, at most this often.
PRUNE_INTERVAL_S = 3600.0
# The emergency stop's events: journalled, so a restart comes back disabled if it went down disabled.
ENABLE_EVENTS = ("launcher_disabled", "launcher_enabled")
MAX_BY_LENGTH = 64  # the optional "by" of disable/enable: who pressed it ("dashboard", "home assistant", a name)


class RefereeLike(Protocol):
    def handle(self, command: dict[str, Any]) -> list[dict[str, Any]]: ...

    def public_state(self) -> dict[str, Any]: ...

    def legal_moves(self, player: str) -> list[dict[str, Any]]: ...

    def playable(self, player: str) -> list[str]: ...

    def hitter(self) -> str | None: ...

    def commitment(self) -> str | None: ...

    def next_fire_plan(self, player: str | None, secret: str | None = None) -> FirePlan | None: ...

    def to_json(self) -> dict[str, Any]: ...


class RefereeType(Protocol):
    """What makes referees (``Referee`` itself): a fresh one, or one from a :meth:`RefereeLike.to_json` snapshot."""

    def __call__(self) -> RefereeLike: ...

    def from_json(self, data: dict[str, Any]) -> RefereeLike: ...


class TableOutput(Protocol):
    """Where a table's results go (the MQTT bus in the daemon, a list in unit tests)."""

    def events_journalled(self) -> None: ...  # new rows in the outbox

    def reply(self, payload: dict[str, Any], qos: int = 1) -> None: ...

    def backlog(self) -> int: ...  # messages handed to the transport and not yet acknowledged

    def state(self, public_state: dict[str, Any]) -> None: ...

    def launcher_status(self, status: dict[str, Any]) -> None: ...

    def press(self, press: dict[str, Any]) -> None: ...

    def sensors(self, values: dict[str, Any]) -> None: ...

    def resend(self, events: list[dict[str, Any]]) -> None: ...


class VirtualControls(Protocol):
    """What the daemon-level ``press`` / ``lid`` / ``load`` commands need from the virtual launcher."""

    def press_button(self) -> None: ...

    def open_lid(self) -> None: ...

    def close_lid(self) -> None: ...

    def load(self, cards: int) -> None: ...


_STOP = object()
_JOURNAL = object()  # wakes the worker: records are waiting to be journalled

# Two hand-offs on the press -> event path, each followed by a short step aside so that the woken thread gets the GIL
# at once instead of waiting behind the one that woke it: the launcher thread after queuing a press event (the worker
# starts the journal write: 0.21 -> 0.11 ms, measured), and the worker after handing the event to MQTT (paho's
# network thread writes it instead of waiting behind the retained launcher status and sensors: 0.55 -> 0.25 ms).
# The motor is already on and presses come at human rates: 0.3 ms of a launcher thread per press costs nothing.
HANDOFF_YIELD_S = 0.0003


class CommandRefused(Exception):
    """Raised by the table's ``prepare`` hook: the daemon refuses this command before the referee sees it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class PressSnapshot:
    """What the next press may claim, published by the table after every change of its referee (one reference
    swap): who it counts for and the plan the referee will record for it, and the ``pressed`` command that records
    it (with the free-play secret when no launcher commitment is open). Never changed: a claim replaces it.

    Example::

        PressSnapshot(PressClaim("ann", FirePlan(fire=True, cards=2, run_ms=420)), {"type": "pressed", "player": "ann"})
    """

    claim: PressClaim
    command: dict[str, Any]


@dataclass
class _Record:
    """Something to journal: an applied command with its events, or launcher/daemon events alone."""

    command: dict[str, Any] | None
    events: list[dict[str, Any]]
    public: dict[str, Any] | None = None  # the referee's public state right after the command, if it can change it
    origin: str = "worker"  # "worker" (a command from the queue), "hit" (applied by on_hit), "press", "launcher"
    seq: int = 0  # the journal's last seq once written
    error: Exception | None = None
    # A press claimed but not yet applied to the referee: the journal waits for it (see _settle_locked).
    pending: bool = False
    plan: FirePlan | None = None  # a press's: the plan it fired with, which the referee must record


class Table:
    """The table's state machine around the pure referee (see the module docstring for the threading rules)."""

    def __init__(
        self,
        journal: Journal,
        referee_factory: RefereeType,
        output: TableOutput,
        launcher: Launcher | None = None,
        virtual: VirtualControls | None = None,
        prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        next_preset: str = "classic",
        presets: tuple[str, ...] = (),
        diagnostics_s: float | None = None,
        keep_days: float = 0,
    ) -> None:
        self.journal = journal
        self.referee_factory = referee_factory
        self.referee = referee_factory()
        self.output = output
        self.launcher = launcher
        self.virtual = virtual
        # Fills in what the daemon adds (a new_game's seed, launcher secrets) before the referee sees a command, or
        # refuses it (CommandRefused): see Daemon._prepare_command.
        self.prepare = prepare
        self.next_preset = next_preset  # the ejection preset a new_game without one gets (see the preset command)
        self._preset_chosen = False  # next_preset came from a preset command (a journal note), not the configuration
        self.presets = presets  # the presets the preset command accepts
        # The worker refreshes the slow-moving sensors (the outbox backlog) when it has been idle this long; they
        # are not recomputed per command, where a count of events still in flight would only flicker.
        self.diagnostics_s = diagnostics_s
        self._outbox_backlog = 0
        self.lock = threading.Lock()
        self.last_cards_out: int | None = None
        self._last_launcher: dict[str, Any] = {}
        self._last_sensors: dict[str, Any] = {}
        self._queue: queue.Queue[Any] = queue.Queue()
        self.max_queued_commands = MAX_QUEUED_COMMANDS
        self._queued_commands = 0  # "payload" items in the queue, guarded by _queued_lock
        self._queued_lock = threading.Lock()
        self.busy_refusals = 0
        # In the order things happened. deque.append/popleft are atomic: launcher events are appended without a
        # lock; referee changes under self.lock (so that a rollback can take all of them at once).
        self._unjournalled: collections.deque[_Record] = collections.deque()
        self._worker: threading.Thread | None = None
        self._working = Progress()  # the worker's current item, for health()
        self._snapshot_due = False  # a new game was journalled; snapshot the referee at the next quiet moment
        self.keep_days = keep_days  # journal retention in days; 0 keeps everything
        self._pruned_at: float | None = None  # monotonic time of the last prune
        self._enabled = True  # the emergency stop is off (journalled: launcher_disabled / launcher_enabled)
        self._enabled_journalled = True  # the last value the journal holds (the referee snapshot note records it)
        # The press path's own lock, held only to swap the snapshot and queue a claim (never across anything slow;
        # taken inside self.lock by the referee's changers, never the other way round).
        self._press_lock = threading.Lock()
        self._press_snapshot: PressSnapshot | None = None  # None: claimed, or closed while the referee changes
        self._claims: collections.deque[_Record] = collections.deque()  # claimed, not yet applied (in order)
        with self._changing():  # the first snapshot, for the fresh referee
            pass

    # -- start-up -----------------------------------------------------------------------------------------------

    def restore(self) -> int:
        """Rebuild the referee from the journal's accepted commands, and the emergency stop from its events; return
        how many commands were re-applied. A launcher that went down disabled comes back disabled."""
        referee, count = self._replayed()
        enabled = self._restored_enabled()
        self._enabled = self._enabled_journalled = enabled
        if self.launcher is not None:
            self.launcher.set_enabled(enabled)
        with self._changing():
            self.referee = referee
        chosen = self.journal.last_note(PRESET_NOTE)
        if chosen is not None and chosen.get("preset") in self.presets:
            self.next_preset = chosen["preset"]
            self._preset_chosen = True
        self.prune_journal()
        return count

    def _restored_enabled(self) -> bool:
        """Whether the launcher was enabled at the end of the journal: the last snapshot note says (default yes),
        then any disable/enable event after it (a bounded scan: at most about one game)."""
        found = self.journal.last_note_at(SNAPSHOT_NOTE)
        pos, enabled = (found[0], found[1].get("launcher_enabled") is not False) if found else (0, True)
        last = self.journal.last_event_of(ENABLE_EVENTS, after_pos=pos)
        return enabled if last is None else last["type"] == "launcher_enabled"

    def _replayed(self) -> tuple[RefereeLike, int]:
        """The referee the journal describes — its last good snapshot fed the accepted commands journalled after it
        (all of them if there is none) — and how many commands that replayed.

        Data never stops this: a command row that cannot be read (or that makes the referee raise) is set aside with
        everything after it (:meth:`Journal.quarantine_from`, one log line), and the referee is the one of the last
        good point. A snapshot that cannot be used gives way to the one before it.
        """
        referee, after_pos = self._last_snapshot()
        count = 0
        try:
            for pos, command in self.journal.commands_at(after_pos=after_pos):
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
                set_aside = self.journal.quarantine_from(bad.pos, bad.reason)
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
            return self._replayed()  # the rows set aside are not read again: this replays up to the good point
        return referee, count

    def _last_snapshot(self) -> tuple[RefereeLike, int]:
        """The referee of the journal's last usable snapshot and the snapshot's position; a fresh referee and 0
        without one (every command is then replayed, which gives the same referee). Snapshots are tried newest first
        down to the oldest, which is where a pruned journal starts."""
        for pos, note in self.journal.notes_newest_first(SNAPSHOT_NOTE):
            try:
                return self.referee_factory.from_json(note["referee"]), pos
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("the referee snapshot at journal position %d cannot be used (%s); trying an older one",
                            pos, exc)
        return self.referee_factory(), 0

    def _snapshot(self) -> None:
        """Journal the referee as it stands (worker only), if it holds exactly what the journal holds: with records
        still waiting (a hit applied meanwhile) it waits for the next batch. The note goes after every command the
        snapshot contains and before any it does not, since only this thread journals."""
        with self.lock:
            if self._unjournalled:
                return
            snapshot = self.referee.to_json()
        note = {"type": SNAPSHOT_NOTE, "referee": snapshot, "launcher_enabled": self._enabled_journalled}
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
        try:
            removed = self.journal.prune(time.time() - self.keep_days * 86400, "new_game", SNAPSHOT_NOTE)
        except Exception as exc:  # not fatal: the journal only stays bigger until the next try
            log.warning("could not prune the journal: %s", exc)
            return
        if removed["entries"] or removed["snapshots"]:
            log.info(
                "journal retention (%s days): %d entries and %d old snapshot(s) removed",
                self.keep_days,
                removed["entries"],
                removed["snapshots"],
            )
        if removed["entries"] and self._preset_chosen and self.journal.last_note(PRESET_NOTE) is None:
            # The preset chosen for the next game was older than the horizon: it still holds, so it is written again.
            try:
                self.journal.append_note({"type": PRESET_NOTE, "preset": self.next_preset})
            except Exception as exc:
                log.warning("could not keep the next game's preset in the journal: %s", exc)

    def start(self) -> None:
        worker = threading.Thread(target=self._work, name="table-worker", daemon=True)
        worker.start()
        self._worker = worker  # only once started: health() reads it from another thread

    def stop(self, timeout: float = 5.0) -> None:
        self._queue.put(_STOP)
        if self._worker:
            self._worker.join(timeout)

    def health(self, now: float, deadline_s: float) -> list[str]:
        """What keeps the worker from making progress (empty when nothing does): it died, or one item (a command,
        a journal write) has taken longer than ``deadline_s``. ``now`` is ``time.monotonic()``."""
        if self._worker is not None and not self._worker.is_alive():
            return ["the table worker died"]
        stuck = self._working.stuck_for(now)
        if stuck > deadline_s:
            return [f"the table worker has been busy with one item for {stuck:.1f} s (journal or referee stuck?)"]
        return []

    @property
    def enabled(self) -> bool:
        """The launcher may fire (the emergency stop is off)."""
        return self._enabled

    def idle(self) -> bool:
        return self._queue.unfinished_tasks == 0

    # -- inputs (any thread) ------------------------------------------------------------------------------------

    def submit_payload(self, payload: bytes) -> None:
        """A raw ``cmd`` payload from MQTT (paho's thread): queued for the worker, or answered ``busy`` when
        :attr:`max_queued_commands` are already waiting. Never blocks.

        A ``disable`` stops the motor here and now, before it waits in the queue behind anything (the worker
        journals it, publishes the change and replies in turn); it is never refused as ``busy``.
        """
        emergency = b"disable" in payload and self._emergency_stop(payload)
        with self._queued_lock:
            busy = not emergency and (
                self._queued_commands >= self.max_queued_commands or self.output.backlog() >= MAX_OUTGOING_BACKLOG
            )
            if not busy:
                self._queued_commands += 1
        if not busy:
            self._queue.put(("payload", payload))
            return
        self.busy_refusals += 1
        command_id = decode_command(payload).id  # bounded work: decode_command refuses payloads over 64 KiB unread
        # QoS 0: a busy answer is advice to retry, and a flood of them must not queue up in paho in turn.
        self.output.reply(
            reply(command_id, False, "busy", "The table has too many commands waiting; send this one again shortly."),
            qos=0,
        )

    def _emergency_stop(self, payload: bytes) -> bool:
        """If ``payload`` is a valid ``disable`` command: launcher disabled and presses refused now. Any thread."""
        command = decode_command(payload).command
        if command is None or command.get("type") != "disable" or check_daemon_command(command) is not None:
            return False
        self._apply_enabled(False)
        return True

    def _apply_enabled(self, enabled: bool) -> None:
        """The emergency stop's effect: presses refused (read without a lock) and the launcher (motor off at once)."""
        self._enabled = enabled
        if self.launcher is not None:
            self.launcher.set_enabled(enabled)

    def submit_command(self, command: dict[str, Any], command_id: str | int | None = None) -> None:
        self._queue.put(("command", command, command_id))

    def republish(self) -> None:
        """Publish the retained topics again (after a reconnect: the broker may have lost them)."""
        self._queue.put(("republish",))

    def hitter(self) -> str | None:
        """Who a press would be attributed to now (tests, diagnostics; presses go through :meth:`claim_press`)."""
        with self.lock:
            return self.referee.hitter()

    def claim_press(self, lockout: bool) -> PressClaim | Refusal | Literal["ignored"] | None:
        """A button press (launcher thread): who it counts for and the plan to fire, from the published
        :class:`PressSnapshot`; ``None`` when nobody may hit and ``lockout`` is on; ``"disabled"`` while the
        emergency stop is on; ``"ignored"`` when the snapshot is claimed already or closed (the referee is changing
        at this instant). Never takes :attr:`lock` (it may be held for as long as it likes): one swap under the press
        lock, and the claim waits in a queue until the next change of the referee applies it as a ``pressed``
        command — the worker's very next turn (:meth:`press_started` wakes it), or the press's own hit.

        The plan is the referee's next one: nothing can change the referee before it has applied this claim, so it
        records exactly this plan, and a replay of the journal gives this press the same plan again.
        """
        if not self._enabled:
            return "disabled"
        with self._press_lock:
            snapshot = self._press_snapshot
            if snapshot is None:
                return "ignored"
            claim = snapshot.claim
            if claim.player is None and lockout:
                return None
            self._press_snapshot = None
            record = _Record(snapshot.command, [], origin="press", pending=True, plan=claim.plan)
            self._claims.append(record)
            self._unjournalled.append(record)  # its place in the journal: where the press happened
        return claim

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """Around every change of the referee (any thread but the press path): under :attr:`lock`, the claims made so
        far are applied first, in order (:meth:`_settle_locked`), then the caller's change; then the next snapshot
        is published (:meth:`_publish_locked`). Records of the change are appended to the journal queue inside."""
        with self.lock:
            self._settle_locked()
            try:
                yield
            finally:
                self._publish_locked()

    def _settle_locked(self) -> None:
        """Close the press snapshot and apply every waiting claim to the referee, in the order they came (caller
        holds :attr:`lock`). A press's ``pressed`` records the plan it fired with; should the referee record another
        one (a bug: the snapshot was stale), that is logged as an error."""
        with self._press_lock:
            self._press_snapshot = None
            claims = list(self._claims)
            self._claims.clear()
        for record in claims:
            command = record.command
            assert command is not None
            events = self.referee.handle(command)
            rejected = not events or events[0].get("type") == "rejected"
            if record.plan is None:  # a lid opening: journalled where the referee takes it (nothing to record with no
                if not rejected:  # launcher commitment open)
                    record.events = events
                    self._unjournalled.append(record)
                continue
            if rejected:  # the referee refusing its own launcher's press: a bug
                log.error("the referee refused a press that was claimed: %s", events)
                record.command, record.events = None, []
            else:
                record.events = events
                if events[-1].get("plan") != record.plan.to_json():
                    log.error("a press fired %s but the referee recorded %s", record.plan, events[-1].get("plan"))
            record.pending = False

    def _publish_locked(self) -> None:
        """The next press's snapshot from the referee as it now stands (caller holds :attr:`lock`, and has settled
        the claims): who may hit, their next plan (computed now, off the press path) and the ``pressed`` command.
        With no launcher commitment open such a press opens free play: its secret is drawn now. Left closed when a
        lid opening came in meanwhile: the plan would not count it; the change that applies it publishes."""
        try:
            referee = self.referee
            player = referee.hitter()
            command: dict[str, Any] = {"type": "pressed", "player": player}
            plan = referee.next_fire_plan(player)
            if plan is None:
                command["secret"] = secrets.token_hex(32)
                plan = referee.next_fire_plan(player, command["secret"])
            snapshot = None if plan is None else PressSnapshot(PressClaim(player, plan), command)
        except Exception:  # the referee promises never to raise; if it does, presses are ignored until it is fixed
            log.exception("could not plan the next press")
            snapshot = None
        with self._press_lock:
            if not self._claims:
                self._press_snapshot = snapshot

    def press_started(self) -> None:
        """After the motor is on (launcher thread): the worker applies the claim and journals it. The short step
        aside lets the worker take the GIL at once (see :data:`HANDOFF_YIELD_S`)."""
        self._queue.put(_JOURNAL)
        time.sleep(HANDOFF_YIELD_S)

    def on_lid_opened(self) -> None:
        """The lid opened (a launcher thread — the serial backend's reader): a refill, which restarts the sequence
        count. Like a press it never takes :attr:`lock`: it closes the press snapshot (whose plan counted presses
        from before the refill) and queues a ``lid_opened`` command, which the worker applies and journals next
        (nothing is recorded when no launcher commitment is open). Unlike a press it enters the journal queue only
        when applied: a command the worker is applying at this instant comes before it, in the referee as in the
        journal."""
        with self._press_lock:
            self._press_snapshot = None
            self._claims.append(_Record({"type": "lid_opened"}, [], origin="launcher"))
        self._queue.put(_JOURNAL)

    def on_hit(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        """A press's run finished (launcher thread): the hit goes to the referee now, the journal right after.

        A planned fire that brought no card out because the run failed (a fault, a lost co-processor link, the lid
        opened, an empty magazine, a jam) is not a hit: ``hit_failed``, and the hit stays owed. Cards the sensor
        did count still count; a planned click (no fire) is a legal 0-card hit.
        """
        self.last_cards_out = result.cards_out
        with self._changing():  # the press's own claim first, if the worker has not applied it yet
            self._hit_locked(player, plan, result)
        self._queue.put(_JOURNAL)

    def _hit_locked(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        if plan.fire and result.cards_out == 0 and result.outcome != "ok":
            failed: dict[str, Any] = {
                "type": "hit_failed",
                "player": player,
                "reason": result.outcome,
                "message": f"The launcher's run ended without a card ({result.detail or result.outcome}); "
                + ("press again." if player else "nothing was owed."),
            }
            self._unjournalled.append(_Record(None, [failed], origin="launcher"))
        elif player is None:
            # Lockout off and nobody owed a hit: the launcher fired, but there is nobody to give the cards to.
            self._unjournalled.append(
                _Record(None, [{"type": "unattributed_hit", "cards": result.cards_out}], origin="launcher")
            )
        else:
            command = {"type": "hit", "player": player, "cards": result.cards_out}
            try:
                events = self.referee.handle(command)
            except Exception as exc:  # the referee promises never to raise; if it does, refuse, don't die
                log.exception("referee raised on %s", command)
                self._rebuild_referee_locked()
                events = [{"type": "rejected", "code": "internal_error", "message": f"The referee failed: {exc}."}]
            if events and events[0].get("type") == "rejected":
                # The cards are out physically; record that the referee could not take them (e.g. an undo).
                code, message = events[0].get("code", "rejected"), events[0].get("message", "Refused.")
                log.warning("hit by %s with %d card(s) refused: %s", player, result.cards_out, message)
                refused = {"type": "hit_refused", "player": player, "cards": result.cards_out}
                record = _Record(None, [{**refused, "code": code, "message": message}], origin="launcher")
            else:
                record = _Record(command, events, public=self.referee.public_state(), origin="hit")
            self._unjournalled.append(record)

    def on_uno_button(self) -> None:
        """The launcher's UNO button (launcher thread): an ``uno`` call for the player who is exposed, if any."""
        self._queue.put(("uno_button",))

    def on_launcher_event(self, event: dict[str, Any]) -> None:
        """A launcher-level event (fired, jam, ignored_press, lid, ...) from the launcher's threads.

        Takes no lock: the GPIO input thread calls this, and a lid edge behind it must not wait for the table.
        """
        self._unjournalled.append(_Record(None, [event], origin="launcher"))
        self._queue.put(_JOURNAL)

    # -- the worker ---------------------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self.diagnostics_s)
            except queue.Empty:
                self._refresh_diagnostics()
                continue
            if isinstance(item, tuple) and item[0] == "payload":
                with self._queued_lock:
                    self._queued_commands -= 1
            try:
                with self._working.working():
                    self._journal_pending()  # what the launcher reported first: a press's event waits for nothing
                    if item is _STOP:
                        return
                    if item is not _JOURNAL:
                        self._dispatch(item)
            except Exception:
                # One bad item must not end the table: log it and carry on with the next.
                log.exception("error while handling %r", item[0] if isinstance(item, tuple) else item)
            finally:
                self._queue.task_done()

    def _dispatch(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "payload":
            decoded = decode_command(item[1])
            if decoded.error:
                code, message = decoded.error
                self.output.reply(reply(decoded.id, False, code, message))
            else:
                assert decoded.command is not None
                self._command(decoded.command, decoded.id)
        elif kind == "command":
            self._command(item[1], item[2])
        elif kind == "uno_button":
            self._uno_button()
        elif kind == "republish":
            self._last_launcher, self._last_sensors = {}, {}
            self._outbox_backlog = self.journal.outbox_size()
            snapshot = self.snapshot()
            self.output.state(snapshot)
            self._publish_sensors(snapshot)

    def _command(self, command: dict[str, Any], command_id: str | int | None) -> None:
        """Apply one command and send its one reply, whatever happens on the way."""
        try:
            if command["type"] in DAEMON_COMMANDS:
                answer = self._daemon_command(command, command_id)
            else:
                ok, code, message, seq = self.apply(command)
                answer = reply(command_id, ok, code, message, seq=seq)
        except Exception as exc:  # a bug: still exactly one reply (apply() has put the referee back already)
            log.exception("error while handling %s", command.get("type"))
            message = f"The table failed on this command ({type(exc).__name__})."
            answer = reply(command_id, False, "internal_error", message)
        self.output.reply(answer)

    def apply(self, command: dict[str, Any]) -> tuple[bool, str, str, int]:
        """Hand one command to the referee; journal and publish it if accepted. Worker thread only.

        All or nothing: a refused command changes nothing; an accepted one is journalled before anything is
        published, and if the journal write fails the referee goes back to what the journal holds; if the referee
        raises (it promises not to), it is rebuilt from the journal.
        """
        if self.prepare is not None:
            try:
                command = self.prepare(command)
            except CommandRefused as refusal:
                return False, refusal.code, refusal.message, self.journal.last_seq
        with self._changing():
            try:
                events = self.referee.handle(command)
                rejected = bool(events) and events[0].get("type") == "rejected"
                record = None if rejected else _Record(command, events, public=self.referee.public_state())
            except Exception as exc:  # the referee promises never to raise; if it does, refuse and restore it
                log.exception("referee raised on %s; rebuilding it from the journal", command.get("type"))
                self._rebuild_referee_locked()
                message = f"The referee failed on this command ({type(exc).__name__})."
                return False, "internal_error", message, self.journal.last_seq
            if record is None:
                code, message = str(events[0].get("code", "rejected")), str(events[0].get("message", "Refused."))
                return False, code, message, self.journal.last_seq
            self._unjournalled.append(record)
        self._journal_pending()
        error = record.error
        if error is not None:
            message = (
                str(error) if isinstance(error, JournalError) else f"The table could not record this command ({error})."
            )
            return False, "journal_error", message, self.journal.last_seq
        return True, "ok", f"Accepted; {len(events)} event(s).", record.seq

    def _rebuild_referee_locked(self) -> None:
        """The referee again from the journal, plus what was applied and is still waiting to be journalled (a hit
        from the launcher thread). Caller holds :attr:`lock`."""
        referee = self._replayed()[0]
        for record in self._unjournalled:
            if record.command is not None and not record.pending:  # (a claim not applied yet stays so)
                referee.handle(record.command)
        self.referee = referee

    def _journal_pending(self) -> None:
        """Journal every waiting record in order (one transaction), then publish what they changed. Worker only.
        Claims (presses, lid openings) are applied to the referee first."""
        if self._claims:
            with self._changing():
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
            log.exception("error while publishing %d journalled record(s); republishing the retained state", len(batch))
            self.republish()

    def _journalled(self, batch: list[_Record], written: list[list[dict[str, Any]]]) -> None:
        """Publish what a journalled batch changed, and what follows from it (dispensing, a snapshot)."""
        self.output.events_journalled()  # hand the new events to MQTT first: this is the press -> event path
        if any(r.origin == "press" for r in batch):
            time.sleep(HANDOFF_YIELD_S)
        seq = self.journal.last_seq - sum(len(w) for w in written)
        latest: _Record | None = None
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
            self._publish_sensors(latest.public)
        elif launcher_changed:  # with a command, _publish_sensors above has published the launcher status already
            self._publish_launcher()
        for record in batch:
            if record.command is not None:
                if record.command.get("type") == "new_game":
                    self._snapshot_due = True
                for event in record.events:
                    if event.get("type") == "dispense":
                        self._dispense(event)
            for event in record.events:
                if event.get("type") in ENABLE_EVENTS:
                    self._enabled_journalled = event["type"] == "launcher_enabled"
        if self._snapshot_due:
            self._snapshot()

    def _drain(self) -> list[_Record]:
        """Everything waiting to be journalled, in order, up to the first claim the referee has not applied yet (the
        worker is the only consumer). Claims that had nothing to record are left out."""
        batch = []
        pending = self._unjournalled
        while pending and not pending[0].pending:
            record = pending.popleft()
            if record.command is not None or record.events:
                batch.append(record)
        return batch

    def _journal_failed(self, batch: list[_Record], exc: Exception) -> None:
        """Not journalled = did not happen: the referee goes back to what the journal says.

        The journal is read outside :attr:`lock` (only this thread writes it, so it cannot change meanwhile): a
        failing disk may make that read slow, and nothing that takes the lock — a run's hit on the launcher's
        timer thread — should wait for it.
        """
        log.error("could not journal %d record(s): %s; rolling the referee back to the journal", len(batch), exc)
        referee = self._replayed()[0]
        with self._changing():
            batch = batch + self._drain()  # applied to the referee after these: they go too
            self.referee = referee
        for record in batch:
            record.error = exc
            if record.origin == "hit" and record.command is not None:
                log.warning(
                    "hit by %s with %s card(s) lost: %s", record.command.get("player"), record.command.get("cards"), exc
                )

    def _uno_button(self) -> None:
        """The exposed player (one card left, UNO not called yet) calls UNO; with nobody exposed the press is only
        recorded as ``uno_button``. Decided on the worker, against the referee as the queue has brought it."""
        with self.lock:
            exposed = self.referee.public_state().get("uno_exposed")
        if isinstance(exposed, str):
            ok, code, message, _ = self.apply({"type": "uno", "player": exposed})
            if ok:
                return
            log.info("UNO button: uno for %s refused (%s): %s", exposed, code, message)
        with self.lock:
            self._unjournalled.append(_Record(None, [{"type": "uno_button"}], origin="launcher"))
        self._journal_pending()

    def _dispense(self, event: dict[str, Any]) -> None:
        """``mario-kart``/``classic``: a launcher with a card-exit sensor serves as the stock (counted draw).

        Without a sensor the players draw by hand, as the rules say. The referee has already dealt the cards; this
        only moves them physically, and reports what came out as a ``dispensed`` event.
        """
        if self.launcher is None or not self.launcher.status().has_sensor:
            return
        player, count = event.get("player"), int(event.get("count", 0))

        def done(result: FireResult) -> None:
            self.on_launcher_event(
                {
                    "type": "dispensed",
                    "player": player,
                    "cards": result.cards_out,
                    "wanted": count,
                    "outcome": result.outcome,
                }
            )

        if count > 0 and not self.launcher.fire(FirePlan(fire=True, cards=count, run_ms=400 + 150 * count), done):
            why = "was busy" if self._enabled else "is disabled"
            self.on_launcher_event(
                {
                    "type": "dispense_skipped",
                    "player": player,
                    "wanted": count,
                    "message": f"The launcher {why}; draw by hand.",
                }
            )

    # -- daemon-level commands ----------------------------------------------------------------------------------

    def _daemon_command(self, command: dict[str, Any], command_id: str | int | None) -> dict[str, Any]:
        kind = command["type"]
        refused = check_daemon_command(command)
        if refused is not None:
            return reply(command_id, False, *refused)
        if kind == "status":
            with self.lock:
                public = self.referee.public_state()
            data = {
                "state": public,
                "seq": self.journal.last_seq,
                "outbox": self.journal.outbox_size(),
                "launcher": self.launcher.status().to_json() if self.launcher else None,
            }
            return reply(command_id, True, "ok", "Status attached.", data=data)
        if kind == "moves":  # a query like status (not journalled): the dashboard greys what the referee would refuse
            player = command.get("player")
            with self.lock:
                players = self.referee.public_state()["players"]
                if not isinstance(player, str) or player not in players:
                    return reply(command_id, False, *unknown_player(player, players))
                moves, playable = self.referee.legal_moves(player), self.referee.playable(player)
                data = {"player": player, "seq": self.journal.last_seq, "moves": moves, "cards": playable}
            return reply(command_id, True, "ok", f"{len(moves)} legal move(s) attached.", data=data)
        if kind == "resend":
            start = command.get("from") or 1
            events = self.journal.events(start, RESEND_LIMIT)
            self.output.resend(events)
            return reply(command_id, True, "ok", f"Re-sent {len(events)} event(s) from seq {start}.")
        if kind in ("disable", "enable"):
            return self._enable_command(command, command_id)
        if kind == "preset":
            return self._preset(command, command_id)
        if self.virtual is None:
            return reply(command_id, False, "not_virtual", f"{kind!r} only works with the virtual launcher.")
        if kind == "press":
            self.virtual.press_button()
            return reply(command_id, True, "ok", "Button pressed.")
        if kind == "lid":
            is_open = command.get("open")
            if is_open is None:
                return reply(command_id, False, "missing_field", 'lid needs "open": true or false.')
            self.virtual.open_lid() if is_open else self.virtual.close_lid()
            return reply(command_id, True, "ok", "Lid opened." if is_open else "Lid closed.")
        # load
        cards = command.get("cards")
        if cards is None:
            return reply(command_id, False, "missing_field", 'load needs "cards": an integer 0-200.')
        self.virtual.load(cards)
        self._publish_launcher()
        return reply(command_id, True, "ok", f"Loaded {cards} card(s).")

    def _enable_command(self, command: dict[str, Any], command_id: str | int | None) -> dict[str, Any]:
        """``disable`` / ``enable``, the emergency stop: journalled (``launcher_disabled`` / ``launcher_enabled``),
        so a restart keeps it. Disabling acts first and journals after (it acted already if it came over MQTT);
        enabling journals first and acts only once that succeeded."""
        error = _by_error(command)
        if error is not None:
            return reply(command_id, False, "bad_field", error)
        enabled = command["type"] == "enable"
        word = "enabled" if enabled else "disabled"
        if not enabled:
            self._apply_enabled(False)
        if enabled == self._enabled_journalled:
            self._apply_enabled(enabled)
            return reply(command_id, True, "ok", f"The launcher is already {word}.")
        by = command.get("by")
        event: dict[str, Any] = {"type": f"launcher_{word}", **({"by": by} if by is not None else {})}
        record = _Record(None, [event], origin="launcher")
        self._unjournalled.append(record)
        self._journal_pending()
        if record.error is not None:
            state = "disabled now, but" if not enabled else "still disabled:"
            message = f"The launcher is {state} this could not be recorded ({record.error})."
            return reply(command_id, False, "journal_error", message)
        if enabled:
            self._apply_enabled(True)
            self._publish_launcher()
        return reply(command_id, True, "ok", f"The launcher is {word}.", seq=record.seq)

    def _preset(self, command: dict[str, Any], command_id: str | int | None) -> dict[str, Any]:
        """``{"type": "preset", "preset": "brutal"}``: the ejection preset of the next game that does not name one
        (Home Assistant's select). Journalled as a note, so it survives a restart; the running game keeps its own."""
        preset = command.get("preset")
        if not isinstance(preset, str) or preset not in self.presets:
            return reply(command_id, False, "bad_field", f'preset needs "preset": one of {", ".join(self.presets)}.')
        self.journal.append_note({"type": PRESET_NOTE, "preset": preset})
        self.next_preset = preset
        self._preset_chosen = True
        self._publish_launcher()
        return reply(command_id, True, "ok", f"The next game will use the {preset} preset.")

    # -- derived outputs ----------------------------------------------------------------------------------------

    def _publish_launcher(self) -> None:
        with self.lock:
            public = self.referee.public_state()
        self._publish_sensors(public)

    def _refresh_diagnostics(self) -> None:
        """The worker was idle for ``diagnostics_s``: publish the outbox backlog if it changed (worker only)."""
        backlog = self.journal.outbox_size()
        if backlog != self._outbox_backlog:
            self._outbox_backlog = backlog
            self._publish_launcher()

    def _publish_sensors(self, public: dict[str, Any]) -> None:
        """Retained launcher status and Home Assistant sensors, each only when it changed (they are retained)."""
        launcher = self.launcher.status().to_json() if self.launcher else {}
        if launcher and launcher != self._last_launcher:
            self._last_launcher = launcher
            self.output.launcher_status(launcher)
        sensors = sensor_values(public, launcher, self.last_cards_out, self._outbox_backlog, self.next_preset)
        if sensors != self._last_sensors:
            self._last_sensors = sensors
            self.output.sensors(sensors)

    def snapshot(self) -> dict[str, Any]:
        """Public state plus the journal position (for ``status`` and the retained ``state`` topic)."""
        with self.lock:
            return {**self.referee.public_state(), "seq": self.journal.last_seq}


def _by_error(command: dict[str, Any]) -> str | None:
    """What is wrong with a ``disable``/``enable`` command's optional ``by`` (who pressed it), or ``None``."""
    by = command.get("by")
    if by is None or (isinstance(by, str) and 0 < len(by) <= MAX_BY_LENGTH):
        return None
    return f'{command["type"]} takes an optional "by": a name of 1-{MAX_BY_LENGTH} characters.'
