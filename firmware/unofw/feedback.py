"""LED and buzzer, like the newer toy and the host's ``launcher/backends/gpio/feedback.py``: a chime on every
accepted press, and a pulse that speeds up after each press that fired nothing, until cards come out. The host
decides both (SIGNAL command: chime, tension); the firmware only keeps the rhythm. The LED is steady on while the motor
runs.

Example::

    fb = Feedback(board)
    fb.signal(True, 2, now)  # chime, then pulse every 600 ms
    fb.tick(now)  # every loop
"""

CHIME_MS = 60
FLASH_MS = 30
GIVE_UP_MS = 30000  # an abandoned table stops beeping


def pulse_interval_ms(tension):
    """Milliseconds between pulses after ``tension`` dry presses in a row (same curve as the host's)."""
    if tension < 1:
        tension = 1
    return max(100, int(800 * 0.75 ** (tension - 1)))


class Feedback:
    def __init__(self, board):
        self.board = board
        self._diff = board.ticks_diff  # bound once, not on every tick
        self.tension = 0
        self.buzz_until = None
        self.flash_until = None
        self.next_pulse = None
        self.last_signal = 0
        self.running = False
        self.led_on = False

    def signal(self, chime, tension, now):
        self.last_signal = now
        self.tension = tension
        if chime:
            self.buzz_until = now
            self.board.buzzer(True)
        self.next_pulse = now if tension > 0 else None

    def run_started(self):
        self.running = True
        self._led(True)

    def run_finished(self):
        self.running = False
        self._led(False)

    def _led(self, on):
        if on != self.led_on:
            self.led_on = on
            self.board.led(on)

    def tick(self, now):
        diff = self._diff
        if self.buzz_until is not None and diff(now, self.buzz_until) >= CHIME_MS:
            self.buzz_until = None
            self.board.buzzer(False)
        if self.running:
            return
        if self.flash_until is not None and diff(now, self.flash_until) >= FLASH_MS:
            self.flash_until = None
            self._led(False)
            if self.buzz_until is None:
                self.board.buzzer(False)
        if self.next_pulse is None or self.tension <= 0:
            return
        if diff(now, self.last_signal) >= GIVE_UP_MS:
            self.next_pulse = None
            return
        if diff(now, self.next_pulse) >= 0:
            self.flash_until = now
            self._led(True)
            self.board.buzzer(True)
            self.next_pulse = self.board.ticks_add(now, pulse_interval_ms(self.tension))
