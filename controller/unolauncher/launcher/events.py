"""The launcher-level events every backend reports through ``on_event`` (same fields and wording on each).

Each call returns a fresh dict: the receiver (journal, MQTT) may add to it.

Example::

    >>> jam_event(cards_out=2, expected=5)["message"]  # what a backend passes to launcher.on_event
    'The launcher jammed: open the lid and clear the cards.'
"""

from __future__ import annotations

from typing import Any


def jam_event(cards_out: int, expected: int) -> dict[str, Any]:
    return {
        "type": "jam",
        "cards_out": cards_out,
        "expected": expected,
        "message": "The launcher jammed: open the lid and clear the cards.",
    }


def empty_event(cards_out: int) -> dict[str, Any]:
    return {"type": "magazine_empty", "cards_out": cards_out, "message": "The launcher is empty: reload it."}


def max_run_event(limit_s: float, cards_out: int) -> dict[str, Any]:
    return {"type": "max_run", "limit_s": limit_s, "cards_out": cards_out}


def lid_open_fault() -> dict[str, Any]:
    """A fire refused (or stopped before the motor started) because the lid is open."""
    return {"type": "fault", "reason": "lid_open", "message": "The lid is open: close it to fire."}


def done_callback_fault(exc: Exception) -> dict[str, Any]:
    """The ``done`` callback given to ``fire`` raised ``exc`` (the motor is already off)."""
    return {"type": "fault", "reason": "callback", "message": f"done callback failed: {exc}"}
