"""The press path on the virtual launcher: button → who may hit → model → motor → hit, with its events."""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from unolauncher.clock import VirtualClock
from unolauncher.launcher.ejection import EjectionModel, commitment
from unolauncher.launcher.feedback import pulse_interval
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.press import PressHandler, PressSnapshot

from .conftest import Rig, make_rig

ALWAYS = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"3": 1}}
NEVER_TWICE = {"miss_hazard": [0.0, 0.0, 1.0], "hit_repeat": [0.0], "cards": {"2": 1}}  # fires every 3rd press


class Table:
    """Stands in for the daemon: records hits, decides who may hit."""

    def __init__(self, rig: Rig, model: EjectionModel, hitter: str | None = "ann", lockout: bool = True) -> None:
        self.hitter = hitter
        self.hits: list[tuple[str | None, FirePlan, FireResult]] = []
        self.events: list[dict[str, Any]] = []
        self.handler = PressHandler(
            rig.launcher,
            model,
            snapshot=lambda: PressSnapshot(self.hitter),
            on_hit=lambda player, plan, result: self.hits.append((player, plan, result)),
            on_event=self.events.append,
            lockout=lockout,
        )

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


@pytest.fixture
def table(rig: Rig) -> Table:
    t = Table(rig, EjectionModel("custom", ALWAYS))
    t.handler.start(42)
    return t


def test_press_fires_counts_and_reports_hit(rig: Rig, table: Table) -> None:
    rig.sim.press_button()
    assert rig.sim.motor_pin_high
    rig.clock.advance(2)
    assert len(table.hits) == 1
    player, plan, result = table.hits[0]
    assert player == "ann" and plan.cards == 3 and result.cards_out == 3 and result.outcome == "ok"
    assert table.types() == ["ejection_start", "press", "fired"]
    assert table.events[0]["commitment"] == commitment(42)
    assert table.events[1]["index"] == 0 and table.events[1]["plan"]["cards"] == 3
    assert table.events[2] == {"type": "fired", "player": "ann", "cards": 3, "outcome": "ok", "ran_ms": 372,
                               "counted": True}  # fmt: skip


def test_presses_while_motor_runs_are_ignored(rig: Rig, table: Table) -> None:
    rig.sim.press_button()
    rig.clock.advance(0.15)
    rig.sim.press_button()
    rig.clock.advance(0.15)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert table.types().count("ignored_press") == 2
    assert len(table.hits) == 1 and table.handler.state["press"] == 1  # ignored presses use no model press


def test_lockout_when_nobody_may_hit(rig: Rig, table: Table) -> None:
    table.hitter = None
    rig.sim.press_button()
    rig.clock.advance(1)
    assert not rig.sim.pin("motor_enable").states[1:]  # the motor pin never moved
    assert table.types()[-1] == "lockout" and table.hits == []
    assert table.handler.state["press"] == 0


def test_without_lockout_an_unattributed_press_still_fires(rig: Rig) -> None:
    table = Table(rig, EjectionModel("custom", ALWAYS), hitter=None, lockout=False)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert table.hits[0][0] is None and table.hits[0][2].cards_out == 3


def test_press_refused_with_lid_open(rig: Rig, table: Table) -> None:
    rig.sim.open_lid()
    rig.clock.advance(0.1)
    rig.sim.press_button()
    rig.clock.advance(1)
    assert "press_refused" in table.types() and table.hits == []
    assert len(rig.sim.pin("motor_enable").states) == 1


def test_no_fire_press_reports_zero_and_pulses_faster(rig: Rig) -> None:
    table = Table(rig, EjectionModel("custom", NEVER_TWICE))
    table.handler.start(1)
    rig.sim.press_button()
    rig.clock.advance(0.2)
    assert table.hits[0][2] == FireResult(0, 0, "no_fire")
    assert rig.launcher.feedback.tension == 1
    rig.sim.press_button()
    rig.clock.advance(0.2)
    assert rig.launcher.feedback.tension == 2
    assert pulse_interval(2) < pulse_interval(1)
    pulses_before = rig.launcher.feedback.pulses
    rig.clock.advance(1.2)
    expected = 1.2 / pulse_interval(2)  # the phase of the first pulse decides between floor and ceil
    assert math.floor(expected) <= rig.launcher.feedback.pulses - pulses_before <= math.ceil(expected)
    rig.sim.press_button()  # third press fires: cards out, quiet again
    rig.clock.advance(2)
    assert table.hits[-1][2].cards_out == 2 and rig.launcher.feedback.tension == 0
    assert rig.launcher.feedback.chimes == 3  # a chime on every accepted press
    assert len(rig.sim.pin("buzzer").states) > 6 and len(rig.sim.pin("led").states) > 6


def test_pulses_give_up_after_a_while(rig: Rig) -> None:
    table = Table(rig, EjectionModel("custom", NEVER_TWICE))
    rig.sim.press_button()
    rig.clock.advance(60)
    count = rig.launcher.feedback.pulses
    rig.clock.advance(60)
    assert rig.launcher.feedback.pulses == count and count > 0 and table.hits


def test_lid_restarts_the_sequence_count(rig: Rig) -> None:
    table = Table(rig, EjectionModel("sequence"))
    table.handler.start(5)
    for _ in range(3):
        rig.sim.press_button()
        rig.clock.advance(3)
    rig.sim.open_lid()
    rig.clock.advance(0.2)
    rig.sim.close_lid()
    rig.clock.advance(0.2)
    fired = []
    for _ in range(2):
        rig.sim.press_button()
        rig.clock.advance(3)
        fired.append(table.hits[-1][1].fire)
    assert fired == [False, True]  # presses 1 and 2 of the sequence again
    assert "lid_open" in table.types()


def test_jam_and_empty_events_forwarded(rig: Rig, table: Table) -> None:
    rig.sim.jam()
    rig.sim.press_button()
    rig.clock.advance(4)
    assert "jam" in table.types() and table.hits[0][2].outcome == "jam"


def test_snapshot_raising_leaves_motor_off(rig: Rig) -> None:
    def broken() -> PressSnapshot:
        raise RuntimeError("referee bug")

    events: list[dict[str, Any]] = []
    PressHandler(rig.launcher, EjectionModel("custom", ALWAYS), broken, lambda *a: None, events.append)
    rig.sim.press_button()
    rig.clock.advance(1)
    assert not rig.sim.motor_pin_high and len(rig.sim.pin("motor_enable").states) == 1
    assert any(e["type"] == "fault" and "referee bug" in e["message"] for e in events)  # device guard, forwarded


def test_on_hit_raising_is_reported_and_next_press_works(rig: Rig) -> None:
    events: list[dict[str, Any]] = []

    def on_hit(*args: Any) -> None:
        raise RuntimeError("daemon bug")

    bo = PressSnapshot("bo")
    handler = PressHandler(rig.launcher, EjectionModel("custom", ALWAYS), lambda: bo, on_hit, events.append)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert not rig.sim.motor_pin_high
    assert any(e["type"] == "fault" and "daemon bug" in e["message"] for e in events)
    rig.sim.press_button()
    assert rig.sim.motor_pin_high and handler.state["press"] == 2
    rig.clock.advance(2)


def test_reveal_and_restore(rig: Rig, table: Table) -> None:
    rig.sim.press_button()
    rig.clock.advance(2)
    saved = dict(table.handler.state)
    assert table.handler.reveal()["seed"] == 42
    other = make_rig(MockFactory(pin_class=rig.factory.pin_class), VirtualClock())
    try:
        again = Table(other, EjectionModel("custom", ALWAYS))
        again.handler.restore(saved)
        assert again.handler.state == saved and again.handler.seed == 42
    finally:
        other.launcher.close()


def test_plan_ahead_never_uses_a_stale_plan(rig: Rig) -> None:
    """The next plan is computed ahead; swapping the model or the state must not let the old one through."""
    table = Table(rig, EjectionModel("custom", ALWAYS))
    table.handler.start(9)
    assert table.handler._ahead is not None and table.handler._ahead[2].fire  # planned before any press
    table.handler.model = EjectionModel("custom", NEVER_TWICE)  # what the daemon does on a preset change
    rig.sim.press_button()
    rig.clock.advance(1)
    assert table.hits[-1][1].fire is False and not rig.sim.pin("motor_enable").states[1:]
    table.handler.restore(EjectionModel("custom", NEVER_TWICE).start(9) | {"press": 2, "run": -2})
    rig.sim.press_button()  # the restored state says: third dry press -> fires
    assert rig.sim.motor_pin_high
    rig.clock.advance(2)
    assert table.hits[-1][2].cards_out == 2


def test_a_press_while_the_last_hit_is_on_its_way_is_ignored_not_misattributed(rig: Rig) -> None:
    """The run has ended but its hit has not reached the table yet (``on_hit`` is still running: the table's lock is
    busy, say): a press now is ignored — never attributed from the snapshot the hit is about to replace, and never
    waiting for it. Once the hit is in, the next press counts for whoever the table says."""
    events: list[dict[str, Any]] = []
    current = [PressSnapshot("ann")]
    hits: list[str | None] = []

    def on_hit(player: str | None, plan: FirePlan, result: FireResult) -> None:
        if not hits:
            rig.sim.press_button()  # a press arrives now (the last release was long before: no debounce)
        hits.append(player)
        current[0] = PressSnapshot("bo")  # the table applied the hit: bo's turn

    handler = PressHandler(rig.launcher, EjectionModel("custom", ALWAYS), lambda: current[0], on_hit, events.append)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert hits == ["ann"]
    assert [e["type"] for e in events] == ["press", "fired", "ignored_press"], events
    rig.sim.press_button()
    rig.clock.advance(2)
    assert hits == ["ann", "bo"] and handler.state["press"] == 2
    assert [e["type"] for e in events] == ["press", "fired", "ignored_press", "press", "fired"]
    assert [e["player"] for e in events if e["type"] == "press"] == ["ann", "bo"]


def test_a_no_fire_hit_leaves_the_input_thread_and_follows_its_press(rig: Rig) -> None:
    """With ``run_later`` (the daemon: its timer thread) the hit of a press that fires nothing is not reported on
    the input thread, which must never take the table's lock; it follows the press event, and presses in between
    are ignored until it has been reported."""
    never = {"miss_hazard": [0.0, 1.0], "hit_repeat": [0.0], "cards": {"2": 1}}  # the first press of two is dry
    events: list[dict[str, Any]] = []
    hits: list[tuple[str, str | None]] = []

    def on_hit(player: str | None, plan: FirePlan, result: FireResult) -> None:
        hits.append((threading.current_thread().name, player))
        events.append({"type": "hit"})

    later: list[Any] = []
    ann = PressSnapshot("ann")
    PressHandler(rig.launcher, EjectionModel("custom", never), lambda: ann, on_hit, events.append,
                 run_later=later.append)  # fmt: skip
    rig.sim.press_button()
    assert hits == [] and len(later) == 1, "not on the press thread"
    rig.clock.advance(0.15)  # released, and past the debounce
    rig.sim.press_button()  # before the dry press's hit was reported: ignored
    assert [e["type"] for e in events] == ["press", "ignored_press"]
    runner = threading.Thread(target=later[0], name="clock-timers")  # what the daemon's run_later does
    runner.start()
    runner.join(5)
    assert hits == [("clock-timers", "ann")] and [e["type"] for e in events][-1] == "hit"
