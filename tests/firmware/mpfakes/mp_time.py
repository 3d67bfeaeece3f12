"""Fake of MicroPython's ``time``: wrapping ``ticks_ms`` (2**30 period, started just before the wrap so any
code that subtracts ticks instead of using ``ticks_diff`` fails here), real or virtual time, and hooks that the
simulated hardware runs after every ``sleep_ms`` (the firmware loop's idle)."""

from __future__ import annotations

import time as _real
from collections.abc import Callable

PERIOD = 1 << 30
_HALF = PERIOD // 2

virtual_ms: int | None = None  # None: real time
offset = PERIOD - 3000  # ticks wrap three seconds into every test
hooks: list[Callable[[int], None]] = []


def raw_ms() -> int:
    """Unwrapped milliseconds (what the simulation uses)."""
    return virtual_ms if virtual_ms is not None else int(_real.monotonic() * 1000)


def ticks_ms() -> int:
    return (raw_ms() + offset) & (PERIOD - 1)


def ticks_add(a: int, b: int) -> int:
    return (a + b) & (PERIOD - 1)


def ticks_diff(a: int, b: int) -> int:
    return ((a - b + _HALF) & (PERIOD - 1)) - _HALF


def run_hooks() -> None:
    now = raw_ms()
    for hook in list(hooks):
        hook(now)


def sleep_ms(ms: int) -> None:
    global virtual_ms
    if virtual_ms is not None:
        virtual_ms += ms
    else:
        _real.sleep(ms / 1000)
    run_hooks()


def use_virtual(start: int = 0) -> None:
    global virtual_ms
    virtual_ms = start
    hooks.clear()


def use_real() -> None:
    global virtual_ms
    virtual_ms = None
    hooks.clear()
