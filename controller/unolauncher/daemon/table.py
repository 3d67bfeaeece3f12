"""One table: referee + journal + launcher, fed by commands and button presses, feeding an output (MQTT).

This module is the table's **worker** and the referee's keeper; the other parts each live in a module of their own,
which says which thread runs it: the press path's claims (:mod:`~unolauncher.daemon.press_gate`), start-up restore
and replay (:mod:`~unolauncher.daemon.restore`), the daemon's own commands (:mod:`~unolauncher.daemon.handlers`),
the retained launcher status and Home Assistant sensors (:mod:`~unolauncher.daemon.sensors`), the emergency stop
(:mod:`~unolauncher.daemon.emergency_stop`).

Threads and who may touch what:

- the **worker** thread (one, started by :meth:`Table.start`) is the only one that writes commands and events to
  the journal, in the order they happened, and the only one that applies queued commands to the referee. Its inbox
  (:meth:`Table.submit_payload`, :meth:`~Table.submit_command`, :meth:`~Table.on_launcher_event`,
  :meth:`~Table.on_uno_button`, :meth:`~Table.republish`) takes items from any thread and never blocks;
- **whoever changes the referee** — the worker applying a command, :meth:`Table.on_hit` on the launcher's timer
  thread, a rollback — does it under :attr:`Table.lock`, inside :meth:`Table._changing`: the press gate's waiting
  claims are applied first, then the change, then the next press snapshot is published (by the worker applying
  claims it is about to journal, only once their events are handed to MQTT: planning is not on the press → event
  path; the gate stays closed meanwhile, and every way out of the worker's step reopens it). :attr:`Table.lock` is held
  only for ``referee.handle()`` and what it publishes, never across a disk or network write, and never by the press
  path (which claims from the gate's snapshot: see :mod:`~unolauncher.daemon.press_gate`). The ejection model's
  state lives in the referee alone; nothing copies it;
- a finished run's hit is applied to the referee **at once** by the launcher's timer thread (:meth:`Table.on_hit`),
  so the next press is attributed from a referee that already counts it, however slow the disk (the press handler
  ignores presses until then); it is journalled by the worker right after, before anything about it is published;
- every change of the referee (appended under :attr:`Table.lock`, right after the change) and every launcher event
  (appended from any thread, without a lock) goes to one queue in the order it happened; the worker journals that
  queue in order (one transaction for whatever has gathered: group commit), then publishes. Journal order = the
  order the referee saw the commands; nothing is published before it is journalled;
- MQTT's network thread queues raw payloads (:meth:`Table.submit_payload`); a ``disable`` (emergency stop) also stops
  the motor right there, before it is queued. A query (``status``, ``moves``: they change and journal nothing) is
  answered on that thread at once when the worker has nothing queued or in hand, nothing waits to be journalled and
  :attr:`Table.lock` is free — so its reply cannot overtake the reply to an earlier command, and it tells the same state
  and ``seq`` the worker would. That saves a thread hand-off and lets the reply leave ahead of the command's PUBACK
  (docs/performance.md); otherwise it is queued.

Example (not a doctest: needs a journal on disk and an output)::

    table = Table(journal, Referee, output)
    table.restore()  # the referee from the journal: its last snapshot plus the commands after it
    table.start()
    table.submit_payload(b'{"id": 1, "type": "new_game", "ruleset": "attack", "players": ["a", "b"]}')
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from unolauncher.daemon.commands import DAEMON_COMMANDS, QUERIES, QUERY_MARKERS, decode_command, reply, unknown_player
from unolauncher.daemon.emergency_stop import EmergencyStop
from unolauncher.daemon.failed_fire import failed_fire_record
from unolauncher.daemon.handlers import DaemonCommands
from unolauncher.daemon.interfaces import (
    CommandRefused,
    PresetChoice,
    Record,
    RefereeType,
    TableOutput,
    VirtualControls,
)
from unolauncher.daemon.journalling import Journalling
from unolauncher.daemon.press_gate import PressGate
from unolauncher.daemon.restore import PRESET_NOTE, replay, restored_enabled
from unolauncher.daemon.sensors import SensorPublisher
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher
from unolauncher.progress import Progress
from unolauncher.store.journal import Journal, JournalError

log = logging.getLogger(__name__)

# Commands from MQTT waiting for the worker. A phone sends one at a time; only a misbehaving client gets near this.
# Beyond it a command is answered ``busy`` at once instead of queued: memory stays bounded during a flood, and paho's
# network thread never waits (it is the thread that answers).
MAX_QUEUED_COMMANDS = 256
# Messages handed to paho and not yet acknowledged by the broker (replies, state, events), as the bus counts them
# (TableBus.backlog). During a flood the replies pile up there faster than the broker acknowledges them (measured:
# 17,000 waiting, +50 MB): past this many, new commands are answered ``busy`` too, so that paho's queue stays bounded.
MAX_OUTGOING_BACKLOG = 1000
_STOP = object()
_JOURNAL = object()  # wakes the worker: records are waiting to be journalled (or the referee to be rebuilt)


class Table(Journalling):
    """The table's state machine around the pure referee (see the module docstring for the threading rules).

    Its parts: :attr:`press` (the press path's claims), :attr:`emergency` (the emergency stop), :attr:`sensors`,
    :attr:`commands` (the daemon's own commands), :attr:`preset` (the next game's ejection preset).
    """

    refusal_params: dict[str, Any] | None = None  # the last refused command's params, for its reply

    def __init__(
        self,
        journal: Journal,
        referee_factory: RefereeType,
        output: TableOutput,
        *,
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
        # Fills in what the daemon adds (a new_game's seed, launcher secrets) before the referee sees a command, or
        # refuses it (CommandRefused): see Daemon._prepare_command.
        self.prepare = prepare
        self.diagnostics_s = diagnostics_s  # idle this long, the worker refreshes the slow sensors (outbox backlog)
        self.lock = threading.Lock()
        self._queue: queue.Queue[Any] = queue.Queue()
        self.max_queued_commands = MAX_QUEUED_COMMANDS
        self._queued_commands = 0  # "payload" items in the queue, guarded by _queued_lock
        self._queued_lock = threading.Lock()
        self.busy_refusals = 0
        # In the order things happened. deque.append/popleft are atomic: launcher events are appended without a
        # lock; referee changes under self.lock (so that a rollback can take all of them at once).
        self._unjournalled: collections.deque[Record] = collections.deque()
        self._worker: threading.Thread | None = None
        self._working = Progress()  # the worker's current item, for health()
        self._snapshot_due = False  # a new game was journalled; snapshot the referee at the next quiet moment
        # The referee raised (it promises never to): the worker rebuilds it from the journal on its next turn, and
        # until then no press is planned from it (the press snapshot stays closed). Set under self.lock.
        self._rebuild_due = False
        # The worker applied press claims and has not planned the next press yet (the gate is closed until it does:
        # see _changing's reopen). Set and cleared under self.lock.
        self._reopen_due = False
        self.keep_days = keep_days  # journal retention in days; 0 keeps everything
        self._pruned_at: float | None = None  # monotonic time of the last prune
        self.preset = PresetChoice(next_preset, presets)
        self.emergency = EmergencyStop(launcher)
        self.sensors = SensorPublisher(output, launcher, journal, self.public_state, self.preset)
        self.commands = DaemonCommands(
            journal=journal, output=output, launcher=launcher, virtual=virtual, emergency=self.emergency,
            sensors=self.sensors, preset=self.preset, public_state=self.public_state, record=self._journal_now,
            moves=self.moves,
        )  # fmt: skip
        self.press = PressGate(self._unjournalled, self.emergency, wake=lambda: self._queue.put(_JOURNAL))
        with self._changing():  # the first snapshot, for the fresh referee
            pass

    # -- start-up and life --------------------------------------------------------------------------------------

    def restore(self) -> int:
        """Rebuild the referee from the journal's accepted commands, and the emergency stop from its events; return
        how many commands were re-applied. A launcher that went down disabled comes back disabled. Main thread,
        before :meth:`start`."""
        referee, count = replay(self.journal, self.referee_factory)
        enabled = restored_enabled(self.journal)
        self.emergency.journalled = enabled
        self.emergency.apply(enabled)
        with self._changing():
            self.referee = referee
        chosen = self.journal.last_note(PRESET_NOTE)
        if chosen is not None and chosen.get("preset") in self.preset.offered:
            self.preset.name = chosen["preset"]
            self.preset.chosen = True
        self.prune_journal()
        return count

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

    def idle(self) -> bool:
        return self._queue.unfinished_tasks == 0

    # -- reading the referee (any thread) -----------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        with self.lock:
            return self.referee.public_state()

    def moves(self, player: Any) -> dict[str, Any] | tuple[str, str]:
        """The ``moves`` query's answer: ``player``'s legal moves and playable cards now, with the journal position
        they reflect; or ``(code, message)`` when nobody of that name is at the table."""
        with self.lock:
            players = self.referee.public_state()["players"]
            if not isinstance(player, str) or player not in players:
                return unknown_player(player, players)
            moves, playable = self.referee.legal_moves(player), self.referee.playable(player)
            return {"player": player, "seq": self.journal.last_seq, "moves": moves, "cards": playable}

    def snapshot(self) -> dict[str, Any]:
        """Public state plus the journal position (for ``status`` and the retained ``state`` topic)."""
        with self.lock:
            return {**self.referee.public_state(), "seq": self.journal.last_seq}

    def hitter(self) -> str | None:
        """Who a press would be attributed to now (tests, diagnostics; presses go through :attr:`press`)."""
        with self.lock:
            return self.referee.hitter()

    # -- the worker's inbox (any thread, never blocks) ----------------------------------------------------------

    def submit_payload(self, payload: bytes) -> None:
        """A raw ``cmd`` payload from MQTT (paho's thread): queued for the worker, or answered ``busy`` when
        :attr:`max_queued_commands` are already waiting.

        A ``disable`` stops the motor here and now, before it waits in the queue behind anything (the worker
        journals it, publishes the change and replies in turn); never ``busy``, and merged (EmergencyStop.merge).
        """
        emergency = b"disable" in payload and self.emergency.stop_now_if_disable(payload)
        if not emergency and self._answered_now(payload):
            return
        with self._queued_lock:
            busy = not emergency and (
                self._queued_commands >= self.max_queued_commands or self.output.backlog() >= MAX_OUTGOING_BACKLOG
            )
            merged = not busy and self.emergency.merge(emergency)
            if not busy and not merged:
                self._queued_commands += 1
                self._queue.put(("payload", payload))  # under the lock: the queue's order is merge()'s
        if not busy:  # a merged disable is answered at QoS 0, as busy: a flood of these must not queue in paho
            if merged:
                self.output.reply(reply(decode_command(payload).id, True, "ok", "The launcher is disabled."), qos=0)
            return
        self.busy_refusals += 1  # QoS 0: a busy answer is advice to retry; a flood of them must not queue up in paho
        message = "The table has too many commands waiting; send this one again shortly."
        # Bounded work: decode_command refuses payloads over 64 KiB unread.
        self.output.reply(reply(decode_command(payload).id, False, "busy", message), qos=0)

    def _answered_now(self, payload: bytes) -> bool:
        """Answer a query (``status``, ``moves``) here, on MQTT's thread, if nothing the worker has or will do could
        come before it; False (and nothing done) otherwise: the payload then takes the queue like any other.

        The conditions, checked under :attr:`lock` taken without waiting (this thread never waits for the table):
        nothing in the worker's queue or in its hands (``unfinished_tasks`` counts an item until the worker is done
        with it), so every earlier command has been answered; no change waiting to be journalled and no press claim
        waiting to be applied, so the reply's state and ``seq`` agree as the worker's would; no rebuild due. A change
        made after the check is one the worker's answer could miss just the same.
        """
        if not any(marker in payload for marker in QUERY_MARKERS) or self._queue.unfinished_tasks:
            return False  # (cheap tests first: a query has its type in its text; "st\u0061tus" takes the queue)
        if self.output.backlog() >= MAX_OUTGOING_BACKLOG:
            return False  # the queue's check answers busy
        decoded = decode_command(payload)
        if decoded.command is None or decoded.command["type"] not in QUERIES:
            return False
        if not self.lock.acquire(blocking=False):
            return False
        try:
            quiet = not (
                self._queue.unfinished_tasks or self._unjournalled or self._rebuild_due or self.press.has_claims()
            )
        finally:
            self.lock.release()
        if quiet:
            self._command(decoded.command, decoded.id)
        return quiet

    def submit_command(self, command: dict[str, Any], command_id: str | int | None = None) -> None:
        self._queue.put(("command", command, command_id))

    def republish(self) -> None:
        """Publish the retained topics again (after a reconnect: the broker may have lost them)."""
        self._queue.put(("republish",))

    def on_uno_button(self) -> None:
        """The launcher's UNO button (launcher thread): an ``uno`` call for the player who is exposed, if any."""
        self._queue.put(("uno_button",))

    def on_launcher_event(self, event: dict[str, Any]) -> None:
        """A launcher-level event (fired, jam, ignored_press, lid, ...) from the launcher's threads.

        Takes no lock: the GPIO input thread calls this, and a lid edge behind it must not wait for the table.
        """
        self._unjournalled.append(Record(None, [event], origin="launcher"))
        self._queue.put(_JOURNAL)

    # -- changing the referee (under self.lock) -----------------------------------------------------------------

    @contextmanager
    def _changing(self, reopen: bool = True) -> Iterator[None]:
        """Around every change of the referee (any thread but the press path): under :attr:`lock`, the claims made so
        far are applied first, in order (:meth:`PressGate.settle`), then the caller's change; then the next press
        snapshot is published (:meth:`PressGate.publish`), unless the referee waits to be rebuilt. Records of the
        change are appended to the journal queue inside.

        ``reopen=False`` (the worker applying claims it is about to journal) leaves the press gate closed and
        :attr:`_reopen_due` set: the worker plans the next press once the press's event is on its way
        (:meth:`_reopen_press`), and any change on another thread meanwhile publishes the snapshot as usual."""
        with self.lock:
            self.press.settle(self.referee)
            try:
                yield
            finally:
                if not reopen:
                    self._reopen_due = True
                elif not self._rebuild_due:
                    self.press.publish(self.referee)
                    self._reopen_due = False

    def _reopen_press(self) -> None:
        """Publish the next press snapshot if the worker left the gate closed (worker only; see :meth:`_changing`)."""
        if self._reopen_due:
            with self._changing():
                pass

    def on_hit(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        """A press's run finished (launcher thread): the hit goes to the referee now, the journal right after.

        A planned fire that brought no card out because the run failed (a fault, a lost co-processor link, the lid
        opened, an empty magazine, a jam) is not a hit: ``hit_failed``, and the hit stays owed. Cards the sensor
        did count still count; a planned click (no fire) is a legal 0-card hit.
        """
        self.sensors.last_cards_out = result.cards_out
        with self._changing():  # the press's own claim first, if the worker has not applied it yet
            self._hit_locked(player, plan, result)
        self._queue.put(_JOURNAL)

    def _hit_locked(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        if plan.fire and result.cards_out == 0 and result.outcome != "ok":  # the plan stays owed with the hit
            self._unjournalled.append(failed_fire_record(self.referee, player, result.outcome, result.detail))
        elif player is None:
            # Lockout off and nobody owed a hit: the launcher fired, but there is nobody to give the cards to.
            self._unjournalled.append(
                Record(None, [{"type": "unattributed_hit", "cards": result.cards_out}], origin="launcher")
            )
        else:
            command = {"type": "hit", "player": player, "cards": result.cards_out}
            try:
                events = self.referee.handle(command)
            except Exception as exc:  # the referee promises never to raise; if it does, refuse, don't die
                log.exception("referee raised on %s; the worker rebuilds it from the journal", command)
                self._rebuild_due = True  # not here: this thread must not wait for the disk (see _rebuild_referee)
                events = [{"type": "rejected", "code": "internal_error", "message": f"The referee failed: {exc}."}]
            if events and events[0].get("type") == "rejected":
                # The cards are out physically; record that the referee could not take them (e.g. an undo).
                code, message = events[0].get("code", "rejected"), events[0].get("message", "Refused.")
                log.warning("hit by %s with %d card(s) refused: %s", player, result.cards_out, message)
                refused = {"type": "hit_refused", "player": player, "cards": result.cards_out}
                record = Record(None, [{**refused, "code": code, "message": message}], origin="launcher")
            else:
                record = Record(command, events, public=self.referee.public_state(), origin="hit")
            self._unjournalled.append(record)

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
        raised: Exception | None = None
        record: Record | None = None
        events: list[dict[str, Any]] = []
        with self._changing():
            try:
                events = self.referee.handle(command)
                rejected = bool(events) and events[0].get("type") == "rejected"
                record = None if rejected else Record(command, events, public=self.referee.public_state())
            except Exception as exc:  # the referee promises never to raise; if it does, refuse and restore it
                log.exception("referee raised on %s; rebuilding it from the journal", command.get("type"))
                self._rebuild_due = True
                raised = exc
            if record is not None:
                self._unjournalled.append(record)
        if raised is not None:
            self._rebuild_referee()
            message = f"The referee failed on this command ({type(raised).__name__})."
            return False, "internal_error", message, self.journal.last_seq
        if record is None:
            code, message = str(events[0].get("code", "rejected")), str(events[0].get("message", "Refused."))
            self.refusal_params = events[0].get("params")  # for the reply (worker thread only, like apply)
            return False, code, message, self.journal.last_seq
        self._journal_pending()
        error = record.error
        if error is not None:
            message = (
                str(error) if isinstance(error, JournalError) else f"The table could not record this command ({error})."
            )
            return False, "journal_error", message, self.journal.last_seq
        return True, "ok", f"Accepted; {len(events)} event(s).", record.seq

    def _rebuild_referee(self) -> None:
        """The referee again from the journal, plus what was applied and is still waiting to be journalled. Worker
        only.

        The journal is read outside :attr:`lock` — a failing disk may make that read slow, and a run's hit on the
        timer thread must not wait for it — and swapped in under the lock. That is safe because the worker is the
        journal's only writer: nothing can be journalled between the read and the swap. What lands meanwhile (a hit
        applied by the timer thread, a press claimed before the referee raised) waits in the journal queue, and the
        queue is read at the swap, under the lock, so the new referee takes it too.
        """
        referee = replay(self.journal, self.referee_factory)[0]
        with self._changing():
            for record in list(self._unjournalled):  # a copy: launcher events are appended without the lock
                if record.command is not None and not record.pending:  # (a claim not applied yet stays so)
                    referee.handle(record.command)
            self.referee = referee
            self._rebuild_due = False

    # -- the worker ---------------------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self.diagnostics_s)
            except queue.Empty:
                self.sensors.refresh_diagnostics()
                continue
            if isinstance(item, tuple) and item[0] == "payload":
                with self._queued_lock:
                    self._queued_commands -= 1
            try:
                with self._working.working():
                    if self._rebuild_due:  # the referee raised on a hit (timer thread): rebuilt here, off that thread
                        self._rebuild_referee()
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
            self.sensors.forget()
            snapshot = self.snapshot()
            self.output.state(snapshot)
            self.sensors.publish(snapshot)

    def _command(self, command: dict[str, Any], command_id: str | int | None) -> None:
        """Apply one command and send its one reply, whatever happens on the way."""
        try:
            if command["type"] in DAEMON_COMMANDS:
                answer = self.commands.handle(command, command_id)
            else:
                self.refusal_params = None
                ok, code, message, seq = self.apply(command)
                worded: dict[str, Any] = {"params": self.refusal_params} if not ok and self.refusal_params else {}
                answer = reply(command_id, ok, code, message, seq=seq, **worded)
        except Exception as exc:  # a bug: still exactly one reply (apply() has put the referee back already)
            log.exception("error while handling %s", command.get("type"))
            message = f"The table failed on this command ({type(exc).__name__})."
            answer = reply(command_id, False, "internal_error", message)
        self.output.reply(answer)

    def _uno_button(self) -> None:
        """The exposed player (one card left, UNO not called yet) calls UNO; with nobody exposed the press is only
        recorded as ``uno_button``. Decided on the worker, against the referee as the queue has brought it."""
        exposed = self.public_state().get("uno_exposed")
        if isinstance(exposed, str):
            ok, code, message, _ = self.apply({"type": "uno", "player": exposed})
            if ok:
                return
            log.info("UNO button: uno for %s refused (%s): %s", exposed, code, message)
        with self.lock:
            self._unjournalled.append(Record(None, [{"type": "uno_button"}], origin="launcher"))
        self._journal_pending()
