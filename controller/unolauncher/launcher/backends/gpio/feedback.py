"""Press feedback like the newer toy: a chime on every accepted press, and a pulse that speeds up after each press
that fired nothing, until cards come out.

Driven by the injected clock (no gpiozero ``blink`` threads), so tests see every pulse in virtual time. Pulses stop
on their own :data:`PULSE_GIVE_UP_S` after the last press, so an abandoned table does not beep forever. Which thread:
``chime``/``set_tension`` on the press path's (through ``GpioLauncher.indicate``), the pulses and flashes on the
clock's timer thread, under the feedback's own lock.

Example (not a doctest: needs an LED and a buzzer)::

    feedback = Feedback(led, buzzer, clock)
    feedback.chime()
    feedback.set_tension(2)  # two dry presses: pulse faster
    feedback.set_tension(0)  # cards came out: quiet
"""

from __future__ import annotations

import threading
from typing import Protocol

from unolauncher.clock import Clock, TimerHandle

CHIME_S = 0.06
TICK_S = 0.03
PULSE_GIVE_UP_S = 30.0


class Switch(Protocol):
    """Anything with ``on()``/``off()`` (a gpiozero output device)."""

    def on(self) -> None: ...

    def off(self) -> None: ...


def pulse_interval(tension: int) -> float:
    """Seconds between pulses after ``tension`` presses in a row that fired nothing (shorter = more nervous)."""
    return max(0.1, 0.8 * 0.75 ** max(0, tension - 1))


class Feedback:
    """LED + buzzer patterns for the press path; either device may be ``None`` (not fitted).

    Example::

        >>> from unolauncher.clock import VirtualClock
        >>> Feedback(None, None, VirtualClock()).chime()   # no LED, no buzzer: does nothing, harmlessly
    """

    def __init__(self, led: Switch | None, buzzer: Switch | None, clock: Clock) -> None:
        self._led = led
        self._buzzer = buzzer
        self._clock = clock
        self._lock = threading.RLock()
        self._tension = 0
        self._pulse_timer: TimerHandle | None = None
        self._give_up_at = 0.0
        self.chimes = 0
        self.pulses = 0

    @property
    def tension(self) -> int:
        return self._tension

    def chime(self) -> None:
        self.chimes += 1
        self._flash(CHIME_S)

    def set_tension(self, tension: int) -> None:
        with self._lock:
            self._tension = max(0, tension)
            if self._pulse_timer is not None:
                self._pulse_timer.cancel()
                self._pulse_timer = None
            if self._tension > 0:
                self._give_up_at = self._clock.now() + PULSE_GIVE_UP_S
                self._pulse_timer = self._clock.call_later(pulse_interval(self._tension), self._pulse)

    def _pulse(self) -> None:
        with self._lock:
            self._pulse_timer = None
            if self._tension <= 0 or self._clock.now() >= self._give_up_at:
                return
            self.pulses += 1
            self._pulse_timer = self._clock.call_later(pulse_interval(self._tension), self._pulse)
        self._flash(TICK_S)

    def _flash(self, seconds: float) -> None:
        for device in (self._led, self._buzzer):
            if device is not None:
                device.on()
        self._clock.call_later(seconds, self._dark)

    def _dark(self) -> None:
        for device in (self._led, self._buzzer):
            if device is not None:
                try:
                    device.off()
                except Exception:  # closed meanwhile (shutdown): nothing left to switch off
                    pass

    def close(self) -> None:
        with self._lock:
            self._tension = 0
            if self._pulse_timer is not None:
                self._pulse_timer.cancel()
                self._pulse_timer = None
        self._dark()
