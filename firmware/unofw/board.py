"""The hardware seam: everything the firmware's logic needs from the board, and nothing else.

``rp2040.Rp2040Board`` implements it on a Pico with ``machine``; the host's tests run that same class on fakes of
``machine``/``micropython``/``time``. Power is a percentage (0-100). ``cards()`` is a running total kept by the
beam sensor's interrupt handler; button edges are captured with their time by interrupt handlers too.

Example::

    class MyBoard(Board):
        def ticks_ms(self):
            return 0
"""


class Board:
    """Abstract base (MicroPython has no ``abc``): a board implements every method that raises
    ``NotImplementedError``; the others have safe defaults for parts a build may leave out."""

    on_guard = None  # set by the main loop: called with ticks_ms when the guard timer had to stop the motor

    def ticks_ms(self):
        raise NotImplementedError

    def ticks_diff(self, a, b):
        return a - b

    def ticks_add(self, a, b):
        return a + b

    # data channel: reads never block; writes are queued and sent a bounded chunk at a time by pump()
    def read(self):
        """Bytes waiting on the data channel, without blocking (b"" or None when there are none)."""
        raise NotImplementedError

    def write(self, data):
        """Queue one whole frame; False when it does not fit (it is dropped whole)."""
        raise NotImplementedError

    def pump(self):
        """Hand at most one bounded chunk of queued bytes to the port, if it can take some now."""

    def flush(self, timeout_ms):
        """Send everything queued (RELEASE: the ACK must leave before the reset), for at most ``timeout_ms``."""

    # motor
    def motor(self, power, forward):
        raise NotImplementedError

    def motor_off(self):
        raise NotImplementedError

    def motor_brake(self, forward):
        """Short brake (both bridge outputs to one rail): ``forward`` is the way the motor last turned, whose
        input goes high first so that no instant drives against it."""
        raise NotImplementedError

    def guard(self, ms):
        """Arm an independent timer that switches the motor off after ``ms`` even if the main loop stalls."""

    def unguard(self):
        pass

    def guard_tripped(self):
        """True once the guard timer stopped the motor: latched until the board resets."""
        return False

    # inputs
    def button(self):
        """True while the fire button is held (the level now, not debounced)."""
        raise NotImplementedError

    def button_edge(self):
        """The oldest button edge not yet taken, as (ticks_ms, pressed), or None."""
        return None

    def uno(self):
        return False

    def uno_edge(self):
        return None

    def lid_open(self):
        return False

    def lid_tripped(self):
        """True (once) when the lid's interrupt saw it open and stopped the motor since the last call."""
        return False

    def cards(self):
        raise NotImplementedError

    # feedback, housekeeping
    def led(self, on):
        pass

    def buzzer(self, on):
        pass

    def start_watchdog(self):
        pass

    def feed_watchdog(self):
        pass

    def reboot_to_repl(self):
        """After RELEASE: give the data channel back to the REPL."""

    def reset_cause(self):
        """0 normal power-up, msgs.R_WATCHDOG_RESET after a watchdog reset."""
        return 0

    def probe(self):
        """The wiring selftest's readings: (input level bits, released motor lines reading high, pins by
        msgs.PROBE_ROLES), or None on a board that cannot (the firmware then answers PROBE as an unknown type)."""
        return None

    def claim_console(self):
        """Stop the REPL from eating Ctrl-C (0x03) on the data channel."""

    def release_console(self):
        pass

    def idle(self):
        """Wait a little (about a millisecond) between loop iterations."""
