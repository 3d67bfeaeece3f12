"""The one fake of MicroPython's ``machine`` (the parts the RP2040 board uses), for both interpreters: the checks
that run inside a real MicroPython (``firmware/mpchecks/check_*.py``) and the CPython firmware tests
(``tests/firmware/mpfakes`` loads this very file). Only the clock differs, and it is injected:

    machine.use_clock(vclock)    # MicroPython checks: virtual ms stepped by hand (mphost.py)
    machine.use_clock(mp_time)   # CPython tests: real or virtual time on a host thread (mpfakes.mp_time)

A clock is a module with MicroPython's ``ticks_ms``/``ticks_add``/``ticks_diff``, a ``timers`` list whose
``check(now)`` it calls after every ``sleep_ms`` step, and ``STALL_MS``: a gap between two checks longer than
that is the host descheduling the firmware's thread and does not count toward a timer (0: the clock never stalls).

Handlers registered with ``hard=True`` (pin IRQs, timers) run with the heap locked, as the RP2040 port runs hard
interrupts: an allocation inside one raises ``MemoryError`` under MicroPython, which :func:`hard_call` records in
``hard_errors`` and re-raises, so the check fails (CPython's fake ``micropython`` cannot lock its heap). Nothing
here allocates on the path into a handler.
"""

from array import array

import micropython

PWRON_RESET = 1
WDT_RESET = 3
next_reset_cause = PWRON_RESET
pulled_down = set()  # GPIOs with an external pull-down fitted: they read low as inputs with the pull-up
hard_errors = []  # MemoryErrors raised by hard handlers (kept for the checks' messages)
hard_calls = [0]
clock = None  # set by use_clock() before the board is built


def use_clock(module):
    """Read time from ``module`` from now on (see the module docstring); pending timers are dropped."""
    global clock
    clock = module
    del module.timers[:]


# Every write to an output pin or a PWM duty, in order: (ms, channel, level) with channel = the GPIO for a pin's
# level (0/1) and the GPIO + PWM_CHANNEL for a PWM's duty (0-65535). Preallocated, so the lid's hard interrupt
# handler can write pins with the heap locked. A ring: ``trace_len[0]`` counts every write ever made, the last
# ``trace_slots[0]`` of them are kept (a check that needs all of them asserts trace_len <= slots).
PWM_CHANNEL = 100
TRACE_SLOTS = 1024
trace_slots = [TRACE_SLOTS]
trace = array("i", [0] * (3 * TRACE_SLOTS))
trace_len = [0]


def use_trace(slots):
    """A new, empty trace of ``slots`` writes (the CPython tests run long simulations: they keep more)."""
    global trace
    trace = array("i", [0] * (3 * slots))
    trace_slots[0] = slots
    trace_len[0] = 0


def record(channel, level):
    n = trace_len[0]
    i = 3 * (n % trace_slots[0])
    trace[i] = clock.ticks_ms()
    trace[i + 1] = channel
    trace[i + 2] = level
    trace_len[0] = n + 1


def writes(channel, since=0):
    """The levels written to ``channel`` (a GPIO, or GPIO + PWM_CHANNEL for a duty) from write number ``since``
    (a ``trace_len[0]`` read earlier) on, oldest first."""
    n = trace_len[0]
    assert n - since <= trace_slots[0], f"the trace kept only the last {trace_slots[0]} of {n - since} writes"
    out = []
    for k in range(since, n):
        i = 3 * (k % trace_slots[0])
        if trace[i + 1] == channel:
            out.append(trace[i + 2])
    return out


def reset_cause():
    return next_reset_cause


class ResetCalled(SystemExit):
    """machine.reset(): stop the firmware (its thread, or the check) instead of rebooting."""


def reset():
    raise ResetCalled(0)


irq_depth = [0]  # nesting depth of disable_irq(), so tests can see the ring buffers are read with IRQs off


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

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

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

    def __init__(self, timer_id=-1, **kwargs):
        self.deadline = None
        self.callback = None
        self.hard = False
        self.fired = 0
        self._last = None

    def init(self, mode=ONE_SHOT, period=0, callback=None, hard=False):
        self.deinit()
        self.deadline = clock.ticks_add(clock.ticks_ms(), period)
        self._last = None
        self.callback = callback
        self.hard = hard
        clock.timers.append(self)

    def deinit(self):
        self.deadline = None
        if self in clock.timers:
            clock.timers.remove(self)

    def check(self, now):
        if self.deadline is None:
            return
        gap = 0 if self._last is None else clock.ticks_diff(now, self._last)
        self._last = now
        if clock.STALL_MS and gap > clock.STALL_MS:
            # The host descheduled the firmware's thread (a Pico's loop never is): that time is the host's, not the
            # firmware's. A stuck firmware loop (the tests stall it one sleep_ms(1) at a time) still trips it on time.
            self.deadline = clock.ticks_add(self.deadline, gap - 1)
        if clock.ticks_diff(now, self.deadline) < 0:
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
    instances = []  # noqa: RUF012 - every watchdog made, for the tests (MicroPython has no typing.ClassVar)

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        WDT.instances.append(self)

    def feed(self):
        self.feeds += 1
