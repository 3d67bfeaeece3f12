"""The press path: button edge → the table's claim (who may hit, and the referee's next plan) → launcher, and the
run's result back to the table.

Runs on the launcher's input thread (gpiozero's edge thread, or the serial reader). It is benchmarked
(``bench/latency.py``): between the edge and the motor pin there is no disk, no network and no thread hand-off —
just a callback, the claim and three pin writes. **Nothing here waits**: lgpio delivers every GPIO callback on one
thread, so a press that waited would delay the lid edge behind it. The emergency stop is read without a lock; the
table answers a claim from the immutable snapshot it publishes after every change of its referee (one reference
swap under a press lock of its own, never the table's lock: see ``daemon/press_gate.py``); a press that comes while the
previous press's hit has not reached the table yet, or at the instant the table is replacing its snapshot, is
ignored (``ignored_press``) instead of waiting for it or being attributed from the state about to change; and a
result known on the input thread itself (a click, a run the launcher would not start) is reported through
``run_later`` (the daemon: its timer thread, a moment later), since the table applies hits under its lock.

The plan is not this module's to choose: the ejection model's state belongs to the referee alone
(``rules/ejection_stream.py``); the claim is the referee's next plan, which the table then records with a journalled
``pressed`` command, so a replay of the journal gives every press the same plan again. The table's ``after_press``
(wake its worker to record the press) and ``on_hit`` run *after* the motor is on.

Events (``on_event``; every one a dict with ``type``):

* ``fired`` — a run ended: ``player``, ``cards`` (counted), ``outcome``, ``ran_ms``, ``counted``;
* ``ignored_press`` — a press while the motor runs (the toy ignores rapid presses too), before the previous
  press's hit reached the table, or while the table replaces its next plan (a command being applied: microseconds);
* ``lockout`` — nobody may hit now (option ``lockout``): nothing fires, no plan is used;
* ``press_refused`` — ``reason``: ``lid_open`` (close the lid) or ``disabled`` (the emergency stop is on);
* the launcher's own ``lid_open``, ``lid_closed``, ``jam``, ``magazine_empty``, ``max_run``, ``fault``, forwarded.

(The ``press`` event itself — ``player``, ``index``, ``plan``, ``commitment``, the line ``unolauncher verify``
recomputes — comes from the referee, with the ``pressed`` command.)

Example::

    handler = PressHandler(
        launcher,
        claim=table.press.claim,
        on_hit=table.on_hit,
        on_event=table.on_launcher_event,
        on_lid_opened=table.press.lid_opened,
        after_press=table.press.started,
    )
    launcher.on_press()  # the button: claim, fire, and (when the run ends) on_hit
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from unolauncher.launcher.interface import EventCallback, FirePlan, FireResult, Launcher

log = logging.getLogger(__name__)

HitCallback = Callable[[str | None, FirePlan, FireResult], None]

_NO_FIRE = FireResult(0, 0, "no_fire")
# A press whose plan was used up but whose run the launcher would not start (a dispense run in progress, the lid
# opening at that instant): not a hit; the table records ``hit_failed`` and the hit stays owed.
_NOT_STARTED = FireResult(0, 0, "fault", detail="the launcher did not start the run")


@dataclass(frozen=True)
class PressClaim:
    """What the table gave a press: who it counts for (``None``: nobody, ``lockout = false``) and the plan to fire.

    Example::

        PressClaim("ann", FirePlan(fire=True, cards=3, run_ms=480))
    """

    player: str | None
    plan: FirePlan


# Why the table took no press: the emergency stop is on.
Refusal = Literal["disabled"]
# The table's claim: ``claim(lockout)`` — ``None`` when nobody may hit and ``lockout`` is on, a refusal, or
# ``"ignored"`` when the table's next plan is claimed already or being replaced at this instant (nothing is used up
# in any of these cases).
ClaimCallback = Callable[[bool], PressClaim | Refusal | Literal["ignored"] | None]
_REFUSALS: dict[str, str] = {
    "disabled": "The launcher is disabled (emergency stop): enable it to fire.",
}


class PressHandler:
    """Wires a :class:`Launcher`'s button and lid to the table and reports hits.

    ``claim(lockout)`` answers a press: the player it counts for and the plan to fire, or ``None`` when nobody may
    hit now and ``lockout`` is on (such a press does nothing but emit ``lockout``), a :data:`Refusal`, or
    ``"ignored"`` (the press is reported as ``ignored_press``, like one during a run). Without
    lockout the launcher still fires and ``on_hit`` gets ``player=None``. ``enabled()`` (the emergency stop, read
    without a lock) is asked first; ``run_later(fn)`` runs ``fn`` off the input thread (without it: at once).

    Example::

        handler = PressHandler(launcher, lambda lockout: PressClaim("ann", FirePlan(fire=False)), on_hit, events.append)
        handler.press()  # a click: on_hit("ann", plan, no_fire result)
    """

    def __init__(
        self,
        launcher: Launcher,
        claim: ClaimCallback,
        on_hit: HitCallback,
        on_event: EventCallback,
        *,
        lockout: bool = True,
        on_lid_opened: Callable[[], None] | None = None,
        after_press: Callable[[], None] | None = None,
        on_uno: Callable[[], None] | None = None,
        enabled: Callable[[], bool] | None = None,
        run_later: Callable[[Callable[[], None]], object] | None = None,
    ) -> None:
        self.launcher = launcher
        self.lockout = lockout
        self._claim = claim
        self._on_hit = on_hit
        self._on_event = on_event
        self._on_lid_opened = on_lid_opened
        self._after_press = after_press
        self._on_uno = on_uno
        self._enabled = enabled
        self._run_later = run_later
        self._lock = threading.Lock()
        self._busy = False  # from a claimed press until its hit has been handed to on_hit
        self._lid_open = False
        self._tension = 0
        self._indicate: Callable[[bool, int], None] = launcher.indicate  # a no-op where no LED or buzzer is fitted
        launcher.on_press = self.press
        launcher.on_lid = self._lid
        launcher.on_event = self._emit  # the launcher's own events (jam, lid_open, ...) go out as they are
        launcher.on_uno = self._uno
        self._lid_open = launcher.status().lid_open

    # ------------------------------------------------------------------ the press

    def press(self) -> None:
        """One debounced button press (the launcher's input thread only). Fast path: motor on first, everything
        else after; nothing waits."""
        if self._enabled is not None and not self._enabled():
            self._refuse("disabled")
            return
        if self._busy:
            self._emit({"type": "ignored_press"})
            return
        if self._lid_open:
            self._emit({"type": "press_refused", "reason": "lid_open", "message": "Close the lid to fire."})
            return
        claim = self._claim(self.lockout)  # outside our lock: the table answers from its snapshot
        if claim is None:
            self._emit({"type": "lockout", "message": "Nobody may hit now."})
            return
        if not isinstance(claim, PressClaim):
            if claim == "ignored":
                self._emit({"type": "ignored_press"})
            else:
                self._refuse(claim)
            return
        player, plan = claim.player, claim.plan
        with self._lock:
            self._busy = True  # until this press's hit has been reported (_report)
        started = True
        if plan.fire:
            try:
                started = self.launcher.fire(plan, lambda result: self._done(player, plan, result))
            except BaseException:
                self.launcher.stop()
                self._report_later(player, plan, _NOT_STARTED)
                raise
        # ---- the motor is on (if it should be); now the slower bookkeeping
        if self._after_press is not None:
            self._after_press()
        if not started:
            self._report_later(player, plan, _NOT_STARTED)
            return
        self._feedback(chime=True)
        if not plan.fire:
            self._report_later(player, plan, _NO_FIRE)

    def _refuse(self, reason: Refusal) -> None:
        self._emit({"type": "press_refused", "reason": reason, "message": _REFUSALS[reason]})

    def _report_later(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        """A result known on the input thread: reported off it when ``run_later`` is given (the table applies a hit
        under its lock, which the input thread must never wait for)."""
        report = partial(self._report, player, plan, result)
        if self._run_later is not None:
            self._run_later(report)
        else:
            report()

    def _done(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        """A run ended (the backend's thread)."""
        self._emit(
            {
                "type": "fired",
                "player": player,
                "cards": result.cards_out,
                "outcome": result.outcome,
                "ran_ms": result.ran_ms,
                "counted": result.counted,
                **({"detail": result.detail} if result.detail else {}),
            }
        )
        self._report(player, plan, result)

    def _report(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        with self._lock:
            self._tension = 0 if result.cards_out > 0 else self._tension + 1
        try:
            self._feedback(chime=False)
            self._on_hit(player, plan, result)
        except Exception as exc:
            log.exception("on_hit failed")
            self._emit({"type": "fault", "reason": "callback", "message": f"on_hit failed: {exc}"})
        finally:
            with self._lock:
                self._busy = False  # only now: a press from here on is attributed from a table that counts this hit

    def _feedback(self, chime: bool) -> None:
        try:
            self._indicate(chime, self._tension)
        except Exception:
            log.exception("launcher feedback failed")

    # ------------------------------------------------------------------ other inputs

    def _lid(self, is_open: bool) -> None:
        with self._lock:
            self._lid_open = is_open
        # lid_open / lid_closed events come from the launcher itself (its on_event is our _emit); an opening is a
        # refill, which restarts the sequence count: that is the referee's to record.
        if is_open and self._on_lid_opened is not None:
            try:
                self._on_lid_opened()
            except Exception:
                log.exception("on_lid_opened failed")

    def _uno(self) -> None:
        if self._on_uno is not None:
            self._on_uno()
        else:
            self._emit({"type": "uno_button"})

    def _emit(self, event: dict[str, Any]) -> None:
        try:
            self._on_event(event)
        except Exception:
            log.exception("on_event failed for %s", event.get("type"))
