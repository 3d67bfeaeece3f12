"""The daemon's own commands — ``status``, ``moves``, ``resend``, ``preset``, ``disable`` / ``enable``, and the virtual
launcher's ``press`` / ``lid`` / ``load`` — which the table answers without the referee.

Thread: the **table's worker**, one command at a time, in queue order (``Table._command``), after the command's
fields were checked against :data:`~unolauncher.daemon.commands.DAEMON_FIELDS`; or, for the read-only queries
``status`` and ``moves``, MQTT's network thread when the worker has nothing in hand (``Table._answered_now``), so
those two read the table only through its locked readers. (A ``disable`` from MQTT has already stopped the motor on
the network thread: :class:`~unolauncher.daemon.emergency_stop.EmergencyStop`.)

Example (not a doctest: needs a table)::

    table.commands.handle({"type": "status"}, 7)
    # {"id": 7, "ok": True, "code": "ok", "message": "Status attached.", "data": {"state": ..., "seq": ...}}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from unolauncher.daemon.catalogue import catalogue
from unolauncher.daemon.commands import check_daemon_command, reply
from unolauncher.daemon.emergency_stop import EmergencyStop
from unolauncher.daemon.freshness import Freshness
from unolauncher.daemon.interfaces import PresetChoice, Record, TableOutput, VirtualControls
from unolauncher.daemon.restore import PRESET_NOTE
from unolauncher.daemon.sensors import SensorPublisher
from unolauncher.launcher.interface import Launcher
from unolauncher.store.journal import Journal, JournalError

RESEND_LIMIT = 1000  # events per ``resend`` request

CommandId = str | int | None


class DaemonCommands:
    """Answers the daemon's own commands (worker thread; see the module docstring).

    ``public_state()`` reads the referee's public state under the table's lock; ``record(r)`` journals a record now
    (in order with everything before it) and fills in its ``seq`` or ``error``; ``moves(player)`` is the ``moves``
    query's answer (:meth:`~unolauncher.daemon.table.Table.moves`: data, or a refusal's code and message).
    """

    def __init__(  # keyword-only: ten collaborators, several of the same type, named at the call
        self,
        *,
        journal: Journal,
        output: TableOutput,
        launcher: Launcher | None,
        virtual: VirtualControls | None,
        emergency: EmergencyStop,
        sensors: SensorPublisher,
        preset: PresetChoice,
        public_state: Callable[[], dict[str, Any]],
        record: Callable[[Record], None],
        moves: Callable[[Any], dict[str, Any] | tuple[str, str]],
    ) -> None:
        self.journal = journal
        self.output = output
        self.launcher = launcher
        self.virtual = virtual
        self.emergency = emergency
        self.sensors = sensors
        self.preset = preset
        self.public_state = public_state
        self.record = record
        self.moves = moves
        self.freshness: Freshness | None = None  # set by the daemon: a phone's late tap is refused ``stale``

    def handle(self, command: dict[str, Any], command_id: CommandId) -> dict[str, Any]:
        """The one reply to a daemon command."""
        stale = self.freshness.check(command, self.public_state) if self.freshness is not None else None
        if stale is not None:
            return reply(command_id, False, *stale)
        kind = command["type"]
        refused = check_daemon_command(command)
        if refused is not None:
            return reply(command_id, False, *refused)
        if kind == "status":
            data = {
                "state": self.public_state(),
                "seq": self.journal.last_seq,
                "outbox": self.journal.outbox_size(),
                "launcher": self.launcher.status().to_json() if self.launcher else None,
            }
            return reply(command_id, True, "ok", "Status attached.", data=data)
        if kind == "moves":  # a query like status, never journalled: what the dashboard greys out
            answer = self.moves(command.get("player"))
            if isinstance(answer, tuple):
                return reply(command_id, False, *answer)
            return reply(command_id, True, "ok", f"{len(answer['moves'])} legal move(s) attached.", data=answer)
        if kind == "rules":  # a query: the catalogue the daemon also publishes retained on the rules topic
            data = catalogue(self.preset.offered)
            return reply(command_id, True, "ok", "The rule catalogue is attached.", data=data)
        if kind == "resend":
            start = command.get("from") or 1
            events = self.journal.events(start, RESEND_LIMIT)
            self.output.resend(events)
            return reply(command_id, True, "ok", f"Re-sent {len(events)} event(s) from seq {start}.")
        if kind in ("disable", "enable"):
            return self._enable(command, command_id)
        if kind == "preset":
            return self._preset(command, command_id)
        if self.virtual is None:
            return reply(command_id, False, "not_virtual", f"{kind!r} only works with the virtual launcher.")
        if kind == "press":
            if not self.virtual.click():  # one press per command, even while the last one holds the button down
                return reply(command_id, False, "busy", "The virtual button has presses waiting; press again shortly.")
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
        self.sensors.publish_launcher()
        return reply(command_id, True, "ok", f"Loaded {cards} card(s).")

    def _enable(self, command: dict[str, Any], command_id: CommandId) -> dict[str, Any]:
        """``disable`` / ``enable``, the emergency stop: journalled (``launcher_disabled`` / ``launcher_enabled``),
        so a restart keeps it. Disabling acts first and journals after (it acted already if it came over MQTT);
        enabling journals first and acts only once that succeeded."""
        enabled = command["type"] == "enable"
        word = "enabled" if enabled else "disabled"
        if enabled and self.emergency.latched:  # shutdown latched the motor off: an enable queued behind it is void
            return reply(command_id, False, "stopping", "The table is shutting down; the launcher stays off.")
        if not enabled:
            self.emergency.apply(False)
        if enabled == self.emergency.journalled:
            self.emergency.apply(enabled)
            return reply(command_id, True, "ok", f"The launcher is already {word}.")
        by = command.get("by")
        event: dict[str, Any] = {"type": f"launcher_{word}", **({"by": by} if by is not None else {})}
        record = Record(None, [event], origin="launcher")
        self.record(record)
        if record.error is not None:
            state = "disabled now, but" if not enabled else "still disabled:"
            message = f"The launcher is {state} this could not be recorded ({record.error})."
            return reply(command_id, False, "journal_error", message)
        if enabled:
            self.emergency.apply(True)
            self.sensors.publish_launcher()
        return reply(command_id, True, "ok", f"The launcher is {word}.", seq=record.seq)

    def _preset(self, command: dict[str, Any], command_id: CommandId) -> dict[str, Any]:
        """``{"type": "preset", "preset": "brutal"}``: the ejection preset of the next game that does not name one
        (Home Assistant's select). Journalled as a note, so it survives a restart; the running game keeps its own."""
        preset = command.get("preset")
        offered = self.preset.offered
        if not isinstance(preset, str) or preset not in offered:
            return reply(command_id, False, "bad_field", f'preset needs "preset": one of {", ".join(offered)}.')
        try:
            self.journal.append_note({"type": PRESET_NOTE, "preset": preset})
        except JournalError as exc:  # a full disk is the journal's error, not a bug (was internal_error)
            return reply(command_id, False, "journal_error", f"The preset is unchanged: {exc}")
        self.preset.name = preset
        self.preset.chosen = True
        self.sensors.publish_launcher()
        return reply(command_id, True, "ok", f"The next game will use the {preset} preset.")
