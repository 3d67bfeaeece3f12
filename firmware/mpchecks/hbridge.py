"""Reading an H-bridge from its input writes, for both brake checks: the firmware's under MicroPython
(``check_brake.py``) and the GPIO backend's under CPython (``tests/launcher/test_brake_reversal.py``, which loads
this very file). Plain Python that both interpreters run; times are whatever the caller's clock gives, and
``elapsed(later, earlier)`` subtracts them (``ticks_diff`` for MicroPython ticks, ``-`` for seconds).

A reversal must go drive -> brake (held at least the gap) -> the other direction, with nothing else in between: no
coast (a coasting motor still spins when the reverse hits it) and never, not even for the instant between two
writes of one sequence, the other direction while the motor still turns.
"""

DRIVES = ("forward", "reverse")


def bridge(driver, en, fwd, rev):
    """The bridge state from its inputs (datasheets: TB6612FNG H-SW control function table, DRV8833 bridge control
    table). TB6612FNG: ``en`` is PWMA's level or duty, ``fwd``/``rev`` AIN1/AIN2. DRV8833: ``fwd``/``rev`` are
    IN1/IN2's duties (or levels on a Pi, which has no PWM on them); ``en`` is not connected. A PWM counts as the
    direction it drives for part of each period."""
    if driver == "tb6612":
        if (fwd != 0) == (rev != 0):
            return "brake" if fwd else "coast"
        if not en:
            return "brake"  # PWM low with a direction set: short brake
        return "forward" if fwd else "reverse"
    if fwd == rev:
        return "brake" if fwd else "coast"
    return "forward" if fwd > rev else "reverse"


def settle(writes):
    """``(settled, steps)`` from ``writes``, the bridge state after every input write as (time, state), in order.

    ``steps``: (time, state, settled?) per write; writes at one time are one sequence, and the states between them
    last microseconds on real hardware. ``settled``: (time, state) of the state each sequence ends in."""
    steps = [(t, state, i + 1 == len(writes) or writes[i + 1][0] != t) for i, (t, state) in enumerate(writes)]
    return [(t, state) for t, state, last in steps if last], steps


def never_against_the_motor(steps):
    """No write, not even for an instant, drives against the way the motor last turned, unless the sequence it is
    part of starts that very direction (after the brake, which :func:`brakes_before_reversals` checks)."""
    turning = None
    for i, (when, state, last) in enumerate(steps):
        if last:
            if state in DRIVES:
                turning = state
            continue
        after = next(st for _, st, done in steps[i:] if done)
        if state in DRIVES and turning is not None and state != turning:
            assert state == after, f"an instant of {state} against a motor turning {turning} at {when}"


def brakes_before_reversals(settled, elapsed):
    """How long the bridge braked before each change of direction. In between there must be a brake first, held
    before anything else (a coast once the motor has stopped is fine): never a coast straight from a drive into the
    other direction."""
    held = []
    last = None  # (direction, index) of the last settled drive
    for i, (when, state) in enumerate(settled):
        if state not in DRIVES:
            continue
        if last is not None and last[0] != state:
            between = settled[last[1] + 1 : i]
            assert between, f"{last[0]} straight into {state} at {when}"
            assert between[0][1] == "brake", f"{last[0]} -> {[s for _, s in between]} -> {state}: no brake first"
            ended = next((t for t, s in between if s != "brake"), when)
            held.append(elapsed(ended, between[0][0]))
        last = (state, i)
    return held
