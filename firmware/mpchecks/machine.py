"""A fake of MicroPython's ``machine`` for the firmware checks, run by MicroPython itself.

Handlers registered with ``hard=True`` (pin IRQs, timers) run with the heap locked, as the RP2040 port runs hard
interrupts: an allocation inside one raises ``MemoryError``, which :func:`hard_call` records in ``hard_errors``
and re-raises, so the check fails. Nothing here allocates on the path into a handler.
"""

from array import array

import micropython
import vclock

PWRON_RESET = 1
WDT_RESET = 3
next_reset_cause = PWRON_RESET
pulled_down = set()  # GPIOs with an external pull-down fitted: they read low as inputs with the pull-up
hard_errors = []  # MemoryErrors raised by hard handlers (kept for the checks' messages)
hard_calls = [0]

# Every write to an output pin or a PWM duty, in order: (ms, channel, level) with channel = the GPIO for a pin's
# level (0/1) and the GPIO + PWM_CHANNEL for a PWM's duty (0-65535). Preallocated, so the lid's hard interrupt
# handler can write pins with the heap locked; writes beyond TRACE_SLOTS are dropped and counted in trace_len.
PWM_CHANNEL = 100
TRACE_SLOTS = 1024
trace = array("i", [0] * (3 * TRACE_SLOTS))
trace_len = [0]


def record(channel, level):
    n = trace_len[0]
    if n < TRACE_SLOTS:
        i = 3 * n
        trace[i] = vclock.ticks_ms()
        trace[i + 1] = channel
        trace[i + 2] = level
    trace_len[0] = n + 1


def reset_cause():
    return next_reset_cause


def reset():
    raise SystemExit(0)


irq_depth = [0]


def disable_irq():
    irq_depth[0] += 1
    return irq_depth[0]


def enable_irq(state):
    irq_depth[0] -= 1


def hard_call(handler, arg):
    """Call an interrupt handler as the RP2040 port calls a hard one: heap locked for its whole run."""
    micropython.heap_lock()
    try:
        handler(arg)
    except MemoryError as exc:
        micropython.heap_unlock()
        hard_errors.append(exc)
        raise
    micropython.heap_unlock()
    hard_calls[0] += 1


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, pin_id, mode=-1, pull=None, value=None):
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        pulled_up = pull == Pin.PULL_UP and pin_id not in pulled_down
        self._value = value if value is not None else (1 if pulled_up else 0)
        self.handler = None
        self.trigger = 0
        self.hard = False

    def value(self, v=None):
        if v is None:
            return self._value
        self._value = 1 if v else 0
        record(self.id, self._value)
        return None

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard

    def drive(self, level):
        """The outside world sets the input's level; a matching edge calls the handler (hard: heap locked)."""
        old = self._value
        self._value = 1 if level else 0
        if self.handler is None or old == self._value:
            return
        falling = self._value == 0 and self.trigger & Pin.IRQ_FALLING
        if falling or (self._value == 1 and self.trigger & Pin.IRQ_RISING):
            if self.hard:
                hard_call(self.handler, self)
            else:
                self.handler(self)


class PWM:
    def __init__(self, pin, freq=None, duty_u16=None):
        self.pin = pin
        self._freq = freq or 0
        self._duty = duty_u16 or 0

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if d < 0 or d > 65535:
            raise ValueError("duty_u16 out of range")
        self._duty = d
        record(self.pin.id + PWM_CHANNEL, d)
        return None

    def deinit(self):
        self._duty = 0


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, timer_id=-1):
        self.deadline = None
        self.callback = None
        self.hard = False
        self.fired = 0

    def init(self, mode=ONE_SHOT, period=0, callback=None, hard=False):
        self.deinit()
        self.deadline = vclock.ticks_add(vclock.ticks_ms(), period)
        self.callback = callback
        self.hard = hard
        vclock.timers.append(self)

    def deinit(self):
        self.deadline = None
        if self in vclock.timers:
            vclock.timers.remove(self)

    def check(self, now):
        if self.deadline is None or vclock.ticks_diff(now, self.deadline) < 0:
            return
        callback = self.callback
        self.deinit()
        self.fired += 1
        if callback is not None:
            if self.hard:
                hard_call(callback, self)
            else:
                callback(self)


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1
