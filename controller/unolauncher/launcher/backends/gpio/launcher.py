"""The launcher on GPIO pins through gpiozero: motor driver, button, card-exit beam, lid, UNO button, LED, buzzer.

The pin factory is passed in (real ``lgpio`` pins on a Pi, ``MockFactory`` pins under the virtual launcher and in
tests); nothing here touches ``Device.pin_factory``. Time comes from the injected :class:`~unolauncher.clock.Clock`.

Which thread: :class:`GpioLauncher` builds the devices and answers the public
:class:`~unolauncher.launcher.interface.Launcher` methods on the caller's thread (the daemon's main thread, the
press path, the table worker, a signal handler). The work of the other threads is in classes of their own, each
in its module:

- gpiozero's callback thread: :class:`~unolauncher.launcher.backends.gpio.inputs.GpioInputs` (edges, filters);
- the clock's timer thread: the run's phases in :class:`~unolauncher.launcher.backends.gpio.runs.RunControl`
  (which also takes the edges' and the caller's calls, under its lock), and the LED/buzzer patterns in
  :class:`~unolauncher.launcher.backends.gpio.feedback.Feedback`;
- the motor guard's thread: :class:`~unolauncher.launcher.backends.gpio.motor_guard.MotorGuard`, the only code that
  writes the motor driver's pins, which holds a deadline for each "on" on a thread of its own, so a stuck timer
  thread cannot keep the motor running past its limit.

Safety: the motor is off after construction, after :meth:`~GpioLauncher.stop`/:meth:`~GpioLauncher.close`, when
the lid opens, while the launcher is disabled (:meth:`~GpioLauncher.set_enabled`), and on every exception path
(each callback entry point is guarded and switches the motor off before reporting a ``fault``).

Example::

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> from unolauncher.clock import VirtualClock
    >>> from unolauncher.launcher.interface import FirePlan
    >>> launcher = GpioLauncher(MockFactory(pin_class=MockPWMPin), VirtualClock())
    >>> # nothing holds the lid switch closed on these bare pins: the lid reads open, and nothing may fire
    >>> launcher.lid_open, launcher.fire(FirePlan(fire=True, cards=3), print), launcher.motor_on
    (True, False, False)
    >>> launcher.close()
"""

from __future__ import annotations

import logging
from typing import Any

from gpiozero import DigitalInputDevice, DigitalOutputDevice, PWMOutputDevice

from unolauncher.clock import Clock, RealClock
from unolauncher.launcher.backends.gpio.feedback import Feedback
from unolauncher.launcher.backends.gpio.inputs import GpioInputs
from unolauncher.launcher.backends.gpio.motor_guard import MotorGuard
from unolauncher.launcher.backends.gpio.runs import RunControl
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.interface import (
    DoneCallback,
    EventCallback,
    FirePlan,
    LauncherStatus,
    LidCallback,
    PressCallback,
)
from unolauncher.launcher.pins import DEFAULT_PINS, PinMap

log = logging.getLogger("unolauncher.launcher.backends.gpio")  # one logger name for the whole backend


def describe(device: Any) -> str:
    """A gpiozero device for the log without reading its pin (``repr`` reads it, and lgpio raises on a pin that a
    failed close left unallocated: the log record itself would fail to format).

    Example::

        >>> describe(object())
        'object'
    """
    pin = getattr(device, "_pin", None)
    return f"{type(device).__name__} on {pin}" if pin is not None else type(device).__name__


GUARD_REALTIME_PRIORITY = 20  # SCHED_FIFO for the motor guard's thread (systemd/unolauncher.service: LimitRTPRIO)


class GpioLauncher:
    """The launcher on gpiozero devices; implements :class:`~unolauncher.launcher.interface.Launcher`.

    Example::

        >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
        >>> from unolauncher.clock import VirtualClock
        >>> from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
        >>> factory, clock = MockFactory(pin_class=MockPWMPin), VirtualClock()
        >>> toy = VirtualLauncher(factory, clock)       # the simulated box on the same mock pins
        >>> launcher = GpioLauncher(factory, clock, DEFAULT_PINS, DeviceSettings(magazine=40))
        >>> launcher.on_press = lambda: launcher.fire(FirePlan(fire=True, cards=2), print)
        >>> # a press: motor on, two cards through the beam, motor off, retract, done
        >>> toy.press_button(); clock.advance(2.0)  # doctest: +ELLIPSIS
        FireResult(cards_out=2, ran_ms=..., outcome='ok', counted=True, detail='')
        >>> launcher.close()
    """

    def __init__(
        self,
        pin_factory: Any,
        clock: Clock,
        pins: PinMap = DEFAULT_PINS,
        settings: DeviceSettings | None = None,
        backend: str = "gpio",
    ) -> None:
        self.on_event: EventCallback | None = None
        self.backend = backend
        self.pins = pins
        self.settings = settings or DeviceSettings()
        self._clock = clock
        self._closed = False
        self._devices: list[Any] = []
        self._guard: MotorGuard | None = None
        self._runs: RunControl | None = None
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
            heartbeat = None
            if pins.heartbeat is not None:
                heartbeat = self._add(DigitalOutputDevice(pins.heartbeat, initial_value=False, pin_factory=factory))
            # The guard writes the driver pins directly (no gpiozero locks or blink-thread checks); nothing else does.
            self._en_pin = self._enable.pin
            # Its own thread, raised to real-time priority where allowed: on a busy Pi its deadline is not late.
            self._guard_clock = clock.separate("motor-guard", realtime_priority=GUARD_REALTIME_PRIORITY)
            self._guard = MotorGuard(self._en_pin, self._forward.pin, self._reverse.pin, self._guard_clock)
            # The dead-man heartbeat on the guard's own thread; on real time only (under a virtual clock an endless
            # 10 ms timer would keep the tests' run_until_idle busy for ever).
            if heartbeat is not None and isinstance(self._guard_clock, RealClock):
                self._guard.start_heartbeat(heartbeat.pin)
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
        # Reads the lid's level and engages the guard's lid interlock if it is open, before any callback is wired.
        self._runs = RunControl(
            self.settings,
            clock,
            self._guard,
            has_sensor=self.has_sensor,
            lid_level_open=self._lid_level_open,
            emit=self._emit,
        )
        self._inputs = GpioInputs(self.settings, clock, self._runs, self._lid_level_open)
        self._button.when_activated = self._inputs.button_pressed
        self._button.when_deactivated = self._inputs.button_released
        if self._sensor is not None:
            self._sensor.when_activated = self._inputs.card  # falling edge: beam broken by a card
        if self._lid is not None:
            self._lid.when_activated = self._inputs.lid_edge
            self._lid.when_deactivated = self._inputs.lid_edge
        if self._uno is not None:
            self._uno.when_activated = self._inputs.uno_pressed

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _lid_level_open(self) -> bool:
        return self._lid is not None and not self._lid.is_active

    # ------------------------------------------------------------------ callbacks the daemon sets

    @property
    def on_press(self) -> PressCallback | None:
        return self._inputs.on_press

    @on_press.setter
    def on_press(self, callback: PressCallback | None) -> None:
        self._inputs.on_press = callback

    @property
    def on_uno(self) -> PressCallback | None:
        return self._inputs.on_uno

    @on_uno.setter
    def on_uno(self, callback: PressCallback | None) -> None:
        self._inputs.on_uno = callback

    @property
    def on_lid(self) -> LidCallback | None:
        return self.runs.on_lid

    @on_lid.setter
    def on_lid(self, callback: LidCallback | None) -> None:
        self.runs.on_lid = callback

    # ------------------------------------------------------------------ state

    @property
    def runs(self) -> RunControl:
        """The run state machine (built once the devices are)."""
        assert self._runs is not None, "the launcher's devices were not built"
        return self._runs

    @property
    def has_sensor(self) -> bool:
        return self._sensor is not None

    @property
    def running(self) -> bool:
        return self.runs.run is not None

    @property
    def motor_on(self) -> bool:
        if self._closed:
            return False
        return bool(self._en_pin.state)

    @property
    def lid_open(self) -> bool:
        return self.runs.lid_open_reported

    @property
    def enabled(self) -> bool:
        return self._guard is not None and not self._guard.engaged("disabled")

    @property
    def magazine_estimate(self) -> int | None:
        return self.runs.magazine

    @property
    def cards_counted(self) -> int:
        """Every card counted during a run, for the dashboard."""
        return self.runs.cards_counted

    @property
    def stray_cards(self) -> int:
        """Beam breaks with no run in progress (hands in the slot, cards pulled out)."""
        return self.runs.stray_cards

    @property
    def bounces(self) -> int:
        """Button and UNO edges dropped by the debounce."""
        return self._inputs.bounces

    @property
    def beam_glitches(self) -> int:
        """Beam edges dropped by the glitch filter."""
        return self._inputs.beam_glitches

    def set_magazine(self, cards: int | None) -> None:
        """Tell the launcher how many cards were loaded (e.g. after a reload, ATK-21)."""
        self.runs.set_magazine(cards)

    def status(self) -> LauncherStatus:
        runs = self.runs
        run = runs.run
        assert self._guard is not None
        return LauncherStatus(
            backend=self.backend,
            motor_on=self.motor_on,
            running=run is not None,
            lid_open=runs.lid_open_reported,
            magazine_estimate=runs.magazine,
            jammed=runs.jammed,
            has_sensor=self.has_sensor,
            enabled=self.enabled,
            extra={
                "phase": run.phase if run else "idle",
                "cards_counted": runs.cards_counted,
                "stray_cards": runs.stray_cards,
                "bounces": self._inputs.bounces,
                "beam_glitches": self._inputs.beam_glitches,
                "guard_trips": self._guard.trips,
                "guard_realtime": self._guard_clock.realtime,
                "tension": self.feedback.tension,
            },
        )

    def health(self, now: float, deadline_s: float) -> list[str]:
        """What keeps the launcher's threads from progressing (empty when nothing does): an input edge callback
        running longer than ``deadline_s``, or the motor guard's thread not keeping its deadlines."""
        problems = []
        stuck = self._inputs.progress.stuck_for(now)
        if stuck > deadline_s:
            problems.append(f"a GPIO input callback has been running for {stuck:.1f} s")
        assert self._guard is not None
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

    def set_enabled(self, enabled: bool) -> None:
        """The emergency stop: ``False`` switches the motor off at once on the calling thread (waiting for nothing
        but the motor guard) and refuses every fire until ``set_enabled(True)``. A run in progress ends as
        ``stopped``; its ``done`` runs on the timer thread, so the caller (a signal handler, MQTT's thread) never
        waits for whatever ``done`` does."""
        assert self._guard is not None
        self._guard.set_interlock("disabled", not enabled)
        if not enabled and self.runs.run is not None:
            self._clock.call_later(0.0, self.runs.abort_disabled)

    def halt(self) -> None:
        """Motor off for good (the daemon is stopping): the guard's permanent ``halted`` interlock, which no
        :meth:`set_enabled` releases. Signal-safe: the guard's lock only. A run in progress ends as ``stopped``
        on the timer thread."""
        assert self._guard is not None
        self._guard.halt()
        if self.runs.run is not None:
            self._clock.call_later(0.0, self.runs.abort_disabled)

    def drive_motor(self, direction: str, power: float = 0.5) -> bool:
        """Drive the motor by hand (``forward``, ``reverse`` or ``off``) while no run is in progress (selftest),
        for ``max_run_s`` at most; ``False`` when the motor guard refuses (lid open, disabled)."""
        runs = self.runs
        assert self._guard is not None
        with runs.lock:
            if runs.run is not None:
                raise RuntimeError("a run is in progress; the motor cannot be driven by hand now")
            if direction not in ("forward", "reverse", "off"):
                raise ValueError(f"direction must be forward, reverse or off, got {direction!r}")
            if not 0.0 <= power <= 1.0:
                raise ValueError(f"power must be between 0 and 1, got {power!r}")
            if direction == "off" or power == 0.0:
                self._guard.off()
                return True
            return self._guard.run(direction == "forward", direction == "reverse", power, self.settings.max_run_s)

    # ------------------------------------------------------------------ fire

    def fire(self, plan: FirePlan, done: DoneCallback) -> bool:
        """Start a run for ``plan``; ``False`` when refused: a run is in progress, or the lid is (being) opened.

        A refused press fires nothing and ``done`` is not called; the caller reports it (``ignored_press``).
        """
        return self.runs.fire(plan, done)

    def stop(self) -> None:
        """Abort the run in progress (motor off now; ``done`` gets outcome ``stopped``)."""
        self.runs.abort("stopped", "stopped on request")

    # ------------------------------------------------------------------ events, close

    def _emit(self, event: dict[str, Any]) -> None:
        callback = self.on_event
        if callback is None:
            return
        try:
            callback(event)
        except Exception:
            if self._guard is not None:
                self._guard.off()
            log.exception("launcher event callback failed on %s", event.get("type"))

    def close(self) -> None:
        """Motor off for good, run aborted, every pin released. Safe to call twice."""
        if self._closed:
            return
        guard = self._guard  # None only when building the devices failed before the guard existed
        if guard is not None:
            guard.halt()
        try:
            if self._runs is not None:
                self._runs.close()
        finally:
            self._closed = True
            feedback = getattr(self, "feedback", None)
            if feedback is not None:
                feedback.close()
            if guard is not None:
                guard.close()
            for device in reversed(self._devices):
                name = describe(device)  # before close: a half-closed lgpio device's repr raises too
                try:
                    device.close()
                except Exception as exc:
                    # lgpio's "GPIO busy" when gpiozero resets an input with an alert on it (seen in the virtual
                    # Pi, tools/vpi): the motor is off already and the kernel frees every line at exit.
                    log.warning("closing %s failed: %s", name, exc)
            self._devices.clear()
