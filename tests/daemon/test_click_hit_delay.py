"""A click's hit reaches the table :data:`CLICK_HIT_DELAY_S` after the press, not at once (issue 16, press → event):
applying it at once competed with the worker journalling that very press. What that costs, and all it costs: a
press sooner than that after a click is answered ``ignored_press`` (never lost without a word, never attributed
from a referee that has not counted the click), as during any hit until it is applied.

The launcher runs on a :class:`VirtualClock`: its timers fire only when the test advances it, so "not yet" is a
fact, not a race. The button's debounce is off here, so that a second press can come that soon at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.net import wait_until
from unolauncher.daemon.app import Daemon
from unolauncher.daemon.press_gate import CLICK_HIT_DELAY_S

from .honest import HONEST
from .virtual_time import game_on_virtual_time, journalled

pytestmark = pytest.mark.timeout(60)

# The first press after a game starts never fires (a click); the one after a click always fires one card.
CLICK_THEN_FIRE = {"miss_hazard": [0.0, 1.0], "hit_repeat": [0.0], "cards": {"1": 1}}
CONFIG: dict[str, dict[str, Any]] = {
    **HONEST,
    "launcher": {**HONEST["launcher"], "preset": "custom", "custom": CLICK_THEN_FIRE, "debounce_ms": 0},
}


def quiet(daemon: Daemon) -> bool:
    """The worker has journalled everything it was handed (what a timer handed it during ``advance`` included)."""
    assert daemon.table is not None
    return wait_until(daemon.table.idle, 10)


def test_a_clicks_hit_reaches_the_table_a_moment_after_the_press(tmp_path: Path) -> None:
    with game_on_virtual_time(tmp_path, "click", CONFIG) as (daemon, clock):
        table, virtual = daemon.table, daemon.virtual
        assert table is not None and virtual is not None
        hitter = table.hitter()
        virtual.press_button(hold_s=0.001)
        assert not virtual.motor_pin_high, "the first press is a click"
        assert wait_until(lambda: len(journalled(daemon, "press")) == 1, 10), "the press was not journalled"

        clock.advance(CLICK_HIT_DELAY_S * 0.8)  # released; a timer due by now has run inside advance()
        assert quiet(daemon)
        assert journalled(daemon, "hit") == [], "the click's hit came sooner than CLICK_HIT_DELAY_S"

        clock.advance(CLICK_HIT_DELAY_S * 0.4)
        assert quiet(daemon)
        hits = journalled(daemon, "hit")
        assert [(h["player"], h["cards"]) for h in hits] == [(hitter, 0)], hits


def test_a_press_sooner_than_a_clicks_hit_is_answered_and_the_next_one_served(tmp_path: Path) -> None:
    with game_on_virtual_time(tmp_path, "click", CONFIG) as (daemon, clock):
        table, virtual = daemon.table, daemon.virtual
        assert table is not None and virtual is not None
        virtual.press_button(hold_s=0.001)
        assert wait_until(lambda: len(journalled(daemon, "press")) == 1, 10)
        clock.advance(0.002)  # released, the click's hit not yet applied
        virtual.press_button(hold_s=0.001)  # a second press, 2 ms after the first
        assert quiet(daemon)
        assert len(journalled(daemon, "ignored_press")) == 1, "the early press was not answered ignored_press"
        assert not virtual.motor_pin_high, "the early press fired"

        clock.advance(CLICK_HIT_DELAY_S)  # the click's hit is applied; the press after it is served
        assert quiet(daemon)
        hitter = table.hitter()
        virtual.press_button(hold_s=0.001)
        assert virtual.motor_pin_high, "the press after the click's hit fired (the preset fires after a click)"
        assert wait_until(lambda: len(journalled(daemon, "press")) == 2, 10)
        assert journalled(daemon, "press")[-1]["player"] == hitter
