"""One table: referee + journal + launcher, fed by commands and button presses, feeding an output (MQTT).

Threads and who may touch what:

- the **worker** thread (one, started by :meth:`Table.start`) is the only one that changes the referee and writes
  commands and events to the journal, in the order it takes them from its queue, so journal order = the order the
  referee saw them;
- the launcher's input thread (a GPIO edge) only *reads* the referee (``hitter()``) under :attr:`Table.lock`,
  which the worker holds only for ``referee.handle()`` itself, never across a disk or network write: the press →
  motor path never waits on SQLite or MQTT. The hit is journalled after the motor started, when the run is done
  and the launcher has counted the cards;
- MQTT's network thread only queues raw payloads (:meth:`Table.submit_payload`).

Example::

    table = Table(journal, Referee, output)
    table.restore()          # replay the journal into a fresh referee
    table.start()
    table.submit_payload(b'{"id": 1, "type": "new_game", "ruleset": "attack", "players": ["a", "b"]}')
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

from unolauncher.bus.discovery import sensor_values
from unolauncher.daemon.commands import DAEMON_COMMANDS, decode_command, reply
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher
from unolauncher.store.journal import Journal, JournalError

log = logging.getLogger(__name__)

RESEND_LIMIT = 1000  # events per ``resend`` request
# Commands from MQTT waiting for the worker. A phone sends one at a time; only a misbehaving client gets near this.
# Beyond it a command is answered ``busy`` at once instead of queued: memory stays bounded during a flood, and paho's
# network thread never waits (it is the thread that answers).
MAX_QUEUED_COMMANDS = 256
# Messages handed to paho and not yet acknowledged by the broker (replies, state, events). During a flood the replies
# pile up there faster than the broker acknowledges them (measured: 17,000 waiting, +50 MB): past this many, new
# commands are answered ``busy`` too, so that paho's queue stays bounded as well.
MAX_OUTGOING_BACKLOG = 1000


class RefereeLike(Protocol):
    def handle(self, command: dict[str, Any]) -> list[dict[str, Any]]: ...

    def public_state(self) -> dict[str, Any]: ...

    def hitter(self) -> str | None: ...


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


class Table:
    """The table's state machine around the pure referee (see the module docstring for the threading rules)."""

    def __init__(
        self,
        journal: Journal,
        referee_factory: Callable[[], RefereeLike],
        output: TableOutput,
        launcher: Launcher | None = None,
        virtual: VirtualControls | None = None,
        prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        after_apply: Callable[[], None] | None = None,
    ) -> None:
        self.journal = journal
        self.referee_factory = referee_factory
        self.referee = referee_factory()
        self.output = output
        self.launcher = launcher
        self.virtual = virtual
        self.prepare = prepare  # fills in defaults (e.g. a new_game's seed) before the referee sees a command
        self.after_apply = after_apply  # runs on the worker after each accepted command
        self.lock = threading.Lock()
        self.last_cards_out: int | None = None
        self._last_launcher: dict[str, Any] = {}
        self._last_sensors: dict[str, Any] = {}
        self._queue: queue.Queue[Any] = queue.Queue()
        self.max_queued_commands = MAX_QUEUED_COMMANDS
        self._queued_commands = 0  # "payload" items in the queue, guarded by _queued_lock
        self._queued_lock = threading.Lock()
        self.busy_refusals = 0
        self._worker: threading.Thread | None = None
        self.commands_applied = 0

    # -- start-up -----------------------------------------------------------------------------------------------

    def restore(self) -> int:
        """Rebuild the referee from the journal's accepted commands; return how many were re-applied."""
        referee = self.referee_factory()
        count = 0
        for command in self.journal.commands():
            events = referee.handle(command)
            if events and events[0].get("type") == "rejected":
                # Same commands in the same order must give the same result; if not, the rules changed under us.
                log.error("journalled command %s was refused on replay: %s", command, events[0].get("message"))
            count += 1
        with self.lock:
            self.referee = referee
        self.commands_applied = count
        return count

    def start(self) -> None:
        self._worker = threading.Thread(target=self._work, name="table-worker", daemon=True)
        self._worker.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._queue.put(_STOP)
        if self._worker:
            self._worker.join(timeout)

    def alive(self) -> bool:
        """False when the worker thread died (the main loop then stops the watchdog pings)."""
        return self._worker is not None and self._worker.is_alive()

    def idle(self) -> bool:
        return self._queue.unfinished_tasks == 0

    # -- inputs (any thread) ------------------------------------------------------------------------------------

    def submit_payload(self, payload: bytes) -> None:
        """A raw ``cmd`` payload from MQTT (paho's thread): queued for the worker, or answered ``busy`` when
        :attr:`max_queued_commands` are already waiting. Never blocks."""
        with self._queued_lock:
            busy = self._queued_commands >= self.max_queued_commands or self.output.backlog() >= MAX_OUTGOING_BACKLOG
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

    def submit_command(self, command: dict[str, Any], command_id: str | int | None = None) -> None:
        self._queue.put(("command", command, command_id))

    def republish(self) -> None:
        """Publish the retained topics again (after a reconnect: the broker may have lost them)."""
        self._queue.put(("republish",))

    def hitter(self) -> str | None:
        """Who a press is attributed to now (the launcher's input thread calls this)."""
        with self.lock:
            return self.referee.hitter()

    def on_hit(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        """A press's run finished (launcher thread): the hit goes to the referee with the counted cards."""
        self._queue.put(("hit", player, plan, result))

    def on_launcher_event(self, event: dict[str, Any]) -> None:
        """A launcher-level event (fired, jam, ignored_press, lid, ...) from the launcher's threads."""
        self._queue.put(("launcher_event", event))

    # -- the worker ---------------------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                self._dispatch(item)
            except Exception:
                # One bad item must not end the table: log it and carry on with the next.
                log.exception("error while handling %r", item[0] if isinstance(item, tuple) else item)
            finally:
                self._queue.task_done()

    def _dispatch(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "payload":
            with self._queued_lock:
                self._queued_commands -= 1
            decoded = decode_command(item[1])
            if decoded.error:
                code, message = decoded.error
                self.output.reply(reply(decoded.id, False, code, message))
            else:
                assert decoded.command is not None
                self._command(decoded.command, decoded.id)
        elif kind == "command":
            self._command(item[1], item[2])
        elif kind == "republish":
            self._last_launcher, self._last_sensors = {}, {}
            snapshot = self.snapshot()
            self.output.state(snapshot)
            self._publish_sensors(snapshot)
        elif kind == "hit":
            self._hit(item[1], item[2], item[3])
        elif kind == "launcher_event":
            event = item[1]
            self.journal.append_events([event])
            self.output.events_journalled()
            if event.get("type") == "press":
                self.output.press({"player": event.get("player"), "index": event.get("index")})
            self._publish_launcher()

    def _command(self, command: dict[str, Any], command_id: str | int | None) -> None:
        if command["type"] in DAEMON_COMMANDS:
            self.output.reply(self._daemon_command(command, command_id))
            return
        ok, code, message, seq = self.apply(command)
        self.output.reply(reply(command_id, ok, code, message, seq=seq))

    def apply(self, command: dict[str, Any]) -> tuple[bool, str, str, int]:
        """Hand one command to the referee; journal and publish it if accepted. Worker thread only."""
        if self.prepare is not None:
            command = self.prepare(command)
        with self.lock:
            try:
                events = self.referee.handle(command)
            except Exception as exc:  # the referee promises never to raise; if it does, refuse, don't die
                log.exception("referee raised on %s", command)
                return False, "internal_error", f"The referee failed on this command: {exc}.", self.journal.last_seq
            refused = bool(events) and events[0].get("type") == "rejected"
            public = None if refused else self.referee.public_state()
        if refused:
            code, message = str(events[0].get("code", "rejected")), str(events[0].get("message", "Refused."))
            return False, code, message, self.journal.last_seq
        try:
            self.journal.append_command(command, events)
        except Exception as exc:
            # Not journalled = did not happen: put the referee back to what the journal says, then refuse.
            log.exception("could not journal %s; rolling the referee back", command.get("type"))
            self.restore()
            message = str(exc) if isinstance(exc, JournalError) else f"The table could not record this command ({exc})."
            return False, "journal_error", message, self.journal.last_seq
        self.commands_applied += 1
        self.output.events_journalled()
        assert public is not None
        self.output.state({**public, "seq": self.journal.last_seq})
        self._publish_sensors(public)
        if self.after_apply is not None:
            self.after_apply()
        for event in events:
            if event.get("type") == "dispense":
                self._dispense(event)
        return True, "ok", f"Accepted; {len(events)} event(s).", self.journal.last_seq

    def _hit(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        self.last_cards_out = result.cards_out
        if player is None:
            # Lockout off and nobody owed a hit: the launcher fired, but there is nobody to give the cards to.
            self.journal.append_events([{"type": "unattributed_hit", "cards": result.cards_out}])
            self.output.events_journalled()
            return
        ok, code, message, _ = self.apply({"type": "hit", "player": player, "cards": result.cards_out})
        if not ok:
            # The cards are out physically; record that the referee could not take them (e.g. an undo meanwhile).
            log.warning("hit by %s with %d card(s) refused: %s", player, result.cards_out, message)
            self.journal.append_events(
                [{"type": "hit_refused", "player": player, "cards": result.cards_out, "code": code, "message": message}]
            )
            self.output.events_journalled()
        self._publish_launcher()

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
            self.on_launcher_event(
                {
                    "type": "dispense_skipped",
                    "player": player,
                    "wanted": count,
                    "message": "The launcher was busy; draw by hand.",
                }
            )

    # -- daemon-level commands ----------------------------------------------------------------------------------

    def _daemon_command(self, command: dict[str, Any], command_id: str | int | None) -> dict[str, Any]:
        kind = command["type"]
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
        if kind == "resend":
            start = command.get("from", 1)
            if isinstance(start, bool) or not isinstance(start, int) or start < 1:
                return reply(command_id, False, "bad_field", 'resend needs "from": a positive integer seq.')
            events = self.journal.events(start, RESEND_LIMIT)
            self.output.resend(events)
            return reply(command_id, True, "ok", f"Re-sent {len(events)} event(s) from seq {start}.")
        if self.virtual is None:
            return reply(command_id, False, "not_virtual", f"{kind!r} only works with the virtual launcher.")
        if kind == "press":
            self.virtual.press_button()
            return reply(command_id, True, "ok", "Button pressed.")
        if kind == "lid":
            is_open = command.get("open")
            if not isinstance(is_open, bool):
                return reply(command_id, False, "bad_field", 'lid needs "open": true or false.')
            self.virtual.open_lid() if is_open else self.virtual.close_lid()
            return reply(command_id, True, "ok", "Lid opened." if is_open else "Lid closed.")
        # load
        cards = command.get("cards")
        if isinstance(cards, bool) or not isinstance(cards, int) or not 0 <= cards <= 200:
            return reply(command_id, False, "bad_field", 'load needs "cards": an integer 0-200.')
        self.virtual.load(cards)
        self._publish_launcher()
        return reply(command_id, True, "ok", f"Loaded {cards} card(s).")

    # -- derived outputs ----------------------------------------------------------------------------------------

    def _publish_launcher(self) -> None:
        if self.launcher is not None:
            with self.lock:
                public = self.referee.public_state()
            self._publish_sensors(public)

    def _publish_sensors(self, public: dict[str, Any]) -> None:
        """Retained launcher status and Home Assistant sensors, each only when it changed (they are retained)."""
        launcher = self.launcher.status().to_json() if self.launcher else {}
        if launcher and launcher != self._last_launcher:
            self._last_launcher = launcher
            self.output.launcher_status(launcher)
        sensors = sensor_values(public, launcher, self.last_cards_out)
        if sensors != self._last_sensors:
            self._last_sensors = sensors
            self.output.sensors(sensors)

    def referee_ejection_state(self) -> dict[str, Any] | None:
        """The ejection model's state inside the referee (``None`` before the first game)."""
        with self.lock:
            state = getattr(self.referee, "state", None)
            ejection = getattr(state, "ejection", None)
            return dict(ejection) if isinstance(ejection, dict) else None

    def snapshot(self) -> dict[str, Any]:
        """Public state plus the journal position (for ``status`` and the retained ``state`` topic)."""
        with self.lock:
            return {**self.referee.public_state(), "seq": self.journal.last_seq}
