"""Brake before every reversal, under MicroPython: the H-bridge state after every single pin or PWM write the
board makes (the fake ``machine`` records them all, in order), for both drivers, over whole runs back to back,
read by ``hbridge.py`` (the GPIO backend's twin, tests/launcher/test_brake_reversal.py, reads its pins with the
same file). The brake must be held at least ``runner.BRAKE_MS``."""

import machine
import vclock
from hbridge import brakes_before_reversals as _brakes
from hbridge import bridge, never_against_the_motor, settle
from mpcheck import run
from mphost import Host, dones, fire
from unofw import msgs, rp2040, runner


def timeline(driver):
    """The bridge over the writes recorded since the trace was cleared: ``(settled, steps)`` of
    :func:`hbridge.settle` (the virtual clock stands still within a loop iteration, so one write sequence happens
    at one ms)."""
    n = machine.trace_len[0]
    assert n <= machine.TRACE_SLOTS, f"the trace overflowed ({n} writes)"
    pins = rp2040.PINS
    en, fwd, rev = pins["motor_enable"], pins["motor_forward"], pins["motor_reverse"]
    pwm = machine.PWM_CHANNEL
    level = {}
    for gpio in (en, fwd, rev):
        level[gpio] = 0
        level[gpio + pwm] = 0
    writes = []
    trace = machine.trace
    for i in range(n):
        ms, channel, value = trace[3 * i], trace[3 * i + 1], trace[3 * i + 2]
        if channel in level:
            level[channel] = value
            if driver == "tb6612":  # PWMA's duty, AIN1/AIN2's levels
                state = bridge(driver, level[en + pwm], level[fwd], level[rev])
            else:  # both inputs carry PWM
                state = bridge(driver, 0, level[fwd + pwm], level[rev + pwm])
            writes.append((ms, state))
    return settle(writes)


def brakes_before_reversals(settled):
    return _brakes(settled, vclock.ticks_diff)


def runs_back_to_back(driver, fires=2):
    host = Host(driver)
    host.hello()
    machine.trace_len[0] = 0
    for n in range(fires):
        fire(host, cards=2)
        for _ in range(600):
            host.loop(1)
            if len(dones(host)) == n + 1:
                break  # the next FIRE at once: the retract's own brake is all that separates the two
    host.loop(100)
    settled, steps = timeline(driver)
    never_against_the_motor(steps)
    return host, settled


def test_the_bridge_brakes_before_every_reversal_and_never_drives_against_the_motor():
    for driver in rp2040.DRIVERS:
        host, states = runs_back_to_back(driver)
        assert [msgs.OUTCOMES[d[3]] for d in dones(host)] == ["ok", "ok"], (driver, dones(host))
        held = brakes_before_reversals(states)
        assert len(held) == 3, (driver, held)  # forward -> retract, retract -> forward, forward -> retract
        assert min(held) >= runner.BRAKE_MS, (driver, held)


def test_the_retract_ends_in_a_brake_then_the_brake_is_released():
    for driver in rp2040.DRIVERS:
        host, states = runs_back_to_back(driver, fires=1)
        kinds = [s for _, s in states]
        retract = kinds.index("reverse")
        end = next(i for i in range(retract, len(kinds)) if kinds[i] != "reverse")
        assert kinds[end] == "brake", (driver, kinds)
        released = next(i for i in range(end, len(kinds)) if kinds[i] != "brake")
        assert kinds[released] == "coast", (driver, kinds)
        assert vclock.ticks_diff(states[released][0], states[end][0]) >= runner.BRAKE_MS, (driver, states)
        assert kinds[-1] == "coast" and host.board.bridge_state() == "coast", (driver, kinds)


def test_an_abort_coasts_and_the_next_reversal_still_waits():
    """The lid opening mid-run switches the bridge off (coast: the driver is in standby anyway); a reversal
    asked for right after is refused by the motor wrapper until the gap has passed."""
    for driver in rp2040.DRIVERS:
        host = Host(driver)
        host.hello()
        machine.trace_len[0] = 0
        fire(host, cards=30)
        host.loop(30)
        host.board._lid.drive(1)  # hard IRQ: off at the edge
        assert host.board.bridge_state() == "coast", driver
        host.loop(5)
        host.board._lid.drive(0)
        motor, now = host.fw.motor, vclock.ticks_ms()
        assert not motor.drive(60, False, now), driver  # inside the gap: refused, braked instead
        assert host.board.bridge_state() == "brake", driver
        vclock.advance(runner.BRAKE_MS)
        assert motor.drive(60, False, vclock.ticks_ms()) and host.board.bridge_state() == "reverse", driver
        states, steps = timeline(driver)
        never_against_the_motor(steps)
        kinds = [s for _, s in states]
        first_reverse = kinds.index("reverse")
        last_forward = max(i for i in range(first_reverse) if kinds[i] == "forward")
        assert kinds[last_forward + 1] == "coast", (driver, kinds)  # the abort: off, not a brake
        gap = vclock.ticks_diff(states[first_reverse][0], states[last_forward][0])
        assert gap >= runner.BRAKE_MS, (driver, gap, states)
        motor.off(vclock.ticks_ms())


run(globals())
