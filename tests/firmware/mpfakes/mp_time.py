"""Fake of MicroPython's ``time``, and the clock of the fake ``machine``: wrapping ``ticks_ms`` (2**30 period,
started just before the wrap so any code that subtracts ticks instead of using ``ticks_diff`` fails here), real or
virtual time, and hooks that the simulated hardware runs after every ``sleep_ms`` (the firmware loop's idle),
then the fake machine's timers."""

from __future__ import annotations

import threading
import time as _real
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

PERIOD = 1 << 30
_HALF = PERIOD // 2

virtual_ms: int | None = None  # None: real time
offset = PERIOD - 3000  # ticks wrap three seconds into every test
hooks: list[Callable[[int], None]] = []
timers: list[Any] = []  # the fake machine's pending Timers (machine.use_clock(mp_time) makes this their clock)
# The firmware runs on a host thread, which a loaded host can deschedule for longer than the guard's margin; a
# Pico's loop never is. A gap this long between two timer checks is the host's time, not the firmware's.
STALL_MS = 10
_edge = threading.local()  # .at: the moment an input edge happened, while the simulation applies it (edge_at)


def raw_ms() -> int:
    """Unwrapped milliseconds (what the simulation uses)."""
    at: int | None = getattr(_edge, "at", None)
    if at is not None:
        return at
    return virtual_ms if virtual_ms is not None else int(_real.monotonic() * 1000)


@contextmanager
def edge_at(ms: int) -> Iterator[None]:
    """Clock reads on this thread give ``ms`` inside the block: the simulation applies an input edge when the
    firmware loop next idles, which on a loaded machine can be tens of milliseconds after the finger moved, but a
    pin IRQ on the board stamps the edge when it happens. Without this, a press and its release applied in one late
    step carried one time stamp, and the firmware's debounce rightly took the release for contact bounce."""
    _edge.at = ms
    try:
        yield
    finally:
        _edge.at = None


def ticks_ms() -> int:
    return (raw_ms() + offset) & (PERIOD - 1)


def ticks_add(a: int, b: int) -> int:
    return (a + b) & (PERIOD - 1)


def ticks_diff(a: int, b: int) -> int:
    return ((a - b + _HALF) & (PERIOD - 1)) - _HALF


def run_hooks() -> None:
    """The simulated hardware first (input edges, card physics), then the fake machine's timers."""
    now = raw_ms()
    for hook in list(hooks):
        hook(now)
    ticks = ticks_ms()
    for timer in list(timers):
        timer.check(ticks)


def sleep_ms(ms: int) -> None:
    global virtual_ms
    if virtual_ms is not None:
        virtual_ms += ms
    else:
        _real.sleep(ms / 1000)
    run_hooks()


def sleep_us(us: int) -> None:
    """Microsecond waits (the wiring probe's settling time) are below the fake clock's resolution."""


def use_virtual(start: int = 0) -> None:
    global virtual_ms
    virtual_ms = start
    hooks.clear()
    timers.clear()


def use_real() -> None:
    global virtual_ms
    virtual_ms = None
    hooks.clear()
    timers.clear()
