"""The lgpio pin that re-claims an edge-alert line only after the kernel freed it (backends/gpio/lgpio_release).

lgpio is not installed off the Pi, so a recording stand-in plays it here (GPIO pins are the one thing the project's
tests may mock); the kernel side — the line still requested while lgpio's alert thread sleeps in ``ppoll()`` — is
exercised for real by the virtual Pi (``tools/vpi``, its ``release`` and ``selftest`` scenarios).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from unolauncher.launcher.backends.gpio import lgpio_release

ALERT = 1 << 10  # gpiozero's LGPIOPin.GPIO_IS_LG_ALERT
PULL_UP = 1 << 5


class FakeLgpio(types.ModuleType):
    """Records the calls gpiozero and the pin make, in order; a line is in ``modes`` (gpio -> mode bits)."""

    SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = 128, 32, 64
    BOTH_EDGES, RISING_EDGE, FALLING_EDGE = 3, 1, 2

    def __init__(self) -> None:
        super().__init__("lgpio")
        self.calls: list[tuple[Any, ...]] = []
        self.modes: dict[int, int] = {}

    def gpio_get_mode(self, handle: int, gpio: int) -> int:
        return self.modes.get(gpio, 0)

    def gpio_free(self, handle: int, gpio: int) -> int:
        self.calls.append(("free", gpio))
        self.modes.pop(gpio, None)
        return 0

    def gpio_claim_input(self, handle: int, gpio: int, flags: int = 0) -> int:
        self.calls.append(("claim_input", gpio, flags))
        self.modes[gpio] = 1 << 8 | flags
        return 0


class Callback:
    def __init__(self, calls: list[tuple[Any, ...]]) -> None:
        self.calls = calls

    def cancel(self) -> None:
        self.calls.append(("cancel",))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLgpio]:
    lgpio = FakeLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", lgpio)
    sys.modules.pop("gpiozero.pins.lgpio", None)  # imported again below, on the stand-in
    monkeypatch.setattr(lgpio_release, "wait_released", lambda chip, gpio: lgpio.calls.append(("wait", chip, gpio)))
    yield lgpio
    sys.modules.pop("gpiozero.pins.lgpio", None)


def pin(lgpio: FakeLgpio, gpio: int) -> Any:
    cls: Any = lgpio_release.releasing_pin_class()
    device = cls.__new__(cls)  # no factory: the fields the pin reads
    device._factory = types.SimpleNamespace(_handle=7, chip=0)
    device._number = gpio
    device._callback = Callback(lgpio.calls) if lgpio.modes.get(gpio, 0) & ALERT else None
    device._info = types.SimpleNamespace(pull="", name=f"GPIO{gpio}")  # no physical pull resistor on the line
    return device


def test_closing_an_alert_line_waits_for_the_kernel_before_claiming_it_again(fake: FakeLgpio) -> None:
    fake.modes[17] = ALERT | PULL_UP
    pin(fake, 17).close()
    assert fake.calls == [("cancel",), ("free", 17), ("wait", "/dev/gpiochip0", 17), ("claim_input", 17, 128)]


def test_leaving_edge_detection_keeps_the_lines_pull(fake: FakeLgpio) -> None:
    fake.modes[27] = ALERT | PULL_UP
    pin(fake, 27)._disable_event_detect()
    assert fake.calls == [("cancel",), ("free", 27), ("wait", "/dev/gpiochip0", 27), ("claim_input", 27, PULL_UP)]


def test_an_output_is_freed_and_waited_for_before_it_is_claimed_again(fake: FakeLgpio) -> None:
    fake.modes[12] = 1 << 9  # an output (the motor lines): lgpio's claim would free it and request it at once
    pin(fake, 12).close()
    assert fake.calls == [("free", 12), ("wait", "/dev/gpiochip0", 12), ("claim_input", 12, 128)]


def test_a_line_lgpio_does_not_have_is_claimed_as_gpiozero_does(fake: FakeLgpio) -> None:
    pin(fake, 13).close()
    assert fake.calls == [("claim_input", 13, 128)]


def test_a_new_pull_waits_for_the_kernel_to_let_go_of_the_line(fake: FakeLgpio) -> None:
    # The arm64 guest's selftest: the button, a plain input again after its alert was released, was still busy
    # when gpiozero's _set_pull freed it and claimed it at once with the pull-up.
    fake.modes[17] = 1 << 8  # lgpio's input, no alert
    pin(fake, 17)._set_pull("up")
    assert fake.calls == [("free", 17), ("wait", "/dev/gpiochip0", 17), ("claim_input", 17, PULL_UP)]


def test_a_refused_pull_frees_nothing(fake: FakeLgpio) -> None:
    from gpiozero.exc import PinInvalidPull

    fake.modes[17] = 1 << 8
    with pytest.raises(PinInvalidPull):
        pin(fake, 17)._set_pull("sideways")
    assert fake.calls == []


def test_line_info_layout_matches_linux_gpio_h() -> None:
    # <linux/gpio.h>: name[32], consumer[32], offset, num_attrs, flags (u64), 10 attributes of 16 bytes, padding[4].
    raw = bytearray(256)
    raw[:6], raw[32:34] = b"GPIO17", b"lg"
    raw[64:68] = (17).to_bytes(4, "little")
    raw[72:80] = (lgpio_release.FLAG_USED | 1 << 2).to_bytes(8, "little")  # used, an input
    info = lgpio_release.LineInfo.unpack(bytes(raw))
    assert (info.offset, info.consumer, info.used) == (17, "lg", True)
    raw[72:80] = (1 << 2).to_bytes(8, "little")
    assert not lgpio_release.LineInfo.unpack(bytes(raw)).used


def test_selftest_names_a_busy_line_and_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero.pins.mock import MockFactory

    from unolauncher.launcher import gpio_selftest
    from unolauncher.launcher.pins import DEFAULT_PINS

    real = gpio_selftest.DigitalInputDevice

    def busy_button(gpio: int, **kwargs: Any) -> Any:
        if gpio == DEFAULT_PINS.button:
            raise RuntimeError("'GPIO busy'")  # what lgpio raises when another process holds the line
        return real(gpio, **kwargs)

    monkeypatch.setattr(gpio_selftest, "DigitalInputDevice", busy_button)
    factory = MockFactory()
    try:
        results = {part: (ok, detail) for part, ok, detail in gpio_selftest.check_pins(DEFAULT_PINS, factory)}
    finally:
        factory.close()
    ok, detail = results["pin button"]
    assert not ok and detail.startswith(f"GPIO {DEFAULT_PINS.button} cannot be used: 'GPIO busy'")
    assert "stop the daemon first (sudo systemctl stop unolauncher)" in detail
    assert results["pin sensor"][0]  # only the busy line fails
