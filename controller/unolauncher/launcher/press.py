"""The press path: button edge → who may hit → ejection model → launcher, and the results back to the daemon.

Runs on the launcher's input thread (gpiozero's edge thread, or the serial reader). It is benchmarked
(``bench/latency.py``): between the edge and the motor pin there is no disk, no network and no thread hand-off —
just a callback, a lock, the plan computed ahead of time (:meth:`PressHandler.plan_ahead`), and three pin writes.
Events and the hit go out *after* the motor is on; ``on_event`` and ``on_hit`` should hand heavy work (journal,
MQTT) to another thread.

Events (``on_event``; every one a dict with ``type``):

* ``press`` — an accepted press: ``player``, ``index`` (the model's press number), ``plan`` (the FirePlan);
  this is the line ``unolauncher verify`` recomputes;
* ``fired`` — a run ended: ``player``, ``cards`` (counted), ``outcome``, ``ran_ms``, ``counted``;
* ``ignored_press`` — a press while the motor runs (the toy ignores rapid presses too);
* ``lockout`` — nobody may hit now (option ``lockout``): nothing fires;
* ``press_refused`` — the lid is open;
* ``lid_open`` / ``lid_closed`` (the lid restarts the ``sequence`` count), and the launcher's own ``jam``,
  ``magazine_empty``, ``max_run``, ``fault``, forwarded;
* ``ejection_start`` (``preset``, ``commitment``) from :meth:`PressHandler.start`, ``ejection_reveal`` (``seed``)
  from :meth:`PressHandler.reveal`.

Example::

    handler = PressHandler(launcher, EjectionModel("classic"), who_may_hit=referee.hitter,
                           on_hit=lambda player, plan, result: submit(player, result.cards_out),
                           on_event=journal_event)
    handler.start(seed=1234)   # emits ejection_start with sha256(seed)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from unolauncher.launcher.ejection import EjectionModel, commitment
from unolauncher.launcher.interface import EventCallback, FirePlan, FireResult, Launcher

log = logging.getLogger(__name__)

HitCallback = Callable[[str | None, FirePlan, FireResult], None]

_NO_FIRE = FireResult(0, 0, "no_fire")


class PressHandler:
    """Wires a :class:`Launcher`'s button to the ejection model and reports hits.

    ``who_may_hit()`` returns the player a press counts for, or ``None`` when no hit is allowed now; with
    ``lockout`` (default) such a press does nothing but emit ``lockout``, without it the launcher still fires and
    ``on_hit`` gets ``player=None``.

    Example::

        handler = PressHandler(launcher, EjectionModel("sequence"), lambda: "ann", on_hit, events.append)
        handler.start(7)
        handler.press()          # press 1 of the sequence: no fire -> on_hit("ann", plan, no_fire result)
    """

    def __init__(
        self,
        launcher: Launcher,
        model: EjectionModel,
        who_may_hit: Callable[[], str | None],
        on_hit: HitCallback,
        on_event: EventCallback,
        lockout: bool = True,
        seed: int | None = None,
        on_uno: Callable[[], None] | None = None,
    ) -> None:
        self.launcher = launcher
        self.model = model
        self.lockout = lockout
        self._who = who_may_hit
        self._on_hit = on_hit
        self._on_event = on_event
        self._on_uno = on_uno
        self._lock = threading.RLock()
        self._busy = False
        self._lid_open = False
        self._tension = 0
        self._indicate: Callable[[bool, int], None] | None = getattr(launcher, "indicate", None)
        self.state: dict[str, Any] = model.start(seed if seed is not None else 0)
        # The next press's plan, computed ahead while nothing is waiting (it is pure, so computing it early changes
        # nothing): (model, state it was planned from, plan, state after). Used only if both are still current.
        self._ahead: tuple[EjectionModel, dict[str, Any], FirePlan, dict[str, Any]] | None = None
        self.seed: int | None = seed
        launcher.on_press = self.press
        launcher.on_lid = self._lid
        launcher.on_event = self._emit  # the launcher's own events (jam, lid_open, ...) go out as they are
        launcher.on_uno = self._uno
        status = launcher.status()
        self._lid_open = status.lid_open
        self.plan_ahead()

    # ------------------------------------------------------------------ game boundaries

    def start(self, seed: int) -> dict[str, Any]:
        """A new game: fresh model state for ``seed``; emits and returns ``ejection_start`` with the commitment."""
        with self._lock:
            self.seed = seed
            self.state = self.model.start(seed)
        self.plan_ahead()
        event = {"type": "ejection_start", "preset": self.model.preset, "commitment": commitment(seed)}
        if "ms_per_card" in self.state:
            event["ms_per_card"] = self.state["ms_per_card"]  # a calibrated launcher: verify needs it
        self._emit(event)
        return event

    def reveal(self) -> dict[str, Any]:
        """Game over: emit and return the seed so anyone can run ``unolauncher verify``."""
        event = {"type": "ejection_reveal", "preset": self.model.preset, "seed": self.seed}
        self._emit(event)
        return event

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a saved model state (daemon restart)."""
        with self._lock:
            self.state = dict(state)
            self.seed = state.get("seed")
        self.plan_ahead()

    # ------------------------------------------------------------------ the press

    def press(self) -> None:
        """One debounced button press. Fast path: motor on first, everything else after."""
        if self._busy:
            self._emit({"type": "ignored_press"})
            return
        if self._lid_open:
            self._emit({"type": "press_refused", "reason": "lid_open", "message": "Close the lid to fire."})
            return
        # Asked outside our lock: the daemon answers under the referee's lock, and it may call start() while
        # holding that lock, so holding ours here could deadlock.
        player = self._who()
        if player is None and self.lockout:
            self._emit({"type": "lockout", "message": "Nobody may hit now."})
            return
        with self._lock:
            if self._busy:
                accepted = False
            else:
                state = self.state
                ahead = self._ahead
                if ahead is not None and ahead[0] is self.model and ahead[1] is state:
                    plan, next_state = ahead[2], ahead[3]
                else:
                    plan, next_state = self.model.plan(state)
                accepted = True
                if plan.fire:
                    self._busy = True
                    try:
                        accepted = self.launcher.fire(plan, lambda result: self._done(player, plan, result))
                    except BaseException:
                        self._busy = False
                        self.launcher.stop()
                        raise
                    if not accepted:
                        self._busy = False
                if accepted:
                    self.state = next_state
        # ---- the motor is on (if it should be); now the slower bookkeeping
        if not accepted:
            self._emit({"type": "ignored_press"})
            return
        # The event first: it starts the journal → MQTT path on the table's worker, which the LED and chime
        # (0.1 ms of pin writes and timers, measured by bench/daemon.py --legs) need not delay.
        self._emit({"type": "press", "player": player, "index": state["press"], "plan": plan.to_json()})
        self._feedback(chime=True)
        if not plan.fire:
            self._done(player, plan, _NO_FIRE)
        self.plan_ahead()

    def plan_ahead(self) -> None:
        """Plan the next press now, off the press→motor path (called after each press and state change)."""
        with self._lock:
            model, state = self.model, self.state
        plan, next_state = model.plan(state)
        with self._lock:
            if self.model is model and self.state is state:
                self._ahead = (model, state, plan, next_state)

    def _done(self, player: str | None, plan: FirePlan, result: FireResult) -> None:
        with self._lock:
            if plan.fire:
                self._busy = False
            self._tension = 0 if result.cards_out > 0 else self._tension + 1
        self._feedback(chime=False)
        if plan.fire:
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
        try:
            self._on_hit(player, plan, result)
        except Exception as exc:
            log.exception("on_hit failed")
            self._emit({"type": "fault", "reason": "callback", "message": f"on_hit failed: {exc}"})

    def _feedback(self, chime: bool) -> None:
        if self._indicate is not None:
            try:
                self._indicate(chime, self._tension)
            except Exception:
                log.exception("launcher feedback failed")

    # ------------------------------------------------------------------ other inputs

    def _lid(self, is_open: bool) -> None:
        with self._lock:
            self._lid_open = is_open
            if is_open:
                self.state = self.model.lid_opened(self.state)
        self.plan_ahead()
        # lid_open / lid_closed events come from the launcher itself (its on_event is our _emit)

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
