"""Virtual time for the firmware checks: MicroPython's ``time`` API on a clock the checks advance by hand.

Ticks wrap at 2**30 (``PERIOD``) as on every MicroPython port; ``ticks_diff``/``ticks_add`` are the
interpreter's own. ``sleep_ms`` advances the clock one millisecond at a time and fires due timers. Reading the
clock allocates nothing (hard interrupt handlers read it with the heap locked).
"""

import time

PERIOD = 1 << 30
ticks_diff = time.ticks_diff
ticks_add = time.ticks_add

_now = 0
timers = []  # machine.Timer objects with a deadline (machine.use_clock(vclock) makes this the fake's clock)
STALL_MS = 0  # the clock is stepped by hand: it never stalls


def set_ms(ms):
    global _now
    _now = ms % PERIOD


def ticks_ms():
    return _now


def sleep_ms(ms):
    global _now
    for _ in range(ms):
        _now = (_now + 1) % PERIOD
        for timer in list(timers):
            timer.check(_now)


def sleep_us(us):
    pass  # below the virtual clock's resolution


def advance(ms):
    sleep_ms(ms)
