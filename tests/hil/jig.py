"""The toy, played through the loopback jig (hardware/README.md, "Loopback jig").

A second set of GPIOs presses the button, breaks the beam and works the lid switch, and reads back the motor
driver inputs; cards are simulated with the same physics as the virtual launcher (spin-up, cards/s, pulse width,
magazine, jam). With ``UNOLAUNCHER_HIL=1`` this runs on real pins (``lgpio``); otherwise the jig wires are
emulated by :class:`LoopbackPin` on mock pins, so this code path runs in CI too.

Example::

    jig = JigToy(factory, DEFAULT_JIG, RealClock(), magazine=20)
    jig.press_button()
"""

from __future__ import annotations

import threading
from typing import Any

from gpiozero import DigitalInputDevice, DigitalOutputDevice
from gpiozero.pins.mock import MockFactory, MockPWMPin

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.pins import PinMap


class LoopbackPin(MockPWMPin):
    """A mock pin wired to ``peer`` (an input): whatever it outputs, the peer sees (PWM > 0 reads high)."""

    peer: Any = None

    def _change_state(self, value: Any) -> bool:
        changed: bool = super()._change_state(value)
        if changed and self._function == "output":
            self._push()
        return changed

    def _set_function(self, value: str) -> None:
        super()._set_function(value)
        if value == "output":  # a wire carries the level as soon as the pin drives it
            self._push()

    def _push(self) -> None:
        if self.peer is not None and self.peer.function == "input":
            if self._state:
                self.peer.drive_high()
            else:
                self.peer.drive_low()


def wire_mock_jig(factory: MockFactory, pins: PinMap, jig: dict[str, int]) -> None:
    """Emulate the jig's six wires on mock pins (call before any device claims them)."""
    for role, jig_gpio in jig.items():
        launcher_gpio = getattr(pins, role)
        if role.startswith("motor"):  # launcher output -> jig input
            source = factory.pin(launcher_gpio, pin_class=LoopbackPin)
            source.peer = factory.pin(jig_gpio)
        else:  # jig output -> launcher input
            source = factory.pin(jig_gpio, pin_class=LoopbackPin)
            source.peer = factory.pin(launcher_gpio)


class JigToy:
    """Plays the launcher's mechanics through the jig pins; same helpers as ``VirtualLauncher``."""

    def __init__(
        self,
        factory: Any,
        jig: dict[str, int],
        clock: Clock,
        magazine: int = 40,
        spin_up_ms: int = 150,
        cards_per_s: float = 9.0,
        pulse_ms: float = 12.0,
    ) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self.magazine = magazine
        self.cards_out = 0
        self.jammed = False
        self._spin_up = spin_up_ms / 1000
        self._interval = 1 / cards_per_s
        self._pulse = pulse_ms / 1000
        self._timer: TimerHandle | None = None
        self._ejecting = False
        # Levels as the launcher expects them at rest: button released (high), beam clear (high), lid closed (low).
        self._button = DigitalOutputDevice(jig["button"], initial_value=True, pin_factory=factory)
        self._sensor = DigitalOutputDevice(jig["sensor"], initial_value=True, pin_factory=factory)
        self._lid = DigitalOutputDevice(jig["lid"], initial_value=False, pin_factory=factory)
        self._enable = DigitalInputDevice(jig["motor_enable"], pull_up=False, pin_factory=factory)
        self._forward = DigitalInputDevice(jig["motor_forward"], pull_up=False, pin_factory=factory)
        self._reverse = DigitalInputDevice(jig["motor_reverse"], pull_up=False, pin_factory=factory)
        for device in (self._enable, self._forward, self._reverse):
            device.when_activated = self._motor_changed
            device.when_deactivated = self._motor_changed

    @property
    def motor_pin_high(self) -> bool:
        return bool(self._enable.value)

    @property
    def motor_direction(self) -> str:
        if not self._enable.value:
            return "off"
        return "forward" if self._forward.value and not self._reverse.value else "reverse"

    @property
    def lid_open(self) -> bool:
        return bool(self._lid.value)

    def press_button(self, hold_s: float = 0.08) -> None:
        self._button.off()
        self._clock.call_later(hold_s, self._button.on)

    def open_lid(self) -> None:
        with self._lock:
            self.jammed = False
        self._lid.on()

    def close_lid(self) -> None:
        self._lid.off()

    def load(self, cards: int) -> None:
        with self._lock:
            self.magazine += cards

    def empty(self) -> None:
        with self._lock:
            self.magazine = 0

    def jam(self) -> None:
        with self._lock:
            self.jammed = True

    def _motor_changed(self) -> None:
        ejecting = self.motor_direction == "forward"
        with self._lock:
            if ejecting == self._ejecting:
                return
            self._ejecting = ejecting
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if ejecting:
                self._timer = self._clock.call_later(self._spin_up, self._card)

    def _card(self) -> None:
        with self._lock:
            self._timer = None
            if not self._ejecting or self.magazine <= 0 or self.jammed:
                return
            self.magazine -= 1
            self.cards_out += 1
            self._timer = self._clock.call_later(self._interval, self._card)
        self._sensor.off()  # beam broken (outside the lock: the launcher reacts synchronously)
        self._clock.call_later(self._pulse, self._sensor.on)

    def close(self) -> None:
        with self._lock:
            self._ejecting = False
            if self._timer is not None:
                self._timer.cancel()
        for device in (self._enable, self._forward, self._reverse, self._button, self._sensor, self._lid):
            device.close()
