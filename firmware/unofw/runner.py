"""One motor run, the same semantics as the host's ``FirePlan`` / ``FireResult``.

Phases: suspense (optional wait) -> forward (closed loop to a card count with a jam timeout, or open loop for
``run_ms``) -> retract (short reverse so the next card is pulled back, as the toy does) -> finished.
A hard ``max_run_ms`` caps every forward phase whatever the plan says. Aborts (host stop, dead-man, lid opened)
switch the motor off at once and skip the retract.

Example::

    run = FireRun(Plan(True, cards=3), Config(), board, now=0)
    result = None
    while result is None:
        result = run.tick(board.ticks_ms())     # in the firmware's main loop
"""

from unofw import msgs


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


class Result:
    def __init__(self, cards_out, ran_ms, outcome, counted, reason=msgs.R_NONE):
        self.cards_out = cards_out
        self.ran_ms = ran_ms
        self.outcome = outcome
        self.counted = counted
        self.reason = reason


SUSPENSE = 0
FORWARD = 1
RETRACT = 2
FINISHED = 3


class FireRun:
    """A run of a plan that fires (a ``no_fire`` plan is answered by the app without one)."""

    def __init__(self, plan, config, board, now):
        self.plan = plan
        self.cfg = config
        self.board = board
        self.closed_loop = config.has_sensor and plan.cards > 0
        self.phase = SUSPENSE
        self.started = now
        self.motor_on_at = None
        self.motor_off_at = None
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
        if self.phase == SUSPENSE:
            if self._diff(now, self.started) < self.plan.suspense_ms:
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
        if self.phase == RETRACT and self._diff(now, self.motor_off_at) >= self.cfg.retract_ms:
            self.board.motor_off()
            self._finish()
        if self.phase == FINISHED:
            return self.result
        return None

    def abort(self, now, outcome, reason):
        """Motor off now, no retract; returns the result (or None if the run had already finished)."""
        if self.phase == FINISHED:
            return None
        self.board.motor_off()
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
        self.board.guard(self.cfg.max_run_ms + self.cfg.retract_ms + 50)
        self.board.motor(power, True)

    def _end_forward(self, now, outcome, reason):
        self.outcome = outcome
        self.reason = reason
        self.motor_off_at = now
        if self.cfg.retract_ms > 0:
            self.phase = RETRACT
            self.board.motor(self.cfg.retract_power, False)
        else:
            self.board.motor_off()
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
