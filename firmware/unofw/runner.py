"""One motor run, the same semantics as the host's ``FirePlan`` / ``FireResult``, and the brake before a reversal.

Phases: wait (suspense, and the gap if the motor last turned the other way) -> forward (closed loop to a card
count with a jam timeout, or open loop for ``run_ms``) -> brake (the bridge shorts the motor for ``BRAKE_MS``)
-> retract (short reverse so the next card is pulled back, as the toy does) -> brake again (``BRAKE_MS``, so the
next forward never meets a motor still turning backwards) -> finished. A hard ``max_run_ms`` caps every forward
phase whatever the plan says. Aborts (host stop, dead-man, lid opened, guard timer) switch the motor off (coast)
at once and skip the retract; a reversal after a coast still waits ``BRAKE_MS``.

Example::

    motor = Motor(board)
    run = FireRun(Plan(True, cards=3), Config(), board, motor, now=0)
    result = None
    while result is None:
        result = run.tick(board.ticks_ms())  # in the firmware's main loop
"""

from unofw import msgs

# Braked (both bridge outputs on the same rail, the motor's terminals shorted) for this long before the motor may
# turn the other way: reversing a spinning DC motor draws up to about twice its stall current and slams the
# gears; a short brake stops a small motor within a few milliseconds, where coasting takes far longer. The same
# gap as the GPIO backend's (settings.BRAKE_MS); both are checked against firmware/test_vectors.json ("motor" ->
# "brake_ms").
BRAKE_MS = 40

# Firmware-side ceilings of every CONFIG value, inclusive (the host checks the same table, serial_protocol's
# DEVICE_LIMITS; both are checked against firmware/test_vectors.json "config_limits"). A CONFIG outside them is
# refused whole with bad_request, so a host bug cannot make the motor run for a minute.
LIMITS = {
    "deadman_ms": (100, 5000),
    "max_run_ms": (100, 10000),
    "jam_ms": (50, 5000),
    "retract_ms": (0, 500),
    "retract_power": (0, 100),
    "has_sensor": (0, 1),
    "debounce_ms": (0, 100),
}
CONFIG_ORDER = ("deadman_ms", "max_run_ms", "jam_ms", "retract_ms", "retract_power", "has_sensor", "debounce_ms")
GUARD_MARGIN_MS = 50  # the guard timer fires this long after the run loop's own limit


class Plan:
    """What the host asked for (see ``FIRE_FMT``)."""

    def __init__(self, fire, cards=0, run_ms=0, power=100, suspense_ms=0):
        self.fire = bool(fire)
        self.cards = cards
        self.run_ms = run_ms
        self.power = power  # percent
        self.suspense_ms = suspense_ms


class Config:
    """Tunables the host may change with CONFIG; the defaults are safe on their own."""

    def __init__(self):
        self.deadman_ms = 1500
        self.max_run_ms = 4000
        self.jam_ms = 800
        self.retract_ms = 120
        self.retract_power = 60
        self.has_sensor = True
        self.debounce_ms = 25

    def guard_ms(self):
        """How long after the motor starts the board's guard timer switches it off, whatever the loop does."""
        return self.max_run_ms + BRAKE_MS + self.retract_ms + GUARD_MARGIN_MS


def config_problem(values):
    """The name of the first CONFIG value outside :data:`LIMITS` (``values`` in ``CONFIG_ORDER``), else None."""
    for name, value in zip(CONFIG_ORDER, values):
        low, high = LIMITS[name]
        if value < low or value > high:
            return name
    return None


class Result:
    def __init__(self, cards_out, ran_ms, outcome, counted, reason=msgs.R_NONE):
        self.cards_out = cards_out
        self.ran_ms = ran_ms
        self.outcome = outcome
        self.counted = counted
        self.reason = reason


FORWARD_DIR = 1
REVERSE_DIR = -1


class Motor:
    """The motor through the board, remembering which way it last turned and when it stopped, so that it never
    goes from one direction straight into the other: the other direction waits ``BRAKE_MS`` after a stop (a
    brake, or a coast after an abort).

    Example::

        motor = Motor(board)
        motor.drive(100, True, now)  # forward
        motor.brake(now + 200)  # terminals shorted: the motor stops within a few ms
        motor.ready(False, now + 210)  # False: still inside the gap
        motor.ready(False, now + 240)  # True
    """

    def __init__(self, board):
        self.board = board
        self.direction = 0  # what is driven now: FORWARD_DIR, REVERSE_DIR or 0 (off)
        self.last_direction = 0  # the direction of the last time it was on
        self.off_at = 0  # when it was last driven
        self.braking = False

    def ready(self, forward, now):
        """True when starting in this direction now keeps the gap."""
        wanted = FORWARD_DIR if forward else REVERSE_DIR
        if self.direction != 0:
            return self.direction == wanted
        if self.last_direction == 0 or self.last_direction == wanted:
            return True
        return self.board.ticks_diff(now, self.off_at) >= BRAKE_MS

    def drive(self, power, forward, now):
        """Drive at ``power`` percent; refused (motor braked, False) when it would skip the gap."""
        if not self.ready(forward, now):
            self.brake(now)
            return False
        self.direction = FORWARD_DIR if forward else REVERSE_DIR
        self.last_direction = self.direction
        self.braking = False
        self.board.motor(power, forward)
        return True

    def brake(self, now):
        """Short the motor (brake): the board raises the input of the last direction first, so the bridge never
        drives against the way the motor turns, even for the microseconds between two register writes."""
        self.board.motor_brake(self.last_direction != REVERSE_DIR)
        self._stopped(now)
        self.braking = True

    def off(self, now):
        """Bridge outputs off (coast): aborts, and the end of a brake."""
        self.board.motor_off()
        self._stopped(now)
        self.braking = False

    def _stopped(self, now):
        if self.direction != 0:
            self.off_at = now
            self.direction = 0


WAIT = 0
FORWARD = 1
BRAKE = 2  # braked after the forward phase, before the retract
RETRACT = 3
FINISHED = 4
STOPPING = 5  # braked after the retract, before the run reports its result


class FireRun:
    """A run of a plan that fires (a ``no_fire`` plan is answered by the app without one)."""

    def __init__(self, plan, config, board, motor, now):
        self.plan = plan
        self.cfg = config
        self.board = board
        self.motor = motor
        self.closed_loop = config.has_sensor and plan.cards > 0
        self.phase = WAIT
        self.started = now
        self.motor_on_at = None
        self.motor_off_at = None
        self.retract_at = None
        self.stopping_at = None
        self.last_progress = now
        self.base = board.cards()
        self.seen = 0
        self.outcome = None
        self.reason = msgs.R_NONE
        self.result = None

    def _diff(self, a, b):
        return self.board.ticks_diff(a, b)

    def counted(self):
        return self.board.cards() - self.base

    def motor_on(self):
        return self.phase == FORWARD or self.phase == RETRACT

    def tick(self, now):
        """Advance the run; returns a :class:`Result` once, when it finished, else None."""
        if self.phase == FINISHED:
            return None
        count = self.counted()
        if count != self.seen:
            self.seen = count
            self.last_progress = now
        if self.phase == WAIT:
            if self._diff(now, self.started) < self.plan.suspense_ms or not self.motor.ready(True, now):
                return None
            self._start_forward(now)
        if self.phase == FORWARD:
            on_for = self._diff(now, self.motor_on_at)
            if on_for >= self.cfg.max_run_ms:
                self._end_forward(now, msgs.O_MAX_RUN, msgs.R_MAX_RUN)
            elif self.closed_loop:
                if count >= self.plan.cards:
                    self._end_forward(now, msgs.O_OK, msgs.R_NONE)
                elif self._diff(now, self.last_progress) >= self.cfg.jam_ms:
                    # No card for jam_ms: none at all means the magazine is empty, some then none is a jam.
                    self._end_forward(now, msgs.O_JAM if count else msgs.O_EMPTY, msgs.R_NONE)
            elif on_for >= self.plan.run_ms:
                self._end_forward(now, msgs.O_OK, msgs.R_NONE)
        if self.phase == BRAKE and self._diff(now, self.motor_off_at) >= BRAKE_MS and self.motor.ready(False, now):
            self.phase = RETRACT
            self.retract_at = now
            self.motor.drive(self.cfg.retract_power, False, now)  # straight from the brake into reverse
        if self.phase == RETRACT and self._diff(now, self.retract_at) >= self.cfg.retract_ms:
            self.phase = STOPPING
            self.stopping_at = now
            self.motor.brake(now)
            self.board.unguard()  # nothing drives the motor any more: the guard timer's work is done
        if self.phase == STOPPING and self._diff(now, self.stopping_at) >= BRAKE_MS:
            self.motor.off(now)  # stopped: release the brake (coast), so a hand can turn the wheel again
            self._finish()
        if self.phase == FINISHED:
            return self.result
        return None

    def abort(self, now, outcome, reason):
        """Motor off now, no retract; returns the result (or None if the run had already finished)."""
        if self.phase == FINISHED:
            return None
        self.motor.off(now)
        if self.phase == FORWARD:
            self.motor_off_at = now
        self.outcome = outcome
        self.reason = reason
        self._finish()
        return self.result

    def _start_forward(self, now):
        self.phase = FORWARD
        self.motor_on_at = now
        self.last_progress = now
        power = self.plan.power
        if power <= 0 or power > 100:
            power = 100
        self.board.guard(self.cfg.guard_ms())
        self.motor.drive(power, True, now)

    def _end_forward(self, now, outcome, reason):
        self.outcome = outcome
        self.reason = reason
        self.motor_off_at = now
        if self.cfg.retract_ms > 0:
            self.motor.brake(now)
            self.phase = BRAKE  # braked to a stop before it may turn the other way
        else:
            self.motor.off(now)  # no reversal follows: coast
            self._finish()

    def _finish(self):
        self.phase = FINISHED
        self.board.unguard()
        ran = 0
        if self.motor_on_at is not None and self.motor_off_at is not None:
            ran = self._diff(self.motor_off_at, self.motor_on_at)
        if self.cfg.has_sensor:
            self.result = Result(self.counted(), ran, self.outcome, True, self.reason)
        else:
            # Open loop: no sensor, so the plan's estimate is all we can say (counted = False).
            cards = self.plan.cards if self.outcome == msgs.O_OK else 0
            self.result = Result(cards, ran, self.outcome, False, self.reason)
