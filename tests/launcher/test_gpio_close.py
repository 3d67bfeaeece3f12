"""GpioLauncher.close() when lgpio refuses to release an input (found by the virtual Pi, tools/vpi).

On real lgpio, gpiozero's close of an input with an edge alert on it sometimes raises ``lgpio.error: 'GPIO busy'``,
and afterwards the device's ``repr`` raises too (``'GPIO not allocated'``): the old "closing %r failed" log record
then failed to format, and its message was lost. The daemon's stop must go on: motor off, the other pins released.
"""

from __future__ import annotations

import logging

import pytest

from unolauncher.launcher.interface import FirePlan
from unolauncher.launcher.pins import DEFAULT_PINS

from .conftest import Rig


class LgpioError(Exception):
    """Stands in for ``lgpio.error`` (not installed off the Pi)."""


def test_close_survives_gpio_busy_with_the_motor_off(rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    launcher, factory = rig.launcher, rig.factory
    assert launcher.fire(FirePlan(fire=True, cards=2), lambda result: None)
    forward = factory.pin(DEFAULT_PINS.motor_forward)
    assert forward.state == 1  # the motor runs when the daemon stops
    uno = factory.pin(DEFAULT_PINS.uno)

    def busy() -> None:
        raise LgpioError("GPIO busy")

    def unallocated() -> bool:
        raise LgpioError("GPIO not allocated")

    uno.close = busy
    uno._get_state = unallocated  # what repr(device) reads
    try:
        with caplog.at_level(logging.WARNING, logger="unolauncher.launcher.backends.gpio"):
            launcher.close()  # pytest's log handler raises if a record fails to format
    finally:
        del uno.close, uno._get_state  # gpiozero closes the device again when it is collected
    assert forward.state == 0 and factory.pin(DEFAULT_PINS.motor_enable).state == 0
    assert any("GPIO busy" in record.getMessage() for record in caplog.records)
    assert factory.pin(DEFAULT_PINS.button).function == "input"  # the button, closed after the UNO button
