"""The press path's side of the table: the snapshot a press claims, and the queue of claims the referee applies next.

Two sides, two kinds of thread:

- **the launcher's threads** (gpiozero's edge thread, the serial reader) call :meth:`PressGate.claim`,
  :meth:`PressGate.started` and :meth:`PressGate.lid_opened`. They **never wait for the table** and never take
  ``Table.lock``: a claim swaps the published :class:`PressSnapshot` for "claimed" and queues the claim, under the
  gate's own tiny lock (held for a swap and an append, never across anything slow); the motor starts at once. A lid
  opening goes into the same queue, closing the snapshot (its plan counted presses from before the refill). The
  emergency stop is read without a lock;
- **whoever changes the referee** (the table's worker applying a command, a run's hit on the timer thread, a
  rollback), holding ``Table.lock``, calls :meth:`PressGate.settle` first — the snapshot closes and the waiting
  claims are applied as ``pressed`` / ``lid_opened`` commands in the order they came — then makes its own change,
  then :meth:`PressGate.publish` (the next snapshot). So the referee sees every press exactly where it happened,
  with the plan it fired with (checked); journal order is the referee's order, and a replay of the journal gives
  every press the same plan. No press is claimed from stale state: a press on a closed or claimed snapshot is
  ``"ignored"`` (the press handler reports ``ignored_press``).

Lock order: ``Table.lock`` before the gate's lock, never the other way round.

Example::

    >>> from collections import deque
    >>> from unolauncher.daemon.emergency_stop import EmergencyStop
    >>> from unolauncher.rules.referee import Referee
    >>> queued = deque()
    >>> gate = PressGate(queued, EmergencyStop(None), wake=lambda: None)
    >>> gate.claim(lockout=True)                # nothing published yet
    'ignored'
    >>> referee = Referee()
    >>> gate.settle(referee); gate.publish(referee)   # what Table does around a change, under its lock
    >>> gate.claim(lockout=True) is None        # no game: nobody may hit, and lockout is on
    True
"""

from __future__ import annotations

import collections
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from unolauncher.daemon.emergency_stop import EmergencyStop
from unolauncher.daemon.interfaces import Record, RefereeLike
from unolauncher.launcher.press import PressClaim, Refusal

log = logging.getLogger("unolauncher.daemon.table")  # the table's log, as before the split: same logger for one table

# Two hand-offs on the press -> event path, each followed by a short step aside so that the woken thread gets the GIL
# at once instead of waiting behind the one that woke it: the launcher thread after queuing a press event (the worker
# starts the journal write: 0.21 -> 0.11 ms, measured), and the worker after handing the event to MQTT (paho's
# network thread writes it instead of waiting behind the retained launcher status and sensors: 0.55 -> 0.25 ms).
# The motor is already on and presses come at human rates: 0.3 ms of a launcher thread per press costs nothing.
HANDOFF_YIELD_S = 0.0003
# A click's hit (a press whose plan fires nothing, or whose run could not start) is known on the input thread at once;
# the launcher's timer thread hands it to the table this much later rather than at once. Applying it — the referee's
# hit and the next press's plan, ≈ 0.3 ms of cold Python — competed for the GIL with the worker journalling that very
# press, right on the press → event path (0.15–0.4 ms of it in alternated runs: docs/performance.md). Nothing waits: the
# button's debounce (30 ms by default) takes any edge this soon after the press for contact bounce, and a press that
# does come sooner (debounce set lower) is answered ``ignored_press``, as during any hit until it is applied.
CLICK_HIT_DELAY_S = 0.005


@dataclass(frozen=True)
class PressSnapshot:
    """What the next press may claim, published after every change of the referee (one reference swap): who it
    counts for and the plan the referee will record for it, and the ``pressed`` command that records it (with the
    free-play secret when no launcher commitment is open). Never changed: a claim replaces it.

    Example::

        >>> from unolauncher.launcher.interface import FirePlan
        >>> claim = PressClaim("ann", FirePlan(fire=True, cards=2, run_ms=420))
        >>> PressSnapshot(claim, {"type": "pressed", "player": "ann"}).claim.player
        'ann'
    """

    claim: PressClaim
    command: dict[str, Any]


class PressGate:
    """Claims of the press path and their hand-over to the referee (see the module docstring for the threads).

    ``journal_queue`` is the table's queue of records to journal, in the order things happened (a press takes its
    place there when claimed); ``wake()`` wakes the table's worker.
    """

    def __init__(
        self, journal_queue: collections.deque[Record], emergency: EmergencyStop, wake: Callable[[], None]
    ) -> None:
        self._journal_queue = journal_queue
        self._emergency = emergency
        self._wake = wake
        self._lock = threading.Lock()
        self._snapshot: PressSnapshot | None = None  # None: claimed, or closed while the referee changes
        # ``lockout = false``: a press with no round open fires (free play). Its commitment is opened here, whenever
        # none is open, before any press can be claimed: out before the first press, so phones can add entropy.
        self.free_play = False
        self._claims: collections.deque[Record] = collections.deque()  # claimed, not yet applied (in order)

    # -- the launcher's threads ---------------------------------------------------------------------------------

    def claim(self, lockout: bool) -> PressClaim | Refusal | Literal["ignored"] | None:
        """A button press (launcher thread): who it counts for and the plan to fire, from the published
        :class:`PressSnapshot`; ``None`` when nobody may hit and ``lockout`` is on; ``"disabled"`` while the
        emergency stop is on; ``"ignored"`` when the snapshot is claimed already or closed (the referee is changing
        at this instant). Never takes ``Table.lock`` (it may be held for as long as it likes): one swap under the
        gate's lock, and the claim waits in a queue until the next change of the referee applies it as a ``pressed``
        command — the worker's very next turn (:meth:`started` wakes it), or the press's own hit.

        The plan is the referee's next one: nothing can change the referee before it has applied this claim, so it
        records exactly this plan, and a replay of the journal gives this press the same plan again.
        """
        if not self._emergency.enabled:
            return "disabled"
        with self._lock:
            snapshot = self._snapshot
            if snapshot is None:
                return "ignored"
            claim = snapshot.claim
            if claim.player is None and lockout:
                return None
            self._snapshot = None
            record = Record(snapshot.command, [], origin="press", pending=True, plan=claim.plan)
            self._claims.append(record)
            self._journal_queue.append(record)  # its place in the journal: where the press happened
        return claim

    def started(self) -> None:
        """After the motor is on (launcher thread): the worker applies the claim and journals it. The short step
        aside lets the worker take the GIL at once (see :data:`HANDOFF_YIELD_S`)."""
        self._wake()
        time.sleep(HANDOFF_YIELD_S)

    def lid_opened(self) -> None:
        """The lid opened (a launcher thread — the serial backend's reader): a refill, which restarts the sequence
        count. Like a press it never takes ``Table.lock``: it closes the snapshot (whose plan counted presses from
        before the refill) and queues a ``lid_opened`` command, which the worker applies and journals next (nothing
        is recorded when no launcher commitment is open). Unlike a press it enters the journal queue only when
        applied: a command the worker is applying at this instant comes before it, in the referee as in the
        journal."""
        with self._lock:
            self._snapshot = None
            self._claims.append(Record({"type": "lid_opened"}, [], origin="launcher"))
        self._wake()

    # -- whoever changes the referee, holding Table.lock --------------------------------------------------------

    def is_open(self) -> bool:
        """A snapshot is published: the next press would be claimed, not ``"ignored"`` (a read without a lock)."""
        return self._snapshot is not None

    def has_claims(self) -> bool:
        """Claims wait to be applied (a read without a lock: the worker's hint to settle them now)."""
        return bool(self._claims)

    def settle(self, referee: RefereeLike) -> None:
        """Close the snapshot and apply every waiting claim to ``referee``, in the order they came (caller holds
        ``Table.lock``). A press's ``pressed`` records the plan it fired with; should the referee record another
        one (a bug: the snapshot was stale), that is logged as an error."""
        with self._lock:
            self._snapshot = None
            claims = list(self._claims)
            self._claims.clear()
        for record in claims:
            command = record.command
            assert command is not None
            events = referee.handle(command)
            rejected = not events or events[0].get("type") == "rejected"
            if record.plan is None:  # a lid opening: journalled where the referee takes it (nothing to record with no
                if not rejected:  # launcher commitment open)
                    record.events = events
                    self._journal_queue.append(record)
                continue
            if rejected:  # the referee refusing its own launcher's press: a bug
                log.error("the referee refused a press that was claimed: %s", events)
                record.command, record.events = None, []
            else:
                record.events = events
                if events[-1].get("plan") != record.plan.to_json():
                    log.error("a press fired %s but the referee recorded %s", record.plan, events[-1].get("plan"))
            record.pending = False

    def publish(self, referee: RefereeLike) -> None:
        """The next press's snapshot from ``referee`` as it now stands (caller holds ``Table.lock``, and has settled
        the claims): who may hit, their next plan (computed now, off the press path) and the ``pressed`` command.
        With :attr:`free_play` on and no launcher commitment open, free play's commitment is opened first; with it
        off such a press is refused (lockout), though a journal's older ``pressed`` may still open free play with
        the secret drawn here. Left closed when a lid opening came in meanwhile: the plan would not count it; the
        change that applies it publishes."""
        try:
            if self.free_play and referee.commitment() is None:
                self._open_free_play(referee)
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
        with self._lock:
            if not self._claims:
                self._snapshot = snapshot

    def _open_free_play(self, referee: RefereeLike) -> None:
        """Free play's commitment (``free_play``, journalled in its place: after the change that closed the last one,
        before any press of its own). Caller holds ``Table.lock``."""
        command = {"type": "free_play", "secret": secrets.token_hex(32)}
        events = referee.handle(command)
        if events and events[0].get("type") != "rejected":
            self._journal_queue.append(Record(command, events, origin="launcher"))
            self._wake()
        else:
            log.error("the referee refused free play's commitment: %s", events)
