"""Brake before every reversal, under MicroPython: the H-bridge state after every single pin or PWM write the
board makes (the fake ``machine`` records them all, in order), for both drivers, over whole runs back to back.

A reversal must go drive -> brake (held at least ``runner.BRAKE_MS``) -> the other direction, with nothing else
in between: no coast (a coasting motor still spins when the reverse hits it) and never, not even for the instant
between two register writes, the other direction while the motor still turns."""

import machine
import vclock
from mpcheck import run
from mphost import Host, dones, fire
from unofw import msgs, rp2040, runner

DRIVES = ("forward", "reverse")


def bridge(driver, level):
    """The H-bridge state from the motor channels' levels (datasheets: TB6612FNG H-SW control function table,
    DRV8833 bridge control table). A PWM counts as the direction it drives for part of each period."""
    pins = rp2040.PINS
    if driver == "tb6612":
        duty = level[pins["motor_enable"] + machine.PWM_CHANNEL]
        in1, in2 = level[pins["motor_forward"]], level[pins["motor_reverse"]]
        if in1 == in2:
            return "brake" if in1 else "coast"
        if duty == 0:
            return "brake"  # PWM low with a direction set: short brake
        return "forward" if in1 else "reverse"
    d1 = level[pins["motor_forward"] + machine.PWM_CHANNEL]
    d2 = level[pins["motor_reverse"] + machine.PWM_CHANNEL]
    if d1 == d2:
        return "brake" if d1 else "coast"
    return "forward" if d1 > d2 else "reverse"


def timeline(driver):
    """The bridge over the writes recorded since the trace was cleared: ``(settled, steps)``.

    ``settled``: (ms, state) of the state each millisecond ends in (the virtual clock stands still within a loop
    iteration, so one write sequence happens at one ms). ``steps``: (ms, state, settled?) after every write; the
    states between two writes of one sequence last microseconds on a Pico, but must not drive against the motor."""
    n = machine.trace_len[0]
    assert n <= machine.TRACE_SLOTS, f"the trace overflowed ({n} writes)"
    level = {}
    for role in ("motor_enable", "motor_forward", "motor_reverse"):
        level[rp2040.PINS[role]] = 0
        level[rp2040.PINS[role] + machine.PWM_CHANNEL] = 0
    writes = []
    trace = machine.trace
    for i in range(n):
        ms, channel, value = trace[3 * i], trace[3 * i + 1], trace[3 * i + 2]
        if channel in level:
            level[channel] = value
            writes.append((ms, bridge(driver, level)))
    steps = [(ms, state, i + 1 == len(writes) or writes[i + 1][0] != ms) for i, (ms, state) in enumerate(writes)]
    return [(ms, state) for ms, state, last in steps if last], steps


def never_against_the_motor(steps):
    """No write, not even for an instant, drives against the way the motor last turned, unless the sequence it is
    part of starts that very direction (after the brake, which :func:`brakes_before_reversals` checks)."""
    turning = None
    for i, (ms, state, last) in enumerate(steps):
        if last:
            if state in DRIVES:
                turning = state
            continue
        after = next(st for _, st, done in steps[i:] if done)
        if state in DRIVES and turning is not None and state != turning:
            assert state == after, f"an instant of {state} against a motor turning {turning} at {ms} ms"


def brakes_before_reversals(settled):
    """How long the bridge braked before each change of direction. In between there must be a brake first,
    held ``BRAKE_MS`` before anything else (a coast once the motor has stopped is fine): never a coast straight
    from a drive into the other direction."""
    held = []
    last = None  # (direction, index) of the last settled drive
    for i, (ms, state) in enumerate(settled):
        if state not in DRIVES:
            continue
        if last is not None and last[0] != state:
            between = settled[last[1] + 1:i]
            assert between, f"{last[0]} straight into {state} at {ms} ms"
            assert between[0][1] == "brake", f"{last[0]} -> {[s for _, s in between]} -> {state}: no brake first"
            ended = next((t for t, s in between if s != "brake"), ms)
            held.append(vclock.ticks_diff(ended, between[0][0]))
        last = (state, i)
    return held


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
