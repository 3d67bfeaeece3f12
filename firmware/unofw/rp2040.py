"""The real board: a Raspberry Pi Pico (RP2040) running MicroPython.

Default wiring (GPIO numbers; change ``PINS`` or pass ``pins=``):

=============  ====  ==========================================================
motor_pwm      GP2   driver PWM/enable input (20 kHz); external pull-down to GND
motor_dir      GP3   driver direction input (1 = forward, 0 = retract)
beam           GP6   IR break-beam receiver, pull-up, falls when a card passes
button         GP10  fire button to GND, pull-up
uno            GP11  optional UNO button to GND, pull-up
lid            GP12  lid switch to GND when closed, pull-up (high = open)
led            GP25  on-board LED
buzzer         GP15  piezo buzzer (through a transistor)
=============  ====  ==========================================================

The data channel is USB CDC (``sys.stdin``/``sys.stdout``) unless a ``machine.UART`` (or anything with
non-blocking ``read()``/``write()``) is passed as ``stream``.

Example::

    board = Rp2040Board()
    run_forever(board)
"""

import sys
import time

import machine
import micropython

from unofw import msgs
from unofw.board import Board

PINS = {
    "motor_pwm": 2,
    "motor_dir": 3,
    "beam": 6,
    "button": 10,
    "uno": 11,
    "lid": 12,
    "led": 25,
    "buzzer": 15,
}
PWM_FREQ = 20000
BEAM_MIN_GAP_MS = 4  # two falling edges closer than this are one card (sensor glitch), not two
BUTTON_QUIET_MS = 10  # a falling edge this long after the previous edge is latched as a press
WATCHDOG_MS = 2000
SAFE_FLAG = "/unofw_safe"


def take_safe_flag():
    """True (once) after a RELEASE: the flag file is removed so the next boot runs the firmware again."""
    import os

    try:
        os.remove(SAFE_FLAG)
        return True
    except OSError:
        return False


class UsbStdio:
    """Non-blocking reads from the USB serial port the REPL normally owns."""

    def __init__(self):
        import select

        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer

    def read(self):
        out = bytearray()
        while len(out) < 128 and self._poll.poll(0):
            out.extend(self._in.read(1))
        return bytes(out)

    def write(self, data):
        self._out.write(data)


class Rp2040Board(Board):
    def __init__(self, pins=None, stream=None):
        p = dict(PINS)
        if pins:
            p.update(pins)
        Pin = machine.Pin
        # Direction and PWM low first: the motor must never twitch at boot.
        self._dir = Pin(p["motor_dir"], Pin.OUT, value=0)
        self._pwm = machine.PWM(Pin(p["motor_pwm"], Pin.OUT, value=0))
        self._pwm.freq(PWM_FREQ)
        self._pwm.duty_u16(0)
        self._button = Pin(p["button"], Pin.IN, Pin.PULL_UP)
        self._uno = Pin(p["uno"], Pin.IN, Pin.PULL_UP)
        # Presses are latched by an IRQ as well as sampled, so a press shorter than a stalled loop iteration is
        # not lost; only a falling edge after a quiet spell counts, so contact bounce on release latches nothing.
        self._latched = [False, False]
        self._last_edge = [time.ticks_ms(), time.ticks_ms()]
        self._button_handler = self._on_button
        self._uno_handler = self._on_uno
        self._button.irq(handler=self._button_handler, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING)
        self._uno.irq(handler=self._uno_handler, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING)
        self._lid = Pin(p["lid"], Pin.IN, Pin.PULL_UP)
        self._led = Pin(p["led"], Pin.OUT, value=0)
        self._buzzer = Pin(p["buzzer"], Pin.OUT, value=0)
        self._beam = Pin(p["beam"], Pin.IN, Pin.PULL_UP)
        self._cards = 0
        self._last_beam = time.ticks_add(time.ticks_ms(), -BEAM_MIN_GAP_MS)
        self._beam_handler = self._on_beam  # bound once: an IRQ must not allocate a new bound method
        self._beam.irq(handler=self._beam_handler, trigger=Pin.IRQ_FALLING)
        self._guard = machine.Timer()
        self._guard_handler = self._on_guard_timer
        self._guard_report = self._report_guard
        self._stream = stream if stream is not None else UsbStdio()
        self._reset_cause = msgs.R_WATCHDOG_RESET if machine.reset_cause() == machine.WDT_RESET else 0
        self._wdt = None

    # time
    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def ticks_add(self, a, b):
        return time.ticks_add(a, b)

    def idle(self):
        time.sleep_ms(1)

    # data channel
    def read(self):
        return self._stream.read()

    def write(self, data):
        self._stream.write(data)

    def claim_console(self):
        micropython.kbd_intr(-1)

    def release_console(self):
        micropython.kbd_intr(3)

    # motor
    def motor(self, power, forward):
        self._pwm.duty_u16(0)
        self._dir.value(1 if forward else 0)
        self._pwm.duty_u16(int(max(0, min(100, power)) * 65535 // 100))

    def motor_off(self):
        self._pwm.duty_u16(0)
        self._dir.value(0)

    def guard(self, ms):
        try:
            # A hard IRQ runs even if the main loop is stuck inside a C call.
            self._guard.init(mode=machine.Timer.ONE_SHOT, period=ms, callback=self._guard_handler, hard=True)
        except TypeError:  # older ports: soft timer only
            self._guard.init(mode=machine.Timer.ONE_SHOT, period=ms, callback=self._guard_handler)

    def unguard(self):
        self._guard.deinit()

    def _on_guard_timer(self, timer):
        # Runs in interrupt context: switch the motor off right here, tell the main loop later.
        self._pwm.duty_u16(0)
        self._dir.value(0)
        if self.on_guard is not None:
            micropython.schedule(self._guard_report, 0)

    def _report_guard(self, _):
        if self.on_guard is not None:
            self.on_guard(time.ticks_ms())

    # inputs
    def _on_beam(self, pin):
        now = time.ticks_ms()
        if time.ticks_diff(now, self._last_beam) >= BEAM_MIN_GAP_MS:
            self._cards += 1
            self._last_beam = now

    def cards(self):
        return self._cards

    def _edge(self, index, pin):
        now = time.ticks_ms()
        quiet = time.ticks_diff(now, self._last_edge[index]) >= BUTTON_QUIET_MS
        self._last_edge[index] = now
        if quiet and pin.value() == 0:
            self._latched[index] = True

    def _on_button(self, pin):
        self._edge(0, pin)

    def _on_uno(self, pin):
        self._edge(1, pin)

    def _sample(self, index, pin):
        if self._latched[index]:
            self._latched[index] = False
            return True
        return pin.value() == 0

    def button(self):
        return self._sample(0, self._button)

    def uno(self):
        return self._sample(1, self._uno)

    def lid_open(self):
        return self._lid.value() == 1

    def held_at_boot(self):
        """True when the fire button is held at power-up: main.py then leaves the REPL alone (safe mode)."""
        return self.button()

    # feedback
    def led(self, on):
        self._led.value(1 if on else 0)

    def buzzer(self, on):
        self._buzzer.value(1 if on else 0)

    def start_watchdog(self):
        # Once started the RP2040 watchdog cannot be stopped: a wedged loop reboots, and a reboot leaves the
        # motor pins as inputs (pulled down externally), so the motor stops.
        self._wdt = machine.WDT(timeout=WATCHDOG_MS)

    def reboot_to_repl(self):
        """RELEASE: reboot with a flag file so main.py leaves the REPL alone once (the watchdog cannot stop)."""
        self.motor_off()
        with open(SAFE_FLAG, "w") as f:
            f.write("1")
        machine.reset()

    def feed_watchdog(self):
        if self._wdt is not None:
            self._wdt.feed()

    def reset_cause(self):
        return self._reset_cause
