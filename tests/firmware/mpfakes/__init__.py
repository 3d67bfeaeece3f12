"""CPython fakes of MicroPython's ``machine``, ``micropython`` and ``time``, and a loader that imports the
firmware's board module against them without disturbing the real ``time`` of everything else.

Example::

    rp2040 = load_rp2040()
    board = rp2040.Rp2040Board(stream=MemoryStream())
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from . import machine, micropython, mp_time

FIRMWARE = Path(__file__).resolve().parents[3] / "firmware"


def ensure_firmware_path() -> None:
    if str(FIRMWARE) not in sys.path:
        sys.path.insert(0, str(FIRMWARE))


def load_rp2040() -> Any:
    """A fresh ``unofw.rp2040`` module whose ``machine``/``micropython``/``time`` are the fakes.

    Typed ``Any``: the firmware is MicroPython that mypy does not check, and tests set its module globals
    (``SAFE_FLAG``)."""
    ensure_firmware_path()
    import unofw.board  # noqa: F401 - real modules first, so only rp2040 sees the fakes

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
