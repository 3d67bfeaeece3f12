"""The GPIO launcher's state machine: runs (suspense, eject, settle, retract), card counts, magazine, jam, lid.

Which thread: :meth:`RunControl.fire`, :meth:`~RunControl.stop` and :meth:`~RunControl.set_magazine` run on the
caller's thread (the press path, the table worker, a signal handler); the phase timers and the lid's debounce on
the clock's timer thread (through :func:`~unolauncher.launcher.backends.gpio.entry.guarded`); :meth:`~RunControl.card`
and :meth:`~RunControl.lid_edge` on gpiozero's callback thread, called by
:class:`~unolauncher.launcher.backends.gpio.inputs.GpioInputs`. Every change is made under :attr:`RunControl.lock`;
``done``, events and ``on_lid`` are called outside it. The motor itself is only ever switched by the
:class:`~unolauncher.launcher.backends.gpio.motor_guard.MotorGuard`, whose own thread holds each "on"'s deadline.

A run (one accepted fire):

1. optional suspense delay, motor still off;
2. **eject**: *closed loop* (beam sensor fitted): run until ``plan.cards`` cards were counted; if no card comes for
   ``jam_timeout_s`` while cards are expected, stop with ``jam`` (or ``empty`` when the magazine is believed empty,
   or nothing came out of a magazine of unknown size). *Open loop*: run ``plan.run_ms`` at ``plan.power``. Either
   way the run stops after ``max_run_s``;
3. **settle**: motor off (braked when a retract follows: the brake before a reversal); cards still passing the
   beam are counted (the hitter takes them too);
4. **retract**: motor reversed briefly so the next card is pulled back, as the toy does;
5. **brake**: braked for :data:`~unolauncher.launcher.backends.gpio.settings.BRAKE_MS` so the next run's forward
   never meets a motor still turning backwards; then off (coast) and ``done``.

A start waits until the motor guard's reversal gap has passed (a manual reverse just before, say): the run stays
in its suspense phase that much longer.

Example (not a doctest: a part of GpioLauncher, which builds the devices and the guard)::

    runs = RunControl(DeviceSettings(), clock, guard, has_sensor=True, lid_level_open=lambda: False, emit=print)
    runs.fire(FirePlan(fire=True, cards=2), print)  # the guard switches the motor on
    runs.card()
    runs.card()  # two cards through the beam: settle, retract, done
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.backends.gpio.entry import guarded
from unolauncher.launcher.backends.gpio.motor_guard import MotorGuard
from unolauncher.launcher.backends.gpio.settings import BRAKE_MS, DeviceSettings
from unolauncher.launcher.events import done_callback_fault, empty_event, jam_event, lid_open_fault, max_run_event
from unolauncher.launcher.interface import DoneCallback, FirePlan, FireResult, LidCallback, Outcome

log = logging.getLogger("unolauncher.launcher.backends.gpio")  # one logger name for the whole backend

RETRACT_AFTER = ("ok",)  # a run that ended normally; after any other outcome (max_run, jam, empty, stopped) no retract


class Run:
    """One accepted fire, from suspense to retract (changed under :attr:`RunControl.lock` only)."""

    __slots__ = (
        "detail",
        "done",
        "jam_timer",
        "max_timer",
        "outcome",
        "phase",
        "plan",
        "ran_ms",
        "stage_timer",
        "started",
    )

    def __init__(self, plan: FirePlan, done: DoneCallback) -> None:
        self.plan = plan
        self.done = done
        self.phase = "suspense"
        self.started = 0.0
        self.ran_ms = 0
        self.outcome: Outcome = "ok"
        self.detail = ""
        self.jam_timer: TimerHandle | None = None
        self.max_timer: TimerHandle | None = None
        self.stage_timer: TimerHandle | None = None

    def cancel_timers(self) -> None:
        for timer in (self.jam_timer, self.max_timer, self.stage_timer):
            if timer is not None:
                timer.cancel()


class RunControl:
    """The run in progress and what it depends on: magazine, jam, the lid (raw and debounced), counts."""

    def __init__(
        self,
        settings: DeviceSettings,
        clock: Clock,
        guard: MotorGuard,
        *,
        has_sensor: bool,
        lid_level_open: Callable[[], bool],
        emit: Callable[[dict[str, Any]], None],
    ) -> None:
        self.settings = settings
        self.has_sensor = has_sensor
        self.on_lid: LidCallback | None = None
        self.lock = threading.RLock()
        self._clock = clock
        self._guard = guard
        self._lid_level_open = lid_level_open
        self._emit = emit
        self._run: Run | None = None
        self._closed = False
        self.jammed = False
        self.magazine = settings.magazine
        self._count = 0
        self.cards_counted = 0  # every counted card, for the dashboard
        self.stray_cards = 0  # beam breaks with no run in progress (hands in the slot, cards pulled out)
        self.lid_open_reported = self.lid_raw_open = lid_level_open()  # debounced (events, status) / last edge (safety)
        self._lid_timer: TimerHandle | None = None
        guard.set_interlock("lid", self.lid_raw_open)

    @property
    def run(self) -> Run | None:
        return self._run

    def motor_off(self) -> None:
        """Motor off now (through the guard: enable first, its deadline dropped)."""
        self._guard.off()

    def set_magazine(self, cards: int | None) -> None:
        with self.lock:
            self.magazine = cards
            if cards:
                self.jammed = False

    # ------------------------------------------------------------------ fire (caller's thread)

    def fire(self, plan: FirePlan, done: DoneCallback) -> bool:
        """Start a run for ``plan``; ``False`` when refused (see :meth:`GpioLauncher.fire`)."""
        lid_refused = False
        with self.lock:
            if self._run is not None or self._closed or self._guard.refusal() in ("disabled", "halted"):
                return False
            if not plan.fire:
                result: FireResult | None = FireResult(0, 0, "no_fire")
            elif self.lid_unsafe() or self._guard.engaged("lid"):  # the guard's: until closed for the debounce
                result = None
                lid_refused = True
            else:
                result = None
                run = Run(plan, done)
                self._run = run
                if plan.suspense_ms > 0:
                    run.stage_timer = self._clock.call_later(plan.suspense_ms / 1000, lambda: self._start(run))
                else:
                    self._start_locked(run)
        if lid_refused:
            self._emit(lid_open_fault())
            return False
        if result is not None:
            self._call_done(done, result)
        return True

    # ------------------------------------------------------------------ phases (timer thread)

    @guarded
    def _start(self, run: Run) -> None:
        with self.lock:
            if self._run is run and run.phase == "suspense":
                if self.lid_unsafe():
                    self._finish_eject_locked(run, "stopped", "lid opened during suspense")
                else:
                    self._start_locked(run)

    def _start_locked(self, run: Run) -> None:
        wait_s = self._guard.gap_left(True)
        if wait_s > 0:  # the motor turned the other way a moment ago: the guard would refuse; wait out the gap
            run.stage_timer = self._clock.call_later(wait_s, lambda: self._start(run))
            return
        plan = run.plan
        run.phase = "eject"
        run.started = self._clock.now()
        self._count = 0
        max_s = self.settings.max_run_s
        run_s = max_s if self.has_sensor else min(plan.run_ms / 1000, max_s)
        if run_s <= 0:  # an open-loop plan of no time: nothing to run
            self._finish_eject_locked(run, "ok")
            return
        try:
            # The guard's deadline is the phase's own end: the timers below normally come first.
            started = self._guard.run(True, False, min(1.0, max(0.05, plan.power)), run_s)
        except BaseException:
            self._guard.off()
            self._run = None
            raise
        if not started:
            refusal = self._guard.refusal()
            self._finish_eject_locked(run, "stopped", f"the motor guard refused ({refusal})" if refusal else "")
            return
        if self.has_sensor:
            if plan.cards <= 0:
                self._finish_eject_locked(run, "ok")
                return
            run.jam_timer = self._clock.call_later(self.settings.jam_timeout_s, lambda: self._jam_timeout(run))
            run.max_timer = self._clock.call_later(max_s, lambda: self._max_run(run))
        elif plan.run_ms / 1000 > max_s:
            run.max_timer = self._clock.call_later(max_s, lambda: self._max_run(run))
        else:
            run.max_timer = self._clock.call_later(run_s, lambda: self._open_loop_end(run))

    @guarded
    def _jam_timeout(self, run: Run) -> None:
        with self.lock:
            if self._run is not run or run.phase != "eject":
                return
            expected = self._count > 0 if self.magazine is None else self.magazine > 0
            if expected:
                self.jammed = True
                event = jam_event(self._count, run.plan.cards)
                self._finish_eject_locked(run, "jam")
            else:
                self.magazine = 0
                event = empty_event(self._count)
                self._finish_eject_locked(run, "empty")
        self._emit(event)

    @guarded
    def _max_run(self, run: Run) -> None:
        with self.lock:
            if self._run is not run or run.phase != "eject":
                return
            self._finish_eject_locked(run, "max_run", f"motor stopped after the {self.settings.max_run_s:g} s limit")
        self._emit(max_run_event(self.settings.max_run_s, self._count))

    @guarded
    def _open_loop_end(self, run: Run) -> None:
        with self.lock:
            if self._run is run and run.phase == "eject":
                self._finish_eject_locked(run, "ok")

    def _finish_eject_locked(self, run: Run, outcome: Outcome, detail: str = "") -> None:
        if outcome in RETRACT_AFTER and self.settings.retract_ms > 0 and self.settings.retract_power > 0:
            self._guard.brake()  # a reversal follows: braked through the settle time (>= BRAKE_MS), not coasting
        else:
            self._guard.off()
        run.cancel_timers()
        run.ran_ms = round((self._clock.now() - run.started) * 1000) if run.phase == "eject" else 0
        run.outcome = outcome
        run.phase = "settle"
        run.detail = detail
        run.stage_timer = self._clock.call_later(self.settings.settle_ms / 1000, lambda: self._retract(run))

    def retract_s(self, run: Run) -> float:
        """How long this run's retract may drive the motor: none after a forced stop (max run, jam, empty, a stop or a
        fault: whatever forced the motor off must not see it driven again), and never past the
        run's own time limit (``max_run_s`` from the eject's start)."""
        if run.outcome not in RETRACT_AFTER:
            return 0.0
        left = self.settings.max_run_s - (self._clock.now() - run.started)
        return max(0.0, min(self.settings.retract_ms / 1000, left))

    @guarded
    def _retract(self, run: Run) -> None:
        with self.lock:
            if self._run is not run or run.phase != "settle":
                return
            retract_s = self.retract_s(run)
            power = self.settings.retract_power
            if retract_s > 0 and power > 0 and self._guard.run(False, True, power, retract_s):  # refused: lid open
                run.phase = "retract"
                run.stage_timer = self._clock.call_later(retract_s, lambda: self._brake_after_retract(run))
                return
        self._complete(run)

    @guarded
    def _brake_after_retract(self, run: Run) -> None:
        with self.lock:
            if self._run is not run or run.phase != "retract":
                return
            self._guard.brake()
            run.phase = "brake"
            run.stage_timer = self._clock.call_later(BRAKE_MS / 1000, lambda: self._complete(run))

    @guarded
    def _complete(self, run: Run) -> None:
        with self.lock:
            if self._run is not run:
                return
            self._guard.off()
            self._run = None
            result = self._result_locked(run)
        self._call_done(run.done, result)

    def _result_locked(self, run: Run) -> FireResult:
        if self.has_sensor:
            return FireResult(self._count, run.ran_ms, run.outcome, True, run.detail)
        estimate = run.plan.cards if run.outcome == "ok" else 0
        if self.magazine is not None and run.outcome == "ok":
            self.magazine = max(0, self.magazine - estimate)
        return FireResult(estimate, run.ran_ms, run.outcome, False, run.detail)

    def _call_done(self, done: DoneCallback, result: FireResult) -> None:
        try:
            done(result)
        except Exception as exc:  # the motor is already off; report, never propagate into gpiozero/timers
            log.exception("launcher done callback failed")
            self._emit(done_callback_fault(exc))

    # ------------------------------------------------------------------ ending a run early (any thread)

    @guarded
    def abort_disabled(self) -> None:
        """The emergency stop's bookkeeping, on the timer thread (the motor went off on the caller's)."""
        self.abort("stopped", "launcher disabled")

    def abort(self, outcome: Outcome, detail: str) -> None:
        """Motor off now; the run in progress (if any) ends with ``outcome`` and its ``done`` is called."""
        with self.lock:
            self._guard.off()
            run = self._run
            self._run = None
            if run is None:
                return
            run.cancel_timers()
            if run.phase == "eject":
                run.ran_ms = round((self._clock.now() - run.started) * 1000)
            if run.phase in ("suspense", "eject"):
                run.outcome = outcome
            run.detail = detail
            result = self._result_locked(run)
        self._call_done(run.done, result)

    def fault(self, message: str) -> None:
        """Last line of defence: motor off, the run (if any) ends as ``fault``, a ``fault`` event."""
        self._guard.off()
        log.error("launcher fault: %s", message)
        try:
            self.abort("fault", message)
        finally:
            self._guard.off()
            self._emit({"type": "fault", "reason": "exception", "message": message})

    def close(self) -> None:
        """Abort the run in progress; later fires are refused and a pending lid debounce does nothing."""
        try:
            self.abort("stopped", "launcher closed")
        finally:
            self._closed = True

    # ------------------------------------------------------------------ inputs (gpiozero's callback thread)

    def card(self) -> None:
        """A card passed the beam (already through the glitch filter)."""
        with self.lock:
            run = self._run
            if run is None or run.phase not in ("eject", "settle"):
                self.stray_cards += 1
                return
            self._count += 1
            self.cards_counted += 1
            if self.magazine is not None:
                self.magazine = max(0, self.magazine - 1)
            self.jammed = False
            if run.phase == "eject":
                if self._count >= run.plan.cards:
                    self._finish_eject_locked(run, "ok")
                else:
                    if run.jam_timer is not None:
                        run.jam_timer.cancel()
                    run.jam_timer = self._clock.call_later(self.settings.jam_timeout_s, lambda: self._jam_timeout(run))

    def lid_unsafe(self) -> bool:
        """The lid is (or may just have been) opened: the motor must not run forward."""
        return self.lid_open_reported or self.lid_raw_open

    def lid_edge(self, is_open: bool) -> None:
        """The lid switch changed level; reported once stable for ``lid_debounce_ms``."""
        self.lid_raw_open = is_open
        if is_open:
            # Safety first, before any debounce: fingers may be in the slot. Motor off, and no "on" until closed.
            self._guard.set_interlock("lid", True)
            with self.lock:
                run = self._run
            if run is not None and run.phase in ("suspense", "eject"):
                self.abort("stopped", "lid opened")
        with self.lock:
            if self._lid_timer is not None:
                self._lid_timer.cancel()
            self._lid_timer = self._clock.call_later(self.settings.lid_debounce_ms / 1000, self._lid_settled)

    @guarded
    def _lid_settled(self) -> None:
        with self.lock:
            if self._closed:
                return
            self._lid_timer = None
            is_open = self._lid_level_open()
            changed = is_open != self.lid_open_reported
            self.lid_open_reported = is_open
            self._guard.set_interlock("lid", self.lid_unsafe())  # released once closed for the whole debounce
            if not changed:
                return
            if is_open:
                self.magazine = self.settings.magazine  # refill: the estimate starts over
                self.jammed = False
        self._emit({"type": "lid_open" if is_open else "lid_closed"})
        if self.on_lid is not None:
            self.on_lid(is_open)
