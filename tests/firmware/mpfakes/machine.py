"""Fake of MicroPython's ``machine`` (the parts the RP2040 board uses): pins with IRQs the simulation can
drive, PWM, one-shot timers that fire on the fake clock, a watchdog that counts feeds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from . import mp_time

PWRON_RESET = 1
WDT_RESET = 3
next_reset_cause = PWRON_RESET


def reset_cause() -> int:
    return next_reset_cause


class ResetCalled(SystemExit):
    """machine.reset() under CPython: stop the firmware thread instead of rebooting."""


def reset() -> None:
    raise ResetCalled(0)


# GPIOs with an external pull-down fitted (10 kOhm beats the internal ~50 kOhm pull-up): the firmware simulator sets
# the motor lines of a correct build here (firmware.fwsim), a test of a miswired board leaves one out.
pulled_down: set[int] = set()

irq_disabled = 0  # nesting depth of disable_irq(), so tests can see the ring buffers are read with IRQs off


def disable_irq() -> int:
    global irq_disabled
    irq_disabled += 1
    return irq_disabled


def enable_irq(state: int) -> None:
    global irq_disabled
    irq_disabled -= 1


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, pin_id: int, mode: int = -1, pull: int | None = None, value: int | None = None) -> None:
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        pulled_up = pull == Pin.PULL_UP and pin_id not in pulled_down
        self._value = value if value is not None else (1 if pulled_up else 0)
        self.handler: Callable[[Pin], None] | None = None
        self.trigger = 0
        self.hard = False
        self.writes: list[int] = []

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return self._value
        self._value = 1 if v else 0
        self.writes.append(self._value)
        return None

    __call__ = value

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)

    def irq(self, handler: Callable[[Pin], None] | None = None, trigger: int = 12, hard: bool = False) -> None:
        self.handler = handler
        self.trigger = trigger
        self.hard = hard

    def drive(self, level: int) -> None:
        """The outside world sets an input's level; an edge that matches the IRQ trigger calls the handler."""
        old, self._value = self._value, 1 if level else 0
        if self.handler is None or old == self._value:
            return
        falling = self._value == 0 and self.trigger & Pin.IRQ_FALLING
        rising = self._value == 1 and self.trigger & Pin.IRQ_RISING
        if falling or rising:
            self.handler(self)


class PWM:
    def __init__(self, pin: Pin, freq: int | None = None, duty_u16: int | None = None) -> None:
        self.pin = pin
        self._freq = freq or 0
        self._duty = duty_u16 or 0
        self.duties: list[int] = []

    def freq(self, f: int | None = None) -> int | None:
        if f is None:
            return self._freq
        self._freq = f
        return None

    def duty_u16(self, d: int | None = None) -> int | None:
        if d is None:
            return self._duty
        if not 0 <= d <= 65535:
            raise ValueError("duty_u16 out of range")
        self._duty = d
        self.duties.append(d)
        return None

    def deinit(self) -> None:
        self._duty = 0


HOST_STALL_MS = 10  # a gap between two hook runs longer than this is the host descheduling the firmware's thread


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, timer_id: int = -1, **kwargs: Any) -> None:
        self.deadline: int | None = None
        self.callback: Callable[[Timer], None] | None = None
        self.hard = False
        self.fired = 0
        self._last_check: int | None = None

    def init(self, mode: int = ONE_SHOT, period: int = 0, callback: Callable[[Timer], None] | None = None,
             hard: bool = False) -> None:
        self.deinit()
        self.deadline = mp_time.raw_ms() + period
        self._last_check = None
        self.callback = callback
        self.hard = hard
        mp_time.hooks.append(self._check)

    def deinit(self) -> None:
        self.deadline = None
        if self._check in mp_time.hooks:
            mp_time.hooks.remove(self._check)

    def _check(self, now: int) -> None:
        if self.deadline is None:
            return
        gap = 0 if self._last_check is None else now - self._last_check
        self._last_check = now
        if gap > HOST_STALL_MS:
            # The firmware runs on a host thread, which a loaded host can deschedule for longer than the guard's
            # margin; a Pico's loop is never descheduled. Time between two checks that far apart is the host's, not
            # the firmware's: it does not count toward the deadline. A stuck firmware loop (the tests stall it one
            # sleep_ms(1) at a time) still trips the timer on time.
            self.deadline += gap - 1
        if now >= self.deadline:
            callback = self.callback
            self.deinit()
            self.fired += 1
            if callback is not None:
                callback(self)


class WDT:
    instances: ClassVar[list[WDT]] = []

    def __init__(self, wdt_id: int = 0, timeout: int = 5000) -> None:
        self.timeout = timeout
        self.feeds = 0
        WDT.instances.append(self)

    def feed(self) -> None:
        self.feeds += 1
