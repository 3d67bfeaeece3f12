"""The firmware's own modules under CPython on the fake ``machine``/``micropython``/``time``: debouncing, card
counting, fire runs, and the safety rules (max run, dead-man, guard timer, lid). Virtual time; the tick counter
wraps three seconds into every test, so any tick arithmetic that ignores ``ticks_diff`` fails here."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from unofw.app import run_forever
from unofw.debounce import Debouncer

from firmware.fwsim import Harness
from firmware.mpfakes import duties, levels, machine, micropython, mp_time, writes_so_far
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.interface import FirePlan


def fire(h: Harness, **plan: object) -> int:
    return h.ack_code(sp.FIRE, sp.encode_fire(FirePlan(**plan)))  # type: ignore[arg-type]


def ready(**physics: object) -> Harness:
    h = Harness(**physics)
    assert h.hello()["version"] == 1
    return h


# ---- boot, console, watchdog ---------------------------------------------------------------------------------


def test_motor_is_off_at_boot_and_the_main_loop_claims_the_console(harness: Harness) -> None:
    board = harness.board
    assert board.motor_state() == (0, 0) and board._in1.value() == 0 and board._in2.value() == 0
    micropython.kbd_intr_calls.clear()
    machine.WDT.instances.clear()
    ticks = iter(range(50))
    run_forever(board, should_stop=lambda: next(ticks) >= 49)
    assert micropython.kbd_intr_calls == [-1, 3]  # Ctrl-C off on the data channel, back on when the loop ends
    assert machine.WDT.instances and machine.WDT.instances[-1].feeds >= 48
    assert board._pwm.duty_u16() == 0


def test_ticks_wrap_during_the_tests() -> None:
    h = Harness()
    start = h.board.ticks_ms()
    h.loop(4000)
    assert h.board.ticks_ms() < start  # wrapped
    assert h.board.ticks_diff(h.board.ticks_ms(), start) == pytest.approx(4000, abs=5)
    mp_time.use_real()


# ---- debouncing ----------------------------------------------------------------------------------------------


def test_leading_debouncer_reports_the_first_edge_and_swallows_bounce() -> None:
    deb = Debouncer(20, leading=True)
    assert deb.update(True, 0) is True
    assert [deb.update(v, t) for t, v in [(1, False), (2, True), (5, False), (7, True)]] == [None] * 4
    assert deb.update(False, 25) is False  # released after the lock-out
    assert deb.update(True, 30) is None  # bounce of the release


def test_leading_debouncer_reports_a_level_that_settled_during_the_lockout() -> None:
    deb = Debouncer(20, leading=True)
    deb.update(True, 0)
    deb.update(False, 10)  # a very short tap
    assert deb.update(False, 21) is False


def test_trailing_debouncer_ignores_a_knock_and_reports_a_held_level() -> None:
    deb = Debouncer(50, leading=False)
    assert deb.update(True, 0) is None
    assert deb.update(False, 10) is None  # knock: back before 50 ms
    assert deb.update(True, 100) is None
    assert deb.update(True, 149) is None
    assert deb.update(True, 150) is True


def test_a_bouncing_press_is_one_press_event() -> None:
    h = ready()
    h.physics.press(hold_ms=80, bounce=True)
    h.loop(300)
    assert len({f.seq for f in h.events(sp.PRESS)}) == 1


def test_a_press_shorter_than_a_stalled_loop_is_still_one_press() -> None:
    h = ready()
    h.loop(30)
    button = h.board._button
    for level in (0, 1, 0, 1, 0, 1):  # press with bounce and release, all while the loop is not running
        button.drive(level)
    h.loop(100)
    assert len({f.seq for f in h.events(sp.PRESS)}) == 1
    h.physics.press(hold_ms=40)
    h.loop(40)
    button.drive(0)  # release bounce, then a stall longer than the debounce
    button.drive(1)
    for _ in range(60):
        mp_time.sleep_ms(1)
    h.loop(100)
    assert len({f.seq for f in h.events(sp.PRESS)}) == 2


def test_two_presses_applied_in_one_late_step_keep_their_own_edge_times() -> None:
    """The simulation applies input edges when the firmware loop idles; on a loaded machine that can be after two
    whole presses. A pin IRQ on the board stamps each edge when the finger moved, so the simulation must too:
    stamped with the late step's time, the first release looked like bounce and the second press was lost (the
    serial-daemon test's rare "press without a hit")."""
    h = ready()
    h.loop(30)
    h.physics.press(hold_ms=30)  # down now, up after 30 ms
    h.physics.press(hold_ms=30)  # a finger cannot press again at once: this one starts 40 ms after that release
    mp_time.sleep_ms(200)  # the firmware thread stalls: every edge of both presses is applied in this one step
    h.loop(100)
    assert len({f.seq for f in h.events(sp.PRESS)}) == 2


def test_presses_before_the_host_says_hello_are_not_queued() -> None:
    h = Harness()
    h.physics.press()
    h.loop(200)
    assert h.received == []
    h.hello()
    h.loop(50)
    assert h.events(sp.PRESS) == []


def test_lid_knock_is_ignored_and_a_real_opening_is_reported() -> None:
    h = ready()
    h.physics.at(0, h.board._lid, 1)
    h.physics.at(5, h.board._lid, 0)  # 5 ms knock
    h.loop(200)
    assert h.events(sp.LID) == []
    h.physics.set_lid(True)
    h.loop(100)
    h.physics.set_lid(False)
    h.loop(100)
    assert [f.body for f in h.events(sp.LID)] == [b"\x01", b"\x00"]


# ---- card counting -------------------------------------------------------------------------------------------


def test_beam_glitch_closer_than_the_minimum_gap_is_one_card() -> None:
    h = Harness()
    beam = h.board._beam
    for level in (0, 1, 0, 1):  # two falling edges in the same millisecond
        beam.drive(level)
    assert h.board.cards() == 1
    h.loop(10)
    beam.drive(0)
    assert h.board.cards() == 2


# ---- runs ----------------------------------------------------------------------------------------------------


def test_closed_loop_run_counts_cards_then_retracts() -> None:
    h = ready(magazine=20)
    assert fire(h, fire=True, cards=3, power=0.8) == sp.AckCode.OK
    assert h.board.motor_state()[1] == 1
    h.loop(600)
    [result] = h.done()
    assert (result.cards_out, result.outcome, result.counted) == (3, "ok", True)
    assert h.physics.ejected == 3 and h.physics.magazine == 17
    assert h.physics.reverse_ms == pytest.approx(120, abs=3)  # the retract pulse
    assert not h.motor_on()
    assert max(duties(h.board._pwm)) == 80 * 65535 // 100
    assert len({f.body for f in h.events(sp.CARD)}) == 3


def test_no_fire_plan_finishes_at_once_without_the_motor() -> None:
    h = ready()
    assert fire(h, fire=False) == sp.AckCode.OK
    h.loop(5)
    assert [r.outcome for r in h.done()] == ["no_fire"]
    assert duties(h.board._pwm) == [0, 0]  # only the boot-time writes


def test_suspense_delays_the_motor() -> None:
    h = ready()
    fire(h, fire=True, cards=1, suspense_ms=200)
    h.loop(150)
    assert not h.motor_on() and h.physics.forward_ms == 0
    h.loop(100)
    assert h.physics.forward_ms > 0


def test_jam_after_some_cards_and_empty_magazine() -> None:
    h = ready(jam_after=2)
    fire(h, fire=True, cards=5)
    h.loop(1500)
    [jam] = h.done()
    assert (jam.outcome, jam.cards_out) == ("jam", 2)
    assert not h.motor_on() and h.status()["jammed"]
    h2 = ready(magazine=0)
    fire(h2, fire=True, cards=2)
    h2.loop(1500)
    assert [(r.outcome, r.cards_out) for r in h2.done()] == [("empty", 0)]


def test_open_loop_runs_for_run_ms_and_reports_the_estimate() -> None:
    h = ready()
    assert h.configure(has_sensor=False) == sp.AckCode.OK
    fire(h, fire=True, cards=4, run_ms=300)
    h.loop(700)
    [result] = h.done()
    assert (result.outcome, result.cards_out, result.counted) == ("ok", 4, False)
    assert result.ran_ms == pytest.approx(300, abs=3)


def test_max_run_caps_a_closed_loop_run() -> None:
    h = ready(cards_per_s=4.0, magazine=100)
    h.configure(max_run_ms=500, jam_ms=5000)
    fire(h, fire=True, cards=50)
    for _ in range(10):  # the host keeps talking, so only max_run can stop it
        h.loop(100)
        h.status()
    [result] = h.done()
    assert result.outcome == "max_run" and result.detail == "max_run"
    assert result.ran_ms == pytest.approx(500, abs=3)
    assert h.physics.forward_ms <= 505


def test_max_run_caps_an_open_loop_run_asking_for_more() -> None:
    h = ready()
    h.configure(has_sensor=False, max_run_ms=400)
    fire(h, fire=True, cards=3, run_ms=3000)
    for _ in range(8):
        h.loop(100)
        h.status()
    [result] = h.done()
    assert (result.outcome, result.cards_out) == ("max_run", 0)
    assert h.physics.forward_ms <= 405


def test_dead_man_stops_the_motor_when_the_host_falls_silent() -> None:
    h = ready(cards_per_s=2.0, magazine=100)
    h.configure(deadman_ms=300, jam_ms=5000)
    fire(h, fire=True, cards=40)
    h.loop(250)
    assert h.motor_on()
    h.loop(100)
    assert not h.motor_on()
    [result] = h.done()
    assert (result.outcome, result.detail) == ("fault", "deadman")
    [fault] = {f.seq: f for f in h.events(sp.FAULT)}.values()
    assert sp.decode_fault(fault.body)[0] == "deadman"
    assert h.physics.forward_ms <= 310


def test_a_talking_host_keeps_the_dead_man_away() -> None:
    h = ready(cards_per_s=2.0, magazine=100)
    h.configure(deadman_ms=300, jam_ms=5000, max_run_ms=3000)
    fire(h, fire=True, cards=40)
    for _ in range(10):
        h.loop(100)
        h.status()
    assert h.motor_on() and h.done() == []


def test_guard_timer_stops_the_motor_when_the_main_loop_stalls() -> None:
    h = ready(cards_per_s=1.0, magazine=100)
    h.configure(max_run_ms=500, jam_ms=5000, retract_ms=100)
    fire(h, fire=True, cards=40)
    assert h.motor_on()
    for _ in range(700):  # time passes, but the firmware loop does not run (a stuck C call, say)
        mp_time.sleep_ms(1)
    assert not h.motor_on()  # the hard timer did it on its own
    h.loop(5)
    assert [(r.outcome, r.detail) for r in h.done()] == [("fault", "guard_timer")]


def test_a_host_stall_in_the_simulation_is_not_a_stuck_loop() -> None:
    """The simulation's rule, not the firmware's: a loaded host can deschedule the firmware's thread past the guard
    timer's deadline although the loop never stalled (a Pico's loop is not descheduled). Time between two clock
    checks more than the fake clock's STALL_MS apart does not count toward the fake hardware timer, so the run ends
    by its own max_run as on the board (the contract suite's rare 'guard_timer' under load); the test above still
    trips it."""
    h = ready(cards_per_s=4.0, magazine=100)
    h.configure(max_run_ms=500, jam_ms=5000, retract_ms=100)
    fire(h, fire=True, cards=50)
    for _ in range(4):
        h.loop(100)
        h.status()
    h.loop(40)
    mp_time.sleep_ms(mp_time.STALL_MS + 250)  # descheduled right before max_run, past the guard's deadline
    h.status()
    for _ in range(4):
        h.loop(100)
        h.status()
    assert [(r.outcome, r.detail) for r in h.done()] == [("max_run", "max_run")]


# ---- protocol rules ------------------------------------------------------------------------------------------


def test_commands_before_hello_are_refused() -> None:
    h = Harness()
    assert fire(h, fire=True, cards=3) == sp.AckCode.NO_HELLO
    h.loop(50)
    assert not h.motor_on() and h.physics.forward_ms == 0


def test_wrong_protocol_version_is_refused() -> None:
    h = Harness()
    reply = h.command(sp.HELLO, bytes([9]))
    assert sp.decode_ack(reply.body)[1] == sp.AckCode.BAD_VERSION
    assert fire(h, fire=True, cards=3) == sp.AckCode.NO_HELLO


def test_a_retransmitted_fire_is_answered_again_but_runs_once() -> None:
    h = ready()
    body = sp.encode_fire(FirePlan(fire=True, cards=2))
    first = h.command(sp.FIRE, body, seq=500)
    second = h.command(sp.FIRE, body, seq=500)
    assert first == second  # byte-identical cached reply
    h.loop(500)
    assert len(h.done()) == 1 and h.physics.ejected == 2


def test_a_stale_sequence_number_is_refused_without_running() -> None:
    h = ready()
    h.status()
    h.seq += 100
    h.status()
    assert h.ack_code(sp.FIRE, sp.encode_fire(FirePlan(fire=True, cards=2)), seq=h.seq - 60) == sp.AckCode.STALE_SEQ
    h.loop(100)
    assert not h.motor_on() and h.physics.forward_ms == 0


def test_fire_during_a_run_is_busy_and_stop_ends_it() -> None:
    h = ready(cards_per_s=2.0)
    h.configure(jam_ms=5000)
    fire(h, fire=True, cards=10)
    assert fire(h, fire=True, cards=1) == sp.AckCode.BUSY
    h.loop(50)
    assert h.ack_code(sp.STOP) == sp.AckCode.OK
    assert not h.motor_on()
    h.loop(200)
    assert [(r.outcome, r.detail) for r in h.done()] == [("stopped", "host_stop")]
    assert h.physics.reverse_ms == 0  # an abort does not retract


def test_bad_bodies_are_refused_without_state_change() -> None:
    h = ready()
    assert h.ack_code(sp.FIRE, b"\x01\x02") == sp.AckCode.BAD_REQUEST
    assert h.ack_code(sp.FIRE, struct.pack(sp.FIRE_FMT, 1, 3, 0, 101, 0)) == sp.AckCode.BAD_REQUEST  # power 101 %
    assert h.ack_code(sp.CONFIG, struct.pack(sp.CONFIG_FMT, 10, 1, 1, 0, 0, 1, 0)) == sp.AckCode.BAD_REQUEST
    assert h.ack_code(0x3F) == sp.AckCode.UNKNOWN_TYPE
    h.loop(100)
    assert h.physics.forward_ms == 0 and h.fw.cfg.deadman_ms == 1500


def test_lid_opening_during_a_run_stops_it_and_an_open_lid_refuses_to_fire() -> None:
    h = ready(cards_per_s=2.0)
    h.configure(jam_ms=5000)
    fire(h, fire=True, cards=10)
    h.loop(50)
    h.physics.set_lid(True)
    h.loop(60)
    assert not h.motor_on()
    assert [(r.outcome, r.detail) for r in h.done()] == [("stopped", "lid_opened")]
    fire(h, fire=True, cards=2)
    h.loop(50)
    assert h.done()[-1].outcome == "fault" and h.done()[-1].detail == "lid_opened"
    assert h.physics.forward_ms < 60


def test_reliable_events_are_resent_until_acknowledged() -> None:
    h = ready()
    h.auto_ack = False
    h.physics.press(bounce=False)
    h.loop(350)
    presses = h.events(sp.PRESS)
    assert len(presses) >= 3 and len({f.seq for f in presses}) == 1
    h.send(sp.EVENT_ACK, struct.pack(">H", presses[0].seq))
    h.loop(5)
    count = len(h.events(sp.PRESS))
    h.loop(300)
    assert len(h.events(sp.PRESS)) == count


def test_watchdog_reset_is_reported_after_hello() -> None:
    h = Harness(reset_cause=machine.WDT_RESET)
    info = h.hello()
    assert info["reset_cause"] == 6 and info["first_since_boot"]
    h.loop(5)
    assert [sp.decode_fault(f.body)[0] for f in h.events(sp.FAULT)][:1] == ["watchdog_reset"]
    machine.next_reset_cause = machine.PWRON_RESET


def test_signal_chimes_and_pulses_faster_with_tension() -> None:
    h = ready()
    assert h.ack_code(sp.SIGNAL, bytes([1, 0])) == sp.AckCode.OK
    assert h.board._buzzer.value() == 1
    h.loop(100)
    assert h.board._buzzer.value() == 0
    h.ack_code(sp.SIGNAL, bytes([0, 1]))
    mark = writes_so_far()
    h.loop(2000)
    slow = levels(h.board._led, mark).count(1)
    h.ack_code(sp.SIGNAL, bytes([0, 6]))
    mark = writes_so_far()
    h.loop(2000)
    fast = levels(h.board._led, mark).count(1)
    assert 2 <= slow < fast


def test_release_hands_the_port_back_to_the_repl(tmp_path: Path) -> None:
    h = Harness()
    h.rp2040.SAFE_FLAG = str(tmp_path / "unofw_safe")
    h.send(sp.HELLO, bytes([1]))
    h.send(sp.RELEASE)
    ticks = iter(range(1000))
    with pytest.raises(machine.ResetCalled):
        run_forever(h.board, should_stop=lambda: next(ticks) >= 999)
    assert (tmp_path / "unofw_safe").exists()
    assert h.rp2040.take_safe_flag() is True and h.rp2040.take_safe_flag() is False
