"""LED and buzzer, like the newer toy: a chime on every accepted press; after each press that fires nothing the
LED blinks faster, until cards come out. The LED is steady on while the motor runs.

Example::

    fb = Feedback(board)
    fb.chime(now)           # on an accepted press
    fb.tick(now)            # every loop
"""

CHIME_MS = 40
SLOWEST_MS = 1200
FASTEST_MS = 120
STEP_MS = 180


class Feedback:
    def __init__(self, board):
        self.board = board
        self.tension = 0
        self.buzz_until = None
        self.led_on = False
        self.last_toggle = 0
        self.running = False

    def period(self):
        return max(FASTEST_MS, SLOWEST_MS - STEP_MS * self.tension)

    def chime(self, now):
        self.buzz_until = now
        self.board.buzzer(True)

    def run_started(self):
        self.running = True
        self._led(True)

    def run_finished(self, cards_out, fired):
        self.running = False
        if cards_out > 0:
            self.tension = 0
        elif not fired:
            self.tension += 1

    def _led(self, on):
        if on != self.led_on:
            self.led_on = on
            self.board.led(on)

    def tick(self, now):
        diff = self.board.ticks_diff
        if self.buzz_until is not None and diff(now, self.buzz_until) >= CHIME_MS:
            self.buzz_until = None
            self.board.buzzer(False)
        if self.running:
            self._led(True)
            return
        if diff(now, self.last_toggle) >= self.period() // 2:
            self.last_toggle = now
            self._led(not self.led_on)
