"""CPython fakes of MicroPython's ``machine``, ``micropython`` and ``time``, and a loader that imports the
firmware's board module against them without disturbing the real ``time`` of everything else.

``machine`` is not a copy: it is ``firmware/mpchecks/machine.py``, the same file the checks under a real
MicroPython import, loaded here with ``mp_time`` as its clock and a longer write trace.

Example::

    rp2040 = load_rp2040()
    board = rp2040.Rp2040Board(stream=MemoryStream())
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from . import micropython, mp_time

FIRMWARE = Path(__file__).resolve().parents[3] / "firmware"
TRACE_SLOTS = 1 << 16  # writes kept (a ring): a simulated game writes the LED and the PWM thousands of times


def load_check_module(name: str) -> Any:
    """``firmware/mpchecks/<name>.py``, the MicroPython checks' own file, as a CPython module (its ``import
    micropython`` served by the fake). Typed ``Any``: that code is MicroPython, which mypy does not check."""
    saved = sys.modules.get("micropython")
    sys.modules["micropython"] = micropython
    try:
        spec = importlib.util.spec_from_file_location(name, FIRMWARE / "mpchecks" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            sys.modules.pop("micropython", None)
        else:
            sys.modules["micropython"] = saved
    return module


def _load_machine() -> Any:
    module = load_check_module("machine")
    module.use_clock(mp_time)
    module.use_trace(TRACE_SLOTS)
    return module


machine: Any = _load_machine()


def ensure_firmware_path() -> None:
    if str(FIRMWARE) not in sys.path:
        sys.path.insert(0, str(FIRMWARE))


def load_rp2040() -> Any:
    """A fresh ``unofw.rp2040`` module whose ``machine``/``micropython``/``time`` are the fakes.

    Typed ``Any``: the firmware is MicroPython that mypy does not check, and tests set its module globals
    (``SAFE_FLAG``)."""
    ensure_firmware_path()
    import unofw.board  # noqa: F401 - real modules first, so only rp2040 sees the fakes

    machine.use_trace(TRACE_SLOTS)  # a fresh firmware, a fresh write trace

    fakes = {"machine": machine, "micropython": micropython, "time": mp_time}
    saved = {name: sys.modules.get(name) for name in fakes}
    sys.modules.update(fakes)
    try:
        spec = importlib.util.spec_from_file_location("unofw_rp2040_under_fakes", FIRMWARE / "unofw" / "rp2040.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    return module


def levels(pin: Any, since: int = 0) -> list[int]:
    """The levels the firmware wrote to a fake ``Pin`` since the board module was loaded (or write ``since``)."""
    return list(machine.writes(pin.id, since))


def duties(pwm: Any, since: int = 0) -> list[int]:
    """The duties the firmware wrote to a fake ``PWM``, as :func:`levels`."""
    return list(machine.writes(pwm.pin.id + machine.PWM_CHANNEL, since))


def writes_so_far() -> int:
    """A mark for ``since``: the number of writes the fake machine has recorded."""
    return int(machine.trace_len[0])
