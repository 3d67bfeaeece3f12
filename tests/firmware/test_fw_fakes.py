"""One fake ``machine`` for both interpreters: the CPython firmware tests load ``firmware/mpchecks/machine.py``,
the file the checks under a real MicroPython import (test_fw_micropython.py), and only the clock differs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from firmware import mpfakes
from firmware.mpfakes import FIRMWARE, TRACE_SLOTS, load_check_module, machine, mp_time

CHECKS = FIRMWARE / "mpchecks"


@pytest.fixture
def virtual() -> Iterator[None]:
    mp_time.use_virtual(0)
    yield
    machine.use_clock(mp_time)
    machine.use_trace(TRACE_SLOTS)
    mp_time.use_real()


def test_the_tests_and_the_micropython_checks_load_the_same_files() -> None:
    assert Path(machine.__file__) == CHECKS / "machine.py"
    assert not (Path(mpfakes.__file__).parent / "machine.py").exists()  # no second fake beside the first
    assert Path(load_check_module("hbridge").__file__) == CHECKS / "hbridge.py"
    runner = " ".join((FIRMWARE.parent / "tests" / "firmware" / "test_fw_micropython.py").read_text().split())
    assert '"--copy", f"/lib={CHECKS}"' in runner  # MicroPython imports machine/hbridge from that same folder


def hand_stepped_clock() -> Any:
    """A clock like firmware/mpchecks/vclock.py (which only MicroPython imports: its ``time`` has ticks_diff)."""
    period = 1 << 30
    return SimpleNamespace(
        ticks_ms=lambda: 0,
        ticks_add=lambda a, b: (a + b) % period,
        ticks_diff=lambda a, b: ((a - b + period // 2) % period) - period // 2,
        timers=[],
        STALL_MS=0,
    )


@pytest.mark.usefixtures("virtual")
def test_only_the_host_clock_discounts_a_descheduled_thread() -> None:
    """The same Timer code: on the checks' hand-stepped clock a 300 ms jump is time the firmware lived through and
    the 50 ms timer fires; on the host's clock (STALL_MS 10) a 300 ms gap between two checks is the host's, so it
    fires only 50 ms of checked time later."""
    clock = hand_stepped_clock()
    machine.use_clock(clock)
    fired: list[int] = []
    timer = machine.Timer()
    timer.init(period=50, callback=lambda t: fired.append(1), hard=True)
    assert clock.timers == [timer]
    timer.check(300)
    assert fired == [1] and clock.timers == []

    machine.use_clock(mp_time)
    timer.init(period=50, callback=lambda t: fired.append(2), hard=True)
    mp_time.sleep_ms(1)
    mp_time.sleep_ms(300)  # the host's thread descheduled
    assert fired == [1]
    for _ in range(60):
        mp_time.sleep_ms(1)
    assert fired == [1, 2]


@pytest.mark.usefixtures("virtual")
def test_the_write_trace_is_a_ring_that_refuses_to_answer_for_what_it_dropped() -> None:
    machine.use_trace(4)
    pin = machine.Pin(7, machine.Pin.OUT)
    for level in (1, 0, 1, 0, 1, 0):
        pin.value(level)
    assert machine.writes(7, since=2) == [1, 0, 1, 0]
    with pytest.raises(AssertionError, match="kept only the last 4 of 6"):
        machine.writes(7)
