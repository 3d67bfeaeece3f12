"""The press path on the virtual launcher: button → the table's claim (who may hit, the plan) → motor → hit, with its
events. The table is stood in for by ``ModelClaims`` (a model and its state; the referee's in the daemon)."""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest

from support.claims import ModelClaims
from unolauncher.launcher.backends.gpio.feedback import pulse_interval
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.press import PressClaim, PressHandler
from unolauncher.rules.ejection import EjectionModel

from .conftest import Rig

ALWAYS = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"3": 1}}
NEVER_TWICE = {"miss_hazard": [0.0, 0.0, 1.0], "hit_repeat": [0.0], "cards": {"2": 1}}  # fires every 3rd press


class Table(ModelClaims):
    """Stands in for the daemon: plans presses (the referee's job there), records hits and events."""

    def __init__(self, rig: Rig, model: EjectionModel, hitter: str | None = "ann", lockout: bool = True) -> None:
        super().__init__(model, hitter)
        self.hits: list[tuple[str | None, FirePlan, FireResult]] = []
        self.events: list[dict[str, Any]] = []
        self.handler = PressHandler(
            rig.launcher,
            self.claim,
            on_hit=lambda player, plan, result: self.hits.append((player, plan, result)),
            on_event=self.events.append,
            lockout=lockout,
            on_lid_opened=self.lid_opened,
        )

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


@pytest.fixture
def table(rig: Rig) -> Table:
    return Table(rig, EjectionModel("custom", ALWAYS))


def test_press_fires_counts_and_reports_hit(rig: Rig, table: Table) -> None:
    rig.sim.press_button()
    assert rig.sim.motor_pin_high
    rig.clock.advance(2)
    assert len(table.hits) == 1
    player, plan, result = table.hits[0]
    assert player == "ann" and plan.cards == 3 and result.cards_out == 3 and result.outcome == "ok"
    assert table.types() == ["fired"]  # the press event is the referee's (with the pressed command)
    assert table.presses == 1
    assert table.events[0] == {"type": "fired", "player": "ann", "cards": 3, "outcome": "ok", "ran_ms": 372,
                               "counted": True}  # fmt: skip


def test_presses_while_motor_runs_are_ignored(rig: Rig, table: Table) -> None:
    rig.sim.press_button()
    rig.clock.advance(0.15)
    rig.sim.press_button()
    rig.clock.advance(0.15)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert table.types().count("ignored_press") == 2
    assert len(table.hits) == 1 and table.presses == 1  # ignored presses use no plan


def test_lockout_when_nobody_may_hit(rig: Rig, table: Table) -> None:
    table.hitter = None
    rig.sim.press_button()
    rig.clock.advance(1)
    assert not rig.sim.pin("motor_enable").states[1:]  # the motor pin never moved
    assert table.types()[-1] == "lockout" and table.hits == []
    assert table.presses == 0


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
    assert "press_refused" in table.types() and table.hits == [] and table.presses == 0
    assert len(rig.sim.pin("motor_enable").states) == 1


def test_no_fire_press_reports_zero_and_pulses_faster(rig: Rig) -> None:
    table = Table(rig, EjectionModel("custom", NEVER_TWICE))
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


def test_a_claim_raising_leaves_motor_off(rig: Rig) -> None:
    def broken(lockout: bool) -> PressClaim | None:
        raise RuntimeError("referee bug")

    events: list[dict[str, Any]] = []
    PressHandler(rig.launcher, broken, lambda *a: None, events.append)
    rig.sim.press_button()
    rig.clock.advance(1)
    assert not rig.sim.motor_pin_high and len(rig.sim.pin("motor_enable").states) == 1
    assert any(e["type"] == "fault" and "referee bug" in e["message"] for e in events)  # device guard, forwarded


def test_on_hit_raising_is_reported_and_next_press_works(rig: Rig) -> None:
    events: list[dict[str, Any]] = []

    def on_hit(*args: Any) -> None:
        raise RuntimeError("daemon bug")

    claims = ModelClaims(EjectionModel("custom", ALWAYS), hitter="bo")
    PressHandler(rig.launcher, claims.claim, on_hit, events.append)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert not rig.sim.motor_pin_high
    assert any(e["type"] == "fault" and "daemon bug" in e["message"] for e in events)
    rig.sim.press_button()
    assert rig.sim.motor_pin_high and claims.presses == 2
    rig.clock.advance(2)


def test_a_claimed_press_the_launcher_will_not_run_is_reported_as_not_started(rig: Rig, table: Table) -> None:
    """Its plan is used up (it is on the record), so the table must hear of it: a fault with no card, not a hit."""
    assert rig.launcher.fire(FirePlan(fire=True, cards=2, run_ms=400), lambda result: None)  # a dispense run
    rig.sim.press_button()
    assert table.presses == 1 and table.hits[-1][0] == "ann"
    assert table.hits[-1][2].outcome == "fault" and table.hits[-1][2].cards_out == 0
    rig.clock.advance(3)
    rig.sim.press_button()  # the launcher is free again: the next press runs
    assert rig.sim.motor_pin_high
    rig.clock.advance(3)
    assert table.hits[-1][2].cards_out == 3


def test_after_press_runs_once_the_motor_is_on(rig: Rig) -> None:
    claims = ModelClaims(EjectionModel("custom", ALWAYS))
    motor_at_after_press: list[bool] = []
    PressHandler(rig.launcher, claims.claim, lambda *a: None, lambda e: None,
                 after_press=lambda: motor_at_after_press.append(rig.sim.motor_pin_high))  # fmt: skip
    rig.sim.press_button()
    assert motor_at_after_press == [True]
    rig.clock.advance(2)


def test_a_press_while_the_last_hit_is_on_its_way_is_ignored_not_misattributed(rig: Rig) -> None:
    """The run has ended but its hit has not reached the table yet (``on_hit`` is still running: the table's lock is
    busy, say): a press now is ignored — never claimed from the state the hit is about to change, and never waiting
    for it. Once the hit is in, the next press counts for whoever the table says."""
    claims = ModelClaims(EjectionModel("custom", ALWAYS))
    events: list[dict[str, Any]] = []
    hits: list[str | None] = []

    def on_hit(player: str | None, plan: FirePlan, result: FireResult) -> None:
        if not hits:
            rig.sim.press_button()  # a press arrives now (the last release was long before: no debounce)
        hits.append(player)
        claims.hitter = "bo"  # the table applied the hit: bo's turn

    PressHandler(rig.launcher, claims.claim, on_hit, events.append)
    rig.sim.press_button()
    rig.clock.advance(2)
    assert hits == ["ann"] and claims.presses == 1, "the press during on_hit used no plan"
    assert [e["type"] for e in events] == ["fired", "ignored_press"], events
    rig.sim.press_button()
    rig.clock.advance(2)
    assert hits == ["ann", "bo"] and claims.presses == 2


def test_a_hit_known_on_the_input_thread_is_reported_off_it(rig: Rig) -> None:
    """With ``run_later`` (the daemon: its timer thread) the hit of a press that fires nothing is not reported on
    the input thread, which must never take the table's lock; presses in between are ignored until it is."""
    claims = ModelClaims(EjectionModel("custom", {"miss_hazard": [0.0, 1.0], "hit_repeat": [0.0], "cards": {"2": 1}}))
    events: list[dict[str, Any]] = []
    hits: list[tuple[str, str | None]] = []

    def on_hit(player: str | None, plan: FirePlan, result: FireResult) -> None:
        hits.append((threading.current_thread().name, player))

    later: list[Any] = []
    PressHandler(rig.launcher, claims.claim, on_hit, events.append, run_later=later.append)
    rig.sim.press_button()  # the first press of two is dry
    assert hits == [] and len(later) == 1, "not on the press thread"
    rig.clock.advance(0.15)  # released, and past the debounce
    rig.sim.press_button()  # before the dry press's hit was reported: ignored
    assert [e["type"] for e in events] == ["ignored_press"] and claims.presses == 1
    runner = threading.Thread(target=later[0], name="clock-timers")  # what the daemon's run_later does
    runner.start()
    runner.join(5)
    assert hits == [("clock-timers", "ann")]


def test_a_claim_the_table_refuses_is_reported_and_fires_nothing(rig: Rig) -> None:
    events: list[dict[str, Any]] = []
    PressHandler(rig.launcher, lambda lockout: "disabled", lambda *a: None, events.append)
    rig.sim.press_button()
    assert not rig.sim.motor_pin_high and len(rig.sim.pin("motor_enable").states) == 1
    assert events == [{"type": "press_refused", "reason": "disabled", "message": events[0]["message"]}]
    assert "enable it" in events[0]["message"]


def test_a_claim_the_table_ignores_is_an_ignored_press_and_fires_nothing(rig: Rig) -> None:
    """The table's next plan is claimed already, or being replaced at this instant: like a press during a run."""
    events: list[dict[str, Any]] = []
    PressHandler(rig.launcher, lambda lockout: "ignored", lambda *a: None, events.append)
    rig.sim.press_button()
    assert not rig.sim.motor_pin_high and len(rig.sim.pin("motor_enable").states) == 1
    assert events == [{"type": "ignored_press"}]


def test_the_emergency_stop_is_asked_first_without_the_table(rig: Rig) -> None:
    claims = ModelClaims(EjectionModel("custom", ALWAYS))
    events: list[dict[str, Any]] = []
    enabled = [False]
    PressHandler(rig.launcher, claims.claim, lambda *a: None, events.append, enabled=lambda: enabled[0])
    rig.sim.press_button()
    assert [e.get("reason") for e in events] == ["disabled"] and claims.presses == 0 and not rig.sim.motor_pin_high
    enabled[0] = True
    rig.clock.advance(0.2)
    rig.sim.press_button()
    assert rig.sim.motor_pin_high and claims.presses == 1
    rig.clock.advance(2)
