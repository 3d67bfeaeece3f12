"""The launcher on GPIO pins through gpiozero: motor driver, button, card-exit beam, lid, UNO button, LED, buzzer.

The pin factory is passed in (real ``lgpio`` pins on a Pi, ``MockFactory`` pins under the virtual launcher and in
tests); nothing here touches ``Device.pin_factory``. Time comes from the injected :class:`~unolauncher.clock.Clock`.

A run (one accepted :meth:`GpioLauncher.fire`):

1. optional suspense delay, motor still off;
2. **eject**: direction pins set, then the PWM enable pin switched on (in that order, so the driver never sees a
   half-set direction). *Closed loop* (beam sensor fitted): run until ``plan.cards`` falling edges were counted;
   if no card comes for ``jam_timeout_s`` while cards are expected, stop with ``jam`` (or ``empty`` when the
   magazine is believed empty, or nothing came out of a magazine of unknown size). *Open loop*: run
   ``plan.run_ms`` at ``plan.power``. Either way the device stops the motor after ``max_run_s``;
3. **settle**: motor off; cards still passing the beam are counted (the hitter takes them too);
4. **retract**: motor reversed briefly so the next card is pulled back, as the toy does; then off and ``done``.

Safety: the motor is off after construction, after :meth:`stop`/:meth:`close`, when the lid opens, while the launcher
is disabled (:meth:`set_enabled`), and on every exception path (each callback entry point is guarded and switches the
motor off before reporting a ``fault``). Every pin write that could start the motor goes through the
:class:`~unolauncher.launcher.backends.gpio.motor_guard.MotorGuard`, which holds a deadline for each "on" and keeps it
on a thread of its own, so a stuck timer thread cannot keep the motor running past its limit.

The card beam ignores a falling edge closer than ``beam_min_gap_ms`` (4 ms, as the co-processor firmware) to the
last card it counted: a flicker of the beam as one card passes is one card, not two.

Example::

    from gpiozero.pins.mock import MockFactory, MockPWMPin
    launcher = GpioLauncher(MockFactory(pin_class=MockPWMPin), VirtualClock())
    launcher.fire(FirePlan(fire=True, cards=3), print)     # motor pin goes high before fire() returns
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from gpiozero import DigitalInputDevice, DigitalOutputDevice, PWMOutputDevice

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.backends.gpio.feedback import Feedback
from unolauncher.launcher.backends.gpio.motor_guard import MotorGuard
from unolauncher.launcher.events import done_callback_fault, empty_event, jam_event, lid_open_fault, max_run_event
from unolauncher.launcher.interface import (
    DoneCallback,
    EventCallback,
    FirePlan,
    FireResult,
    LauncherStatus,
    LidCallback,
    Outcome,
    PressCallback,
    require_in_range,
)
from unolauncher.launcher.pins import DEFAULT_PINS, PinMap
from unolauncher.progress import Progress

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


GUARD_REALTIME_PRIORITY = 20  # SCHED_FIFO for the motor guard's thread (systemd/unolauncher.service: LimitRTPRIO)
MIN_COAST_MS = 40  # the shortest coast before a reversal (the firmware's COAST_MS; hardware/README.md)


@dataclass(frozen=True)
class DeviceSettings:
    """Timing and safety limits of the physical launcher.

    Example::

        DeviceSettings(jam_timeout_s=1.0, max_run_s=4.0, magazine=40)
    """

    jam_timeout_s: float = 1.5  # no card for this long while cards are expected -> jam (or empty)
    max_run_s: float = 6.0  # hard limit on one eject phase, whatever the plan says
    settle_ms: int = 40  # after the motor stops, late cards still count
    retract_ms: int = 120  # reverse pulse that pulls the next card back (0 = no retract)
    retract_power: float = 0.6
    debounce_ms: int = 30  # button/UNO: edges this close to the previous edge are contact bounce
    lid_debounce_ms: int = 50  # lid: reported once its level has been stable this long
    beam_min_gap_ms: int = 4  # beam: a falling edge this close to the last counted card is a glitch (as the firmware)
    magazine: int | None = None  # cards believed loaded after a refill (lid opened); None = unknown
    pwm_frequency: int = 1000

    def __post_init__(self) -> None:
        checks = [
            ("jam_timeout_s", 0.05 <= self.jam_timeout_s <= 60),
            ("max_run_s", 0.1 <= self.max_run_s <= 60),
            # The settle time is also the coast gap before the retract reverses the motor: reversing a spinning
            # motor at once draws up to its stall current through the driver (the firmware's COAST_MS is 40 too).
            ("settle_ms", (MIN_COAST_MS if self.retract_ms > 0 else 0) <= self.settle_ms <= 2000),
            ("retract_ms", 0 <= self.retract_ms <= 2000),
            ("retract_power", 0.0 <= self.retract_power <= 1.0),
            ("debounce_ms", 0 <= self.debounce_ms <= 1000),
            ("lid_debounce_ms", 0 <= self.lid_debounce_ms <= 2000),
            ("beam_min_gap_ms", 0 <= self.beam_min_gap_ms <= 100),
            ("magazine", self.magazine is None or 0 <= self.magazine <= 500),
            ("pwm_frequency", 10 <= self.pwm_frequency <= 100_000),
        ]
        require_in_range("launcher", self, checks)


class _Run:
    """One accepted fire, from suspense to retract."""

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


def _guarded(method: Callable[P, R]) -> Callable[P, R | None]:
    """Entry points from gpiozero and the clock: any exception switches the motor off and is reported."""

    @wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            self = args[0]
            assert isinstance(self, GpioLauncher)
            self._fault(f"{method.__name__}: {type(exc).__name__}: {exc}")
            return None

    return wrapper


def _input(method: Callable[P, R]) -> Callable[P, R | None]:
    """Entry points for input edges (gpiozero's callback thread): guarded, and timed for the watchdog."""

    @wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
        self = args[0]
        assert isinstance(self, GpioLauncher)
        outer = self._inputs.begin()  # on the press path: no context-manager object
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            self._fault(f"{method.__name__}: {type(exc).__name__}: {exc}")
            return None
        finally:
            self._inputs.end(outer)

    return wrapper


class GpioLauncher:
    """The launcher on gpiozero devices; implements :class:`~unolauncher.launcher.interface.Launcher`.

    Example::

        factory = MockFactory(pin_class=MockPWMPin)
        clock = VirtualClock()
        launcher = GpioLauncher(factory, clock, DEFAULT_PINS, DeviceSettings(magazine=40))
        launcher.on_press = lambda: launcher.fire(FirePlan(fire=True, cards=2), print)
        factory.pin(17).drive_low()      # button press: motor on
        sensor = factory.pin(27)
        for _ in range(2):               # two cards pass the beam: motor off, retract, done
            sensor.drive_low(); sensor.drive_high()
        clock.advance(1.0)
        launcher.close()
    """

    def __init__(
        self,
        pin_factory: Any,
        clock: Clock,
        pins: PinMap = DEFAULT_PINS,
        settings: DeviceSettings | None = None,
        backend: str = "gpio",
    ) -> None:
        self.on_press: PressCallback | None = None
        self.on_uno: PressCallback | None = None
        self.on_lid: LidCallback | None = None
        self.on_event: EventCallback | None = None
        self.backend = backend
        self.pins = pins
        self.settings = settings or DeviceSettings()
        self._clock = clock
        self._lock = threading.RLock()
        self._run: _Run | None = None
        self._closed = False
        self._jammed = False
        self._magazine = self.settings.magazine
        self._last_button_edge = -1e9
        self._last_uno_edge = -1e9
        self._last_card_edge = -1e9
        self._inputs = Progress()  # edge callbacks still running, for health()
        self._lid_open_reported = False  # debounced: what events and the status say
        self._lid_raw_open = False  # the level at the last edge: what safety decisions use, without waiting
        self._lid_timer: TimerHandle | None = None
        self.cards_counted = 0  # every counted card, for the dashboard
        self.stray_cards = 0  # beam breaks with no run in progress (hands in the slot, cards pulled out)
        self.bounces = 0  # button edges dropped by the debounce
        self.beam_glitches = 0  # beam edges dropped by the glitch filter
        self._count = 0
        self._devices: list[Any] = []
        self._sensor: DigitalInputDevice | None = None
        self._lid: DigitalInputDevice | None = None
        self._uno: DigitalInputDevice | None = None
        led: DigitalOutputDevice | None = None
        buzzer: DigitalOutputDevice | None = None
        factory = pin_factory
        try:
            # Outputs first and off: the driver inputs are low before any input can trigger a callback.
            self._enable = self._add(
                PWMOutputDevice(
                    pins.motor_enable, initial_value=0, frequency=self.settings.pwm_frequency, pin_factory=factory
                )
            )
            self._forward = self._add(DigitalOutputDevice(pins.motor_forward, initial_value=False, pin_factory=factory))
            self._reverse = self._add(DigitalOutputDevice(pins.motor_reverse, initial_value=False, pin_factory=factory))
            if pins.led is not None:
                led = self._add(DigitalOutputDevice(pins.led, initial_value=False, pin_factory=factory))
            if pins.buzzer is not None:
                buzzer = self._add(DigitalOutputDevice(pins.buzzer, initial_value=False, pin_factory=factory))
            # The guard writes the driver pins directly (no gpiozero locks or blink-thread checks); nothing else does.
            self._en_pin = self._enable.pin
            # Its own thread, raised to real-time priority where allowed: on a busy Pi its deadline is not late.
            self._guard_clock = clock.separate("motor-guard", realtime_priority=GUARD_REALTIME_PRIORITY)
            self._guard = MotorGuard(self._en_pin, self._forward.pin, self._reverse.pin, self._guard_clock)
            # DigitalInputDevice, not Button: Button starts a hold-watching thread per switch that we do not need.
            self._button = self._add(
                DigitalInputDevice(pins.button, pull_up=True, bounce_time=None, pin_factory=factory)
            )
            if pins.sensor is not None:
                self._sensor = self._add(DigitalInputDevice(pins.sensor, pull_up=True, pin_factory=factory))
            if pins.lid is not None:
                self._lid = self._add(DigitalInputDevice(pins.lid, pull_up=True, bounce_time=None, pin_factory=factory))
            if pins.uno is not None:
                self._uno = self._add(DigitalInputDevice(pins.uno, pull_up=True, bounce_time=None, pin_factory=factory))
        except BaseException:
            self.close()
            raise
        self.feedback = Feedback(led, buzzer, clock)
        self._lid_open_reported = self._lid_raw_open = self._lid_level_open()
        self._guard.set_interlock("lid", self._lid_raw_open)
        self._button.when_activated = self._button_pressed
        self._button.when_deactivated = self._button_released
        if self._sensor is not None:
            self._sensor.when_activated = self._card  # falling edge: beam broken by a card
        if self._lid is not None:
            self._lid.when_activated = self._lid_edge
            self._lid.when_deactivated = self._lid_edge
        if self._uno is not None:
            self._uno.when_activated = self._uno_pressed

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    # ------------------------------------------------------------------ properties

    @property
    def has_sensor(self) -> bool:
        return self._sensor is not None

    @property
    def running(self) -> bool:
        return self._run is not None

    @property
    def motor_on(self) -> bool:
        if self._closed:
            return False
        return bool(self._en_pin.state)

    @property
    def lid_open(self) -> bool:
        return self._lid_open_reported

    @property
    def enabled(self) -> bool:
        return not self._guard.engaged("disabled")

    @property
    def magazine_estimate(self) -> int | None:
        return self._magazine

    def set_magazine(self, cards: int | None) -> None:
        """Tell the launcher how many cards were loaded (e.g. after a reload, ATK-21)."""
        with self._lock:
            self._magazine = cards
            if cards:
                self._jammed = False

    def status(self) -> LauncherStatus:
        run = self._run
        return LauncherStatus(
            backend=self.backend,
            motor_on=self.motor_on,
            running=run is not None,
            lid_open=self._lid_open_reported,
            magazine_estimate=self._magazine,
            jammed=self._jammed,
            has_sensor=self.has_sensor,
            enabled=self.enabled,
            extra={
                "phase": run.phase if run else "idle",
                "cards_counted": self.cards_counted,
                "stray_cards": self.stray_cards,
                "bounces": self.bounces,
                "beam_glitches": self.beam_glitches,
                "guard_trips": self._guard.trips,
                "guard_realtime": self._guard_clock.realtime,
                "tension": self.feedback.tension,
            },
        )

    def health(self, now: float, deadline_s: float) -> list[str]:
        """What keeps the launcher's threads from progressing (empty when nothing does): an input edge callback
        running longer than ``deadline_s``, or the motor guard's thread not keeping its deadlines."""
        problems = []
        stuck = self._inputs.stuck_for(now)
        if stuck > deadline_s:
            problems.append(f"a GPIO input callback has been running for {stuck:.1f} s")
        guard = self._guard.health(now, deadline_s)
        if guard is not None:
            problems.append(guard)
        return problems

    def indicate(self, chime: bool, tension: int) -> None:
        """Press feedback (see :mod:`unolauncher.launcher.backends.gpio.feedback`); called by the press handler. A
        no-op for an LED or buzzer whose pin is not fitted (``-1`` in the pin map)."""
        if chime:
            self.feedback.chime()
        if tension != self.feedback.tension:
            self.feedback.set_tension(tension)

    # ------------------------------------------------------------------ motor

    def _motor_off(self) -> None:
        guard = getattr(self, "_guard", None)  # None only when building the devices failed before the guard existed
        if guard is not None:
            guard.off()

    def set_enabled(self, enabled: bool) -> None:
        """The emergency stop: ``False`` switches the motor off at once on the calling thread (waiting for nothing
        but the motor guard) and refuses every fire until ``set_enabled(True)``. A run in progress ends as
        ``stopped``; its ``done`` runs on the timer thread, so the caller (a signal handler, MQTT's thread) never
        waits for whatever ``done`` does."""
        self._guard.set_interlock("disabled", not enabled)
        if not enabled and self._run is not None:
            self._clock.call_later(0.0, self._abort_disabled)

    @_guarded
    def _abort_disabled(self) -> None:
        self._abort("stopped", "launcher disabled")

    def drive_motor(self, direction: str, power: float = 0.5) -> bool:
        """Drive the motor by hand (``forward``, ``reverse`` or ``off``) while no run is in progress (selftest),
        for ``max_run_s`` at most; ``False`` when the motor guard refuses (lid open, disabled)."""
        with self._lock:
            if self._run is not None:
                raise RuntimeError("a run is in progress; the motor cannot be driven by hand now")
            if direction not in ("forward", "reverse", "off"):
                raise ValueError(f"direction must be forward, reverse or off, got {direction!r}")
            if not 0.0 <= power <= 1.0:
                raise ValueError(f"power must be between 0 and 1, got {power!r}")
            if direction == "off" or power == 0.0:
                self._motor_off()
                return True
            return self._guard.run(direction == "forward", direction == "reverse", power, self.settings.max_run_s)

    # ------------------------------------------------------------------ fire

    def fire(self, plan: FirePlan, done: DoneCallback) -> bool:
        """Start a run for ``plan``; ``False`` when refused: a run is in progress, or the lid is (being) opened.

        A refused press fires nothing and ``done`` is not called; the caller reports it (``ignored_press``).
        """
        lid_refused = False
        with self._lock:
            if self._run is not None or self._closed or self._guard.refusal() in ("disabled", "halted"):
                return False
            if not plan.fire:
                result: FireResult | None = FireResult(0, 0, "no_fire")
            elif self._lid_unsafe() or self._guard.engaged("lid"):  # the guard's: until closed for the debounce
                result = None
                lid_refused = True
            else:
                result = None
                run = _Run(plan, done)
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

    @_guarded
    def _start(self, run: _Run) -> None:
        with self._lock:
            if self._run is run and run.phase == "suspense":
                if self._lid_unsafe():
                    self._finish_eject_locked(run, "stopped", "lid opened during suspense")
                else:
                    self._start_locked(run)

    def _start_locked(self, run: _Run) -> None:
        plan = run.plan
        run.phase = "eject"
        run.started = self._clock.now()
        self._count = 0
        max_s = self.settings.max_run_s
        run_s = max_s if self._sensor is not None else min(plan.run_ms / 1000, max_s)
        if run_s <= 0:  # an open-loop plan of no time: nothing to run
            self._finish_eject_locked(run, "ok")
            return
        try:
            # The guard's deadline is the phase's own end: the timers below normally come first.
            started = self._guard.run(True, False, min(1.0, max(0.05, plan.power)), run_s)
        except BaseException:
            self._motor_off()
            self._run = None
            raise
        if not started:
            refusal = self._guard.refusal()
            self._finish_eject_locked(run, "stopped", f"the motor guard refused ({refusal})" if refusal else "")
            return
        if self._sensor is not None:
            if plan.cards <= 0:
                self._finish_eject_locked(run, "ok")
                return
            run.jam_timer = self._clock.call_later(self.settings.jam_timeout_s, lambda: self._jam_timeout(run))
            run.max_timer = self._clock.call_later(max_s, lambda: self._max_run(run))
        elif plan.run_ms / 1000 > max_s:
            run.max_timer = self._clock.call_later(max_s, lambda: self._max_run(run))
        else:
            run.max_timer = self._clock.call_later(run_s, lambda: self._open_loop_end(run))

    @_input
    def _card(self) -> None:
        now = self._clock.now()
        if now - self._last_card_edge < self.settings.beam_min_gap_ms / 1000:
            self.beam_glitches += 1  # the beam flickered as a card passed: that card was counted already
            return
        self._last_card_edge = now
        with self._lock:
            run = self._run
            if run is None or run.phase not in ("eject", "settle"):
                self.stray_cards += 1
                return
            self._count += 1
            self.cards_counted += 1
            if self._magazine is not None:
                self._magazine = max(0, self._magazine - 1)
            self._jammed = False
            if run.phase == "eject":
                if self._count >= run.plan.cards:
                    self._finish_eject_locked(run, "ok")
                else:
                    if run.jam_timer is not None:
                        run.jam_timer.cancel()
                    run.jam_timer = self._clock.call_later(self.settings.jam_timeout_s, lambda: self._jam_timeout(run))

    @_guarded
    def _jam_timeout(self, run: _Run) -> None:
        with self._lock:
            if self._run is not run or run.phase != "eject":
                return
            expected = self._count > 0 if self._magazine is None else self._magazine > 0
            if expected:
                self._jammed = True
                event = jam_event(self._count, run.plan.cards)
                self._finish_eject_locked(run, "jam")
            else:
                self._magazine = 0
                event = empty_event(self._count)
                self._finish_eject_locked(run, "empty")
        self._emit(event)

    @_guarded
    def _max_run(self, run: _Run) -> None:
        with self._lock:
            if self._run is not run or run.phase != "eject":
                return
            self._finish_eject_locked(run, "max_run", f"motor stopped after the {self.settings.max_run_s:g} s limit")
        self._emit(max_run_event(self.settings.max_run_s, self._count))

    @_guarded
    def _open_loop_end(self, run: _Run) -> None:
        with self._lock:
            if self._run is run and run.phase == "eject":
                self._finish_eject_locked(run, "ok")

    def _finish_eject_locked(self, run: _Run, outcome: Outcome, detail: str = "") -> None:
        self._motor_off()
        run.cancel_timers()
        run.ran_ms = round((self._clock.now() - run.started) * 1000) if run.phase == "eject" else 0
        run.outcome = outcome
        run.phase = "settle"
        run.detail = detail
        run.stage_timer = self._clock.call_later(self.settings.settle_ms / 1000, lambda: self._retract(run))

    @_guarded
    def _retract(self, run: _Run) -> None:
        with self._lock:
            if self._run is not run or run.phase != "settle":
                return
            retract_s = self.settings.retract_ms / 1000
            power = self.settings.retract_power
            if retract_s > 0 and power > 0 and self._guard.run(False, True, power, retract_s):  # refused: lid open
                run.phase = "retract"
                run.stage_timer = self._clock.call_later(retract_s, lambda: self._complete(run))
                return
        self._complete(run)

    @_guarded
    def _complete(self, run: _Run) -> None:
        with self._lock:
            if self._run is not run:
                return
            self._motor_off()
            self._run = None
            result = self._result_locked(run)
        self._call_done(run.done, result)

    def _result_locked(self, run: _Run) -> FireResult:
        if self._sensor is not None:
            return FireResult(self._count, run.ran_ms, run.outcome, True, run.detail)
        estimate = run.plan.cards if run.outcome == "ok" else 0
        if self._magazine is not None and run.outcome == "ok":
            self._magazine = max(0, self._magazine - estimate)
        return FireResult(estimate, run.ran_ms, run.outcome, False, run.detail)

    def _call_done(self, done: DoneCallback, result: FireResult) -> None:
        try:
            done(result)
        except Exception as exc:  # the motor is already off; report, never propagate into gpiozero/timers
            log.exception("launcher done callback failed")
            self._emit(done_callback_fault(exc))

    def stop(self) -> None:
        """Abort the run in progress (motor off now; ``done`` gets outcome ``stopped``)."""
        self._abort("stopped", "stopped on request")

    def _abort(self, outcome: Outcome, detail: str) -> None:
        with self._lock:
            self._motor_off()
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

    def _fault(self, message: str) -> None:
        """Last line of defence: motor off, the run (if any) ends as ``fault``, a ``fault`` event."""
        self._motor_off()
        log.error("launcher fault: %s", message)
        try:
            self._abort("fault", message)
        finally:
            self._motor_off()
            self._emit({"type": "fault", "reason": "exception", "message": message})

    # ------------------------------------------------------------------ inputs

    @_input
    def _button_pressed(self) -> None:
        now = self._clock.now()
        if now - self._last_button_edge < self.settings.debounce_ms / 1000:
            self._last_button_edge = now
            self.bounces += 1
            return
        self._last_button_edge = now
        callback = self.on_press
        if callback is not None:
            try:
                callback()
            except Exception:
                self._motor_off()  # a broken press path must not leave the motor running
                raise

    def _button_released(self) -> None:
        self._last_button_edge = self._clock.now()

    @_input
    def _uno_pressed(self) -> None:
        now = self._clock.now()
        if now - self._last_uno_edge < self.settings.debounce_ms / 1000:
            self.bounces += 1
            return
        self._last_uno_edge = now
        if self.on_uno is not None:
            self.on_uno()

    def _lid_level_open(self) -> bool:
        return self._lid is not None and not self._lid.is_active

    def _lid_unsafe(self) -> bool:
        """The lid is (or may just have been) opened: the motor must not run forward."""
        return self._lid_open_reported or self._lid_raw_open

    @_input
    def _lid_edge(self) -> None:
        self._lid_raw_open = self._lid_level_open()
        if self._lid_raw_open:
            # Safety first, before any debounce: fingers may be in the slot. Motor off, and no "on" until closed.
            self._guard.set_interlock("lid", True)
            with self._lock:
                run = self._run
            if run is not None and run.phase in ("suspense", "eject"):
                self._abort("stopped", "lid opened")
        with self._lock:
            if self._lid_timer is not None:
                self._lid_timer.cancel()
            self._lid_timer = self._clock.call_later(self.settings.lid_debounce_ms / 1000, self._lid_settled)

    @_guarded
    def _lid_settled(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._lid_timer = None
            is_open = self._lid_level_open()
            changed = is_open != self._lid_open_reported
            self._lid_open_reported = is_open
            self._guard.set_interlock("lid", self._lid_unsafe())  # released once closed for the whole debounce
            if not changed:
                return
            if is_open:
                self._magazine = self.settings.magazine  # refill: the estimate starts over
                self._jammed = False
        self._emit({"type": "lid_open" if is_open else "lid_closed"})
        if self.on_lid is not None:
            self.on_lid(is_open)

    # ------------------------------------------------------------------ events, close

    def _emit(self, event: dict[str, Any]) -> None:
        callback = self.on_event
        if callback is None:
            return
        try:
            callback(event)
        except Exception:
            self._motor_off()
            log.exception("launcher event callback failed on %s", event.get("type"))

    def close(self) -> None:
        """Motor off for good, run aborted, every pin released. Safe to call twice."""
        if self._closed:
            return
        guard = getattr(self, "_guard", None)
        if guard is not None:
            guard.halt()
        try:
            self._abort("stopped", "launcher closed")
        finally:
            self._closed = True
            feedback = getattr(self, "feedback", None)
            if feedback is not None:
                feedback.close()
            if guard is not None:
                guard.close()
            for device in reversed(self._devices):
                try:
                    device.close()
                except Exception:
                    log.exception("closing %r failed", device)
            self._devices.clear()
