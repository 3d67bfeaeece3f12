"""The virtual launcher: a small physical simulation of the toy attached to gpiozero mock pins.

It watches the motor driver pins that :class:`~unolauncher.launcher.backends.gpio.launcher.GpioLauncher` writes and
drives the input pins that it reads, so the *real* device code runs unchanged on a machine without GPIO
(``unolauncher run`` on a laptop, every test, the dashboard demo). Physics: a magazine of cards; the wheel needs
``spin_up_ms`` before the first card leaves; then cards leave at ``cards_per_s`` times the PWM power; each card breaks
the beam for ``pulse_ms``; each card may jam with ``jam_probability`` (seeded, so runs repeat); the lid clears a jam.

Everything is timed by the injected clock: ``VirtualClock`` in tests (a 30 s jam test takes microseconds),
``RealClock`` in the daemon. Which thread: the card timers run on the clock's timer thread; the motor pins' changes
arrive on whichever thread the GPIO backend writes them from (its caller's, its timer thread, the motor guard's);
``press_button`` and the other helpers on the caller's (the dashboard's, a test's). Its state is under its own lock.

Create it *before* the ``GpioLauncher`` on the same factory (it claims the pins with its own pin class), and the
factory must be ``MockFactory(pin_class=MockPWMPin)``. :func:`unolauncher.launcher.factory.create_launcher` does
both.

Example::

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> from unolauncher.clock import VirtualClock
    >>> from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
    >>> from unolauncher.launcher.interface import FirePlan
    >>> from unolauncher.launcher.pins import DEFAULT_PINS
    >>> factory = MockFactory(pin_class=MockPWMPin)
    >>> clock = VirtualClock()
    >>> sim = VirtualLauncher(factory, clock, DEFAULT_PINS, VirtualParams(magazine=20))
    >>> launcher = GpioLauncher(factory, clock, DEFAULT_PINS)
    >>> launcher.on_press = lambda: launcher.fire(FirePlan(fire=True, cards=3), print)
    >>> sim.press_button()
    >>> assert sim.motor_pin_high
    >>> clock.advance(2.0)
    FireResult(cards_out=3, ran_ms=372, outcome='ok', counted=True, detail='')
    >>> assert sim.magazine == 17
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.pins import DEFAULT_PINS, DRIVER_ROLES, PinMap


class _SimPin(MockPWMPin):
    """A mock PWM pin that tells listeners about output changes and keeps an externally driven input level.

    gpiozero sets a pull resistor when an input device opens the pin, which on a mock pin drives the level to the
    pull; a real wire (the lid switch holding the line low) wins over the pull, so ``forced`` is re-applied.
    """

    def __init__(self, factory: Any, info: Any) -> None:
        self.listeners: list[Callable[[], None]] = []
        self.forced: bool | None = None
        super().__init__(factory, info)

    def _change_state(self, value: Any) -> bool:
        changed: bool = super()._change_state(value)
        if changed and self._function == "output":
            for listener in self.listeners:
                listener()
        return changed

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.forced is not None:
            self._change_state(self.forced)


@dataclass
class _Button:
    """A simulated push button: down now, when it last came up, and the presses waiting for it to be up."""

    held: bool = False
    released_at: float = -1e9
    queued: list[float] = field(default_factory=list)  # hold_s of each click waiting for it


MAX_WAITING_CLICKS = 8  # click()s waiting for the button at most (about a second of presses)
DEADMAN_HOLD_S = 0.1  # the hardware dead-man keeps the driver enabled this long after the last heartbeat edge


class DeadMan:
    """A model of the hardware dead-man on the ``heartbeat`` line (a retriggerable monostable before the driver's
    standby input, hardware/README.md): the motor counts as driven only while the enable pin is high *and* a
    heartbeat edge came within :data:`DEADMAN_HOLD_S`. Pure: feed it edge times (any one clock) and ask.

    Example::

        >>> deadman = DeadMan()
        >>> deadman.enabled(0.0)            # no edge yet: the driver is held in standby
        False
        >>> deadman.edge(1.00)
        >>> deadman.enabled(1.05), deadman.enabled(1.11)
        (True, False)
        >>> deadman.off_at()                # when the driver went to standby after the last edge
        1.1
    """

    def __init__(self, hold_s: float = DEADMAN_HOLD_S) -> None:
        self.hold_s = hold_s
        self.last_edge: float | None = None

    def edge(self, t: float) -> None:
        self.last_edge = t

    def enabled(self, t: float) -> bool:
        return self.last_edge is not None and 0.0 <= t - self.last_edge <= self.hold_s

    def off_at(self) -> float | None:
        return None if self.last_edge is None else self.last_edge + self.hold_s


class VirtualLauncher:
    """Simulated launcher hardware on mock pins, with the helpers the dashboard and tests use.

    Example::

        >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
        >>> from unolauncher.clock import VirtualClock
        >>> from unolauncher.launcher.pins import DEFAULT_PINS
        >>> factory = MockFactory(pin_class=MockPWMPin)
        >>> sim = VirtualLauncher(factory, VirtualClock(), DEFAULT_PINS, VirtualParams(magazine=5))
        >>> sim.load(10)          # put 10 more cards in
        >>> sim.magazine
        15
        >>> sim.open_lid(); sim.close_lid()
        >>> sim.press_button()    # press and (after press_ms) release
    """

    def __init__(
        self,
        factory: MockFactory,
        clock: Clock,
        pins: PinMap = DEFAULT_PINS,
        params: VirtualParams | None = None,
    ) -> None:
        self.params = params or VirtualParams()
        self.pins = pins
        self._clock = clock
        self._lock = threading.RLock()
        self._rng = random.Random(self.params.seed)
        self._magazine = self.params.magazine
        self._jammed = False
        self._ejecting = False
        self._card_timer: TimerHandle | None = None
        self.cards_out = 0
        self.presses = 0
        self.motor_starts = 0
        # A button press waits until the button is up again and has stayed up this long (more than the device's
        # button debounce, which takes an edge this close to the release for contact bounce): create_virtual sets it.
        self.release_gap_s = 0.0305
        self._buttons: dict[str, _Button] = {}  # role -> held, last release, presses waiting for it
        self._pin: dict[str, _SimPin] = {}
        for role, gpio in pins.items():
            pin = factory.pin(gpio, pin_class=_SimPin)
            if not isinstance(pin, _SimPin):
                raise RuntimeError(
                    f"GPIO {gpio} ({role}) was claimed before the virtual launcher; create it before the GpioLauncher"
                )
            self._pin[role] = pin
        kept = self._kept_outputs()
        for role in DRIVER_ROLES:
            pin = self._pin[role]
            pin.listeners.append(self._motor_changed)
            # A pull-down resistor holds a released line low: it wins over the Pi's weak internal pull-up.
            pin.forced = False if self.params.driver_pull_downs else None
            if kept.get(role):
                pin.drive_high()  # still driven high by the kernel, for the previous process that died
        self.deadman = DeadMan()  # fed by the heartbeat pin's edges, on the clock's time
        if "heartbeat" in self._pin:
            self._pin["heartbeat"].listeners.append(lambda: self.deadman.edge(self._clock.now()))
        self._set_input("button", True)  # released (pull-up, switch to GND)
        if "sensor" in self._pin:
            self._set_input("sensor", True)  # beam unbroken
        if "uno" in self._pin:
            self._set_input("uno", True)
        if "lid" in self._pin:
            self._set_input("lid", self.params.lid_open)  # closed switch pulls the line low

    # ------------------------------------------------------------------ pins

    def _set_input(self, role: str, level: bool) -> None:
        pin = self._pin.get(role)
        if pin is None:
            return
        pin.forced = level
        if pin.function != "input":
            return
        if level:
            pin.drive_high()
        else:
            pin.drive_low()

    def _level(self, role: str) -> float:
        pin = self._pin.get(role)
        return float(pin.state) if pin is not None and pin.function == "output" else 0.0

    @property
    def motor_power(self) -> float:
        """PWM duty on the driver enable pin (0 = off)."""
        return self._level("motor_enable")

    @property
    def motor_pin_high(self) -> bool:
        """The motor is driven (enable pin above 0), in either direction."""
        return self.motor_power > 0.0

    @property
    def motor_driven(self) -> bool:
        """The motor turns: the enable pin is high and, with a heartbeat line fitted, the dead-man lets the driver
        out of standby (:class:`DeadMan`). Without a heartbeat pin: the enable pin alone."""
        if "heartbeat" not in self._pin:
            return self.motor_pin_high
        return self.motor_pin_high and self.deadman.enabled(self._clock.now())

    @property
    def motor_direction(self) -> str:
        if not self.motor_pin_high:
            return "off"
        forward, reverse = self._level("motor_forward") > 0, self._level("motor_reverse") > 0
        return "forward" if forward and not reverse else "reverse" if reverse and not forward else "brake"

    @property
    def led_on(self) -> bool:
        return self._level("led") > 0

    @property
    def buzzer_on(self) -> bool:
        return self._level("buzzer") > 0

    @property
    def magazine(self) -> int:
        return self._magazine

    @property
    def jammed(self) -> bool:
        return self._jammed

    @property
    def lid_open(self) -> bool:
        pin = self._pin.get("lid")
        return bool(pin is not None and pin.forced)

    def pin(self, role: str) -> _SimPin:
        """The mock pin of a part (tests assert on its ``states``)."""
        return self._pin[role]

    # ------------------------------------------------------------------ helpers for people and tests

    def press_button(self, hold_s: float | None = None, bounce: bool = False) -> None:
        """Press the launcher button now and release it after ``hold_s`` (default ``press_ms``): a finger on the
        switch, so a press while it is still held makes no edge, and one right after a release is contact bounce
        to the device (tests of chatter rely on that). :meth:`click` is the dashboard's press.

        With ``bounce`` the contact chatters for 3 ms on press and on release, like a cheap switch.
        """
        self.presses += 1
        self._press_now("button", self._hold(hold_s), bounce)

    def click(self) -> bool:
        """One whole press of the button (the ``press`` command: the dashboard, tests): now, or — while the button
        is still held by an earlier press, or was released too recently for the device's debounce to take a new
        edge — as soon as it is free. Every call is one press (pressing a button that is still down makes no edge,
        so the press would vanish without a word). ``False``
        (nothing done) when :data:`MAX_WAITING_CLICKS` already wait: a flood of commands queues no backlog."""
        hold = self._hold(None)
        with self._lock:
            button = self._buttons.setdefault("button", _Button())
            if len(button.queued) >= MAX_WAITING_CLICKS:
                return False
            self.presses += 1
            if button.held or button.queued:
                button.queued.append(hold)  # pressed once the button is up again (_released)
                return True
            wait = button.released_at + self.release_gap_s - self._clock.now()
            if wait > 0:
                button.queued.append(hold)
                self._clock.call_later(wait, lambda: self._next_press("button"))
                return True
        self._press_now("button", hold, False)
        return True

    def press_uno(self, hold_s: float | None = None) -> None:
        self._press_now("uno", self._hold(hold_s), False)

    def _hold(self, hold_s: float | None) -> float:
        return self.params.press_ms / 1000 if hold_s is None else hold_s

    def _next_press(self, role: str) -> None:
        with self._lock:
            button = self._buttons[role]
            if button.held or not button.queued:
                return
            hold = button.queued.pop(0)
        self._press_now(role, hold, False)

    def _released(self, role: str) -> None:
        """The button is up (its last edge): a queued click follows once it has stayed up ``release_gap_s``, timed
        from this moment (a late timer cannot squeeze the next press into the device's debounce)."""
        self._set_input(role, True)
        with self._lock:
            button = self._buttons.setdefault(role, _Button())
            button.held = False
            button.released_at = self._clock.now()
            queued = bool(button.queued)
        if queued:
            self._clock.call_later(self.release_gap_s, lambda: self._next_press(role))

    def _press_now(self, role: str, hold: float, bounce: bool) -> None:
        if role not in self._pin:
            raise RuntimeError(f"this launcher has no {role} button fitted")
        with self._lock:
            self._buttons.setdefault(role, _Button()).held = True
        self._set_input(role, False)
        if bounce:
            for i, level in enumerate((True, False, True, False), start=1):
                self._clock.call_later(i * 0.0007, lambda lv=level: self._set_input(role, lv))  # type: ignore[misc]
            for i, level in enumerate((True, False, True), start=1):
                self._clock.call_later(hold + (i - 1) * 0.0007, lambda lv=level: self._set_input(role, lv))  # type: ignore[misc]
            self._clock.call_later(hold + 0.003, lambda: self._released(role))
        else:
            self._clock.call_later(hold, lambda: self._released(role))

    def open_lid(self) -> None:
        """Open the lid (the device stops the motor); a jam is cleared by hand while it is open."""
        with self._lock:
            self._jammed = False
        self._set_input("lid", True)

    def close_lid(self) -> None:
        self._set_input("lid", False)

    def load(self, cards: int) -> None:
        """Put ``cards`` more cards into the magazine (open/close the lid around it to mimic a refill)."""
        if cards < 0:
            raise ValueError("cannot load a negative number of cards")
        with self._lock:
            self._magazine += cards

    def empty(self) -> None:
        """Take every card out (the magazine is empty)."""
        with self._lock:
            self._magazine = 0

    def refill(self, cards: int) -> None:
        """What a person does: open the lid, put cards in, close it."""
        self.open_lid()
        self.load(cards)
        self.close_lid()

    def jam(self) -> None:
        """Jam the mechanism now (the next card sticks)."""
        with self._lock:
            self._jammed = True

    def block_beam(self, blocked: bool) -> None:
        """A hand or a stuck card in the slot (selftest and stray-card tests)."""
        self._set_input("sensor", not blocked)

    def status(self) -> dict[str, Any]:
        return {
            "magazine": self._magazine,
            "cards_out": self.cards_out,
            "jammed": self._jammed,
            "lid_open": self.lid_open,
            "motor": self.motor_direction,
            "motor_power": self.motor_power,
            "led": self.led_on,
            "buzzer": self.buzzer_on,
        }

    # ------------------------------------------------------------------ physics

    def _kept_outputs(self) -> dict[str, bool]:
        path = self.params.persist_outputs_file
        if not path:
            return {}
        try:
            kept = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            return {}
        return {role: bool(kept.get(role)) for role in DRIVER_ROLES} if isinstance(kept, dict) else {}

    def _keep_outputs(self) -> None:
        path = Path(self.params.persist_outputs_file)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({role: self._pin[role].state > 0 for role in DRIVER_ROLES}))
        tmp.replace(path)

    def _motor_changed(self) -> None:
        if self.params.persist_outputs_file:
            self._keep_outputs()
        power = self.motor_power
        ejecting = power >= self.params.min_power and self.motor_direction == "forward"
        with self._lock:
            if ejecting == self._ejecting:
                return
            self._ejecting = ejecting
            if self._card_timer is not None:
                self._card_timer.cancel()
                self._card_timer = None
            if ejecting:
                self.motor_starts += 1
                self._card_timer = self._clock.call_later(self.params.spin_up_ms / 1000, self._eject_card)

    def _eject_card(self) -> None:
        with self._lock:
            self._card_timer = None
            if not self._ejecting or self._magazine <= 0 or self._jammed:
                return
            if self.params.jam_probability and self._rng.random() < self.params.jam_probability:
                self._jammed = True
                return
            self._magazine -= 1
            self.cards_out += 1
            interval = 1.0 / (self.params.cards_per_s * max(self.motor_power, self.params.min_power))
            self._card_timer = self._clock.call_later(interval, self._eject_card)
        if "sensor" in self._pin:
            # Outside the lock: the device reacts to this edge synchronously (and may stop the motor).
            self._set_input("sensor", False)
            self._clock.call_later(self.params.pulse_ms / 1000, lambda: self._set_input("sensor", True))
