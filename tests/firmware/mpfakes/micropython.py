"""Fake of the ``micropython`` module: records ``kbd_intr`` calls, runs ``schedule``d callbacks at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

kbd_intr_calls: list[int] = []


def kbd_intr(chr_code: int) -> None:
    kbd_intr_calls.append(chr_code)


def schedule(func: Callable[[Any], None], arg: Any) -> None:
    func(arg)


def const(x: int) -> int:
    return x
