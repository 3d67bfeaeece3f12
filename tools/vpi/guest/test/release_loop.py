"""Claim and close an input with edge detection N times on real lgpio; count 'GPIO busy' (vpi_test.py ``release``).

Two rounds on the same free line: gpiozero's own lgpio pin (for comparison: lgpio re-claims the line while its
alert thread may still hold the old request), then the project's (``make_pin_factory``: it waits for the kernel to
free the line first). The last line of output is JSON: per round the cycles, the 'GPIO busy' errors, and — for the
project's pin — how often the kernel still held the line when lgpio had let go of it, and the longest such wait.

Example (in the guest)::

    /opt/unolauncher/venv/bin/python release_loop.py c03111 5 150
"""

from __future__ import annotations

import json
import sys
from typing import Any

from gpiozero import DigitalInputDevice
from gpiozero.pins.lgpio import LGPIOPin

from unolauncher.launcher.backends.gpio import lgpio_release
from unolauncher.launcher.factory import make_pin_factory


def loop(factory: Any, gpio: int, cycles: int) -> dict[str, Any]:
    busy = done = 0
    first_error = ""
    for _ in range(cycles):
        device = None
        try:
            device = DigitalInputDevice(gpio, pull_up=True, pin_factory=factory)  # an alert on it, as a button
            device.close()
            done += 1
        except Exception as exc:
            busy += "GPIO busy" in str(exc)
            first_error = first_error or f"{type(exc).__name__}: {exc}"
            if device is not None:
                device._pin = None  # half closed: keep gpiozero's __del__ from closing it again
    return {"cycles": done, "busy": busy, "first_error": first_error}


def main(board: str, gpio: int, cycles: int) -> int:
    waits: list[float] = []
    original = lgpio_release.wait_released

    def timed(chip: str, offset: int, timeout: float = lgpio_release.RELEASE_TIMEOUT_S) -> float:
        waited = original(chip, offset, timeout)
        waits.append(waited)
        return waited

    factory = make_pin_factory("lgpio", board)
    factory.pin_class = LGPIOPin  # gpiozero's own (a factory caches its pins: one factory per round)
    try:
        plain = loop(factory, gpio, cycles)
    finally:
        factory.close()
    factory = make_pin_factory("lgpio", board)
    lgpio_release.wait_released = timed  # release_line looks it up at each call
    try:
        project = loop(factory, gpio, cycles)
    finally:
        lgpio_release.wait_released = original
        factory.close()
    held = [w for w in waits if w > 0]
    project.update(held_after_lgpio_let_go=len(held), longest_wait_ms=round(max(held, default=0) * 1000, 1))
    print(f"gpiozero's LGPIOPin: {plain['busy']} 'GPIO busy' in {cycles} claim/close cycles")
    print(f"the project's pin: {project['busy']} 'GPIO busy'; the kernel still held the line after lgpio let go "
          f"in {len(held)} of {len(waits)} closes (longest wait {project['longest_wait_ms']} ms)")  # fmt: skip
    print(json.dumps({"plain": plain, "releasing": project}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
