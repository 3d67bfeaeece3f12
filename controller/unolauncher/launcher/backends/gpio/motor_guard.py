"""The motor guard: the only code that switches the launcher's motor on, and what switches it off when all else fails.

Guarantees (``docs/reliability.md``, "The motor guard"):

1. **Every "on" has a deadline.** :meth:`MotorGuard.run` takes the phase's time limit; at that limit plus
   :data:`GRACE_S` the guard switches the motor off by itself, from a scheduler thread of its own
   (``clock.separate("motor-guard")``) — whatever the launcher's timer thread, the table's lock, the journal's disk
   or MQTT are doing. The launcher's own timers normally stop the run first; a deadline the guard had to enforce is
   counted in :attr:`MotorGuard.trips`.
2. **It shares nothing.** It takes one lock, its own, held only while it writes the three driver pins and arms or
   cancels its deadline; it calls nothing back, logs nothing (logging has locks of its own), and its thread runs
   nothing but its deadlines.
3. **Interlocks refuse every "on".** ``lid`` (open or opening), ``disabled`` (the emergency stop) and ``halted``
   (shutdown or a fatal fault; permanent): engaging one switches the motor off at once on the calling thread.
4. **Off is enable-first** (the driver stops before the direction pins change); **on is direction-first**, so the
   driver never sees a half-set direction while enabled.
5. **Brake before a reversal.** :meth:`MotorGuard.brake` shorts the motor (both direction pins high: TB6612FNG
   short brake, DRV8833 brake), raising the pin of the way the motor last turned first, so no write ever drives
   against the motor; leaving a brake lowers the other pin first. An "on" in the other direction is refused until
   :data:`BRAKE_S` after the motor was last driven (the launcher brakes for that gap itself; this is the backstop).

Example (not a doctest: needs the daemon's devices)::

    guard = MotorGuard(enable.pin, forward.pin, reverse.pin, clock.separate("motor-guard"))
    guard.run(forward=True, reverse=False, power=0.8, limit_s=6.0)  # on now; off at 6.03 s at the latest
    guard.set_interlock("lid", True)  # off now, and no "on" until released
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.backends.gpio.settings import BRAKE_MS

GRACE_S = 0.03  # the launcher's own stop comes at the limit; the guard's this much later (well inside +0.1 s)
HEARTBEAT_S = 0.01  # the dead-man heartbeat's half period: an edge every 10 ms while the guard's thread runs
INTERLOCKS = ("halted", "disabled", "lid")
BRAKE_S = BRAKE_MS / 1000  # the gap between driving one way and the other (hardware/README.md, "Braking")
_GAP_SLACK_S = 1e-6  # float rounding of timer deadlines: 0.04 s after a stop counts as 0.04 s


class MotorGuard:
    """Owns the motor driver's three pins (gpiozero pin objects: ``.state`` is written, never read back).

    Example::

        >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
        >>> from unolauncher.clock import VirtualClock
        >>> factory, clock = MockFactory(pin_class=MockPWMPin), VirtualClock()
        >>> pins = [factory.pin(gpio) for gpio in (12, 23, 24)]
        >>> for pin in pins:
        ...     pin.function = "output"  # what the daemon's gpiozero devices do first
        >>> guard = MotorGuard(*pins, clock)
        >>> guard.run(True, False, 1.0, limit_s=2.0), guard.on
        (True, True)
        >>> clock.advance(2.5)  # past the limit: the guard switched the motor off by itself
        >>> guard.on
        False
    """

    def __init__(self, enable: Any, forward: Any, reverse: Any, scheduler: Clock, grace_s: float = GRACE_S) -> None:
        self._enable = enable
        self._forward = forward
        self._reverse = reverse
        self._scheduler = scheduler
        self.grace_s = grace_s
        # Reentrant: a signal handler runs on the main thread between two bytecodes and may engage an interlock
        # while that thread is inside run(); run() checks the interlocks again after its writes.
        self._lock = threading.RLock()
        self._interlocks: frozenset[str] = frozenset()
        self._deadline: TimerHandle | None = None
        self._token = 0  # which "on" the pending deadline belongs to
        self._on = False
        self._braking = False
        self._last_forward = True  # the way the motor was last driven (forward: the eject)
        self._driven_until: float | None = None  # when it was last driven (None: never, or at least BRAKE_S ago)
        self.gap_refusals = 0  # "on"s in the other direction refused inside the gap (the launcher's own bug)
        self.trips = 0  # deadlines the guard enforced itself: the launcher's own stop came too late
        self.write_errors = 0  # pin writes that raised while switching off (closed pins)
        self._heartbeat: Any = None  # the dead-man heartbeat pin, once started
        self._beat_level = False
        self.beats = 0
        self._write_off()

    def start_heartbeat(self, pin: Any, period_s: float = HEARTBEAT_S) -> None:
        """Toggle ``pin`` every ``period_s`` on the guard's own thread, for as long as that thread runs and the
        guard is not halted: the hardware dead-man (hardware/README.md) enables the motor driver only while these
        edges arrive, so a frozen process (SIGSTOP, a hung kernel call holding every thread) stops the motor within
        ~100 ms of its last edge, where software cannot. Never takes the guard's lock."""
        self._heartbeat, self._beat_period = pin, period_s
        self._scheduler.call_later(period_s, self._beat)

    def _beat(self) -> None:
        if self._heartbeat is None or "halted" in self._interlocks:
            return  # halted: no more edges, so the hardware holds the driver off too
        self._beat_level = not self._beat_level
        try:
            self._heartbeat.state = self._beat_level
            self.beats += 1
        except Exception:  # a closed pin (shutting down): the next beat tries again, then the halt ends them
            self.write_errors += 1
        self._scheduler.call_later(self._beat_period, self._beat)

    @property
    def on(self) -> bool:
        """The guard last switched the motor on and has not switched it off since."""
        return self._on

    @property
    def braking(self) -> bool:
        """The motor is braked (terminals shorted through the driver) and not driven."""
        return self._braking

    def engaged(self, interlock: str) -> bool:
        return interlock in self._interlocks

    def refusal(self) -> str | None:
        """The interlock that would refuse an "on" now (``halted``, ``disabled`` or ``lid``), or ``None``."""
        interlocks = self._interlocks  # one read of an immutable set: no lock needed
        return next((name for name in INTERLOCKS if name in interlocks), None)

    def run(self, forward: bool, reverse: bool, power: float, limit_s: float) -> bool:
        """Drive the motor at ``power`` (0-1] for at most ``limit_s`` (+ :data:`GRACE_S`); ``False`` when refused."""
        if not 0.0 < power <= 1.0 or limit_s <= 0.0:
            raise ValueError(f"the motor guard needs 0 < power <= 1 and a positive limit, got {power!r}, {limit_s!r}")
        with self._lock:
            if self._interlocks:
                return False
            if self._inside_gap(forward):
                # Reversing a motor that may still turn: refused, braked (whatever it was doing) instead.
                self.gap_refusals += 1
                self._brake_locked()
                return False
            self._disarm()
            # Armed before the pins go on: there is no instant at which the motor runs without a deadline.
            self._deadline = self._scheduler.call_later(limit_s + self.grace_s, partial(self._expire, self._token))
            try:
                # Out of a brake (both high) the pin of the way the motor turned is lowered last, as in _write_off.
                first, second = (
                    ((self._reverse, reverse), (self._forward, forward))
                    if self._last_forward
                    else ((self._forward, forward), (self._reverse, reverse))
                )
                first[0].state = first[1]
                second[0].state = second[1]
                self._braking = False
                self._last_forward = forward
                self._driven_until = None
                self._enable.state = power
                self._on = True
            except BaseException:
                self._off_locked()
                raise
            if self._interlocks:  # engaged while we were writing (a signal handler on this thread): it wins
                self._off_locked()
                return False
            return True

    def off(self) -> None:
        """Motor off now (enable first: coast) and the deadline dropped; a brake is released."""
        with self._lock:
            self._off_locked()

    def gap_left(self, forward: bool) -> float:
        """Seconds until an "on" in this direction keeps the gap after the motor last turned the other way (0.0:
        now). One read of three fields written under the lock; the launcher waits this long before a start."""
        if forward == self._last_forward:
            return 0.0
        if self._on:
            return BRAKE_S  # driven the other way right now
        until = self._driven_until
        left = 0.0 if until is None else BRAKE_S - (self._scheduler.now() - until)
        return left if left > _GAP_SLACK_S else 0.0

    def brake(self) -> None:
        """Stop driving and short the motor (brake) until :meth:`off` or the next "on"; the deadline dropped.
        Refused (off instead) while an interlock is engaged: the driver may be in standby, and off is what the
        interlocks promise."""
        with self._lock:
            if self._interlocks:
                self._off_locked()
                return
            self._brake_locked()

    def set_interlock(self, name: str, engaged: bool) -> None:
        """Engage (motor off at once, every "on" refused) or release an interlock; ``halted`` cannot be released."""
        if name not in INTERLOCKS:
            raise ValueError(f"unknown interlock {name!r} (known: {', '.join(INTERLOCKS)})")
        with self._lock:
            if engaged:
                self._interlocks = self._interlocks | {name}
                self._off_locked()
            elif name != "halted":
                self._interlocks = self._interlocks - {name}

    def halt(self) -> None:
        """Off for good: every later "on" is refused (shutdown, a fatal fault)."""
        self.set_interlock("halted", True)

    def health(self, now: float, deadline_s: float) -> str | None:
        """Why the guard's own thread is not keeping its deadlines (``None`` when it is, or under virtual time)."""
        check = getattr(self._scheduler, "health", None)
        return check(now, deadline_s) if check is not None else None

    def close(self) -> None:
        """Halt, then stop the guard's scheduler thread (the pins themselves belong to the launcher)."""
        self.halt()
        close = getattr(self._scheduler, "close", None)
        if close is not None:
            close()

    # -- internals (guard lock held) ------------------------------------------------------------------------------

    def _expire(self, token: int) -> None:
        with self._lock:
            if token != self._token or not self._on:
                return
            self._off_locked()
            self.trips += 1

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._token += 1

    def _inside_gap(self, forward: bool) -> bool:
        return self.gap_left(forward) > 0.0

    def _stopped(self) -> None:
        if self._on:
            self._driven_until = self._scheduler.now()
        self._on = False

    def _brake_locked(self) -> None:
        self._disarm()
        self._stopped()
        # Enable low first (TB6612FNG: PWM low with a direction set is short brake already), then the pin of the
        # way the motor turned, then the other: on a DRV8833 (no enable) the write between is that same direction.
        last, other = (self._forward, self._reverse) if self._last_forward else (self._reverse, self._forward)
        self._write_pins(((self._enable, 0.0), (last, True), (other, True)))
        self._braking = True

    def _off_locked(self) -> None:
        self._disarm()
        self._write_off()

    def _write_off(self) -> None:
        self._stopped()
        self._braking = False
        # Out of a brake the pin of the other direction goes low first: the write between drives the way the
        # motor turned (DRV8833), never against it.
        last, other = (self._forward, self._reverse) if self._last_forward else (self._reverse, self._forward)
        self._write_pins(((self._enable, 0.0), (other, False), (last, False)))

    def _write_pins(self, writes: tuple[tuple[Any, Any], ...]) -> None:
        for pin, value in writes:
            try:
                pin.state = value
            except Exception:  # a closed pin: the others must still be written
                self.write_errors += 1
