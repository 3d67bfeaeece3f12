"""Fake of the ``micropython`` module: records ``kbd_intr`` calls, runs ``schedule``d callbacks at once; CPython
cannot lock its heap, so ``heap_lock`` only counts (the allocation-free handlers are checked under MicroPython)."""

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


heap_locks = [0]


def heap_lock() -> None:
    heap_locks[0] += 1


def heap_unlock() -> int:
    return 0
