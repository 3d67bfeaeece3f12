"""The real board: a Raspberry Pi Pico (RP2040, or a Pico W) running MicroPython 1.26 or newer.

Default wiring (GPIO numbers; the same table as ``[pico]`` in ``hardware/pins.toml``, which a test keeps equal;
change ``PINS`` or pass ``pins=``):

=============  ====  ==============================================================================
motor_enable   GP2   TB6612FNG PWMA (20 kHz PWM); DRV8833: not connected; external 10 kOhm to GND
motor_forward  GP3   TB6612FNG AIN1 / DRV8833 IN1 (PWM in drv8833 mode); external 10 kOhm to GND
motor_reverse  GP4   TB6612FNG AIN2 / DRV8833 IN2 (PWM in drv8833 mode); external 10 kOhm to GND
sensor         GP6   IR break-beam receiver output, pull-up, falls when a card passes
button         GP10  fire button to GND, pull-up
uno            GP11  optional UNO button to GND, pull-up
lid            GP12  lid switch to GND when closed, pull-up (high = open)
led            GP14  LED through 330 Ohm to GND
buzzer         GP15  active buzzer through an NPN transistor
=============  ====  ==============================================================================

GP23, GP24, GP25 and GP29 are refused: on a Pico W they belong to the Wi-Fi chip (WL_ON, WL_D, WL_CS, WL_CLK), on
a Pico they are the power-save, VBUS-sense, LED and VSYS-sense lines. ``DRIVER`` says which driver is wired:
``"tb6612"`` (PWM on PWMA, direction on AIN1/AIN2) or ``"drv8833"`` (PWM on IN1 or IN2, the other low).

Everything time-critical happens in hard interrupt handlers that allocate nothing: the beam handler counts cards
at the edge, the button handlers store each edge's time and level in a preallocated ring, the lid handler switches
the motor off the moment the lid opens, and the guard timer switches it off when a run overstays (latched until
reset). The data channel is USB CDC (``sys.stdin``/``sys.stdout``) unless a stream is passed: anything with
non-blocking ``read()``, ``writable()`` and ``write(buf) -> count``.

Example::

    board = Rp2040Board()
    run_forever(board)
"""

import sys
import time
from array import array

import machine
import micropython

from unofw import msgs
from unofw.board import Board
from unofw.outq import CHUNK, OutQueue

PINS = {
    "motor_enable": 2,
    "motor_forward": 3,
    "motor_reverse": 4,
    "sensor": 6,
    "button": 10,
    "uno": 11,
    "lid": 12,
    "led": 14,
    "buzzer": 15,
}
RESERVED_PINS = {
    23: "the Pico W's Wi-Fi power line (WL_ON; the Pico's SMPS mode pin)",
    24: "the Pico W's Wi-Fi data line (WL_D; the Pico's VBUS sense)",
    25: "the Pico W's Wi-Fi chip select (WL_CS; the Pico's LED)",
    29: "the Pico W's Wi-Fi clock (WL_CLK; the Pico's VSYS sense)",
}
DRIVERS = ("tb6612", "drv8833")
DRIVER = "tb6612"
REQUIRED_MICROPYTHON = (1, 26, 0)  # the first release whose rp2 machine.Timer runs hard=True callbacks
PWM_FREQ = 20000
BEAM_MIN_GAP_MS = 4  # two falling edges closer than this are one card (sensor glitch), not two
EDGE_SLOTS = 16  # button edges kept between two loop iterations (a bounce storm beyond this is resampled)
OUT_CAPACITY = 1024
WATCHDOG_MS = 2000
SAFE_FLAG = "/unofw_safe"


def runtime_problem(impl=None):
    """Why this interpreter cannot run the firmware safely (one sentence), or None.

    The guard timer must be a hard interrupt so that it stops the motor even while the main loop is stuck;
    MicroPython's rp2 port runs Timer callbacks as hard interrupts from 1.26 on (older ones fall back to soft)."""
    impl = sys.implementation if impl is None else impl
    if impl.name != "micropython":
        return "this is not MicroPython"
    version = tuple(impl.version[:3])
    if version < REQUIRED_MICROPYTHON:
        why = "the motor guard needs hard timer interrupts, from 1.26 on"
        return "MicroPython {}.{}.{} is too old: ".format(*version) + why
    return None


def check_pins(pins, driver=DRIVER):
    """Raise ValueError naming the first problem of a pin map (unknown role, reserved or shared pin)."""
    if driver not in DRIVERS:
        raise ValueError(f"unknown motor driver {driver!r} (known: {', '.join(DRIVERS)})")
    used = {}
    for role in PINS:
        gpio = pins.get(role)
        if not isinstance(gpio, int) or gpio < 0 or gpio > 29:
            raise ValueError(f"pin {role} must be a GPIO number 0-29, got {gpio!r}")
        if gpio in RESERVED_PINS:
            raise ValueError(f"pin {role} is GP{gpio}, which is {RESERVED_PINS[gpio]}")
        if gpio in used:
            raise ValueError(f"pins {used[gpio]} and {role} both use GP{gpio}")
        used[gpio] = role
    for role in pins:
        if role not in PINS:
            raise ValueError(f"unknown pin role {role!r}")
    if driver == "drv8833":
        # Both DRV8833 inputs carry PWM. Two pins on the same PWM slice and channel (GP3 and GP19, GP0 and GP16)
        # share one duty register: both inputs always get the same duty, so the motor never turns.
        fwd, rev = pins["motor_forward"], pins["motor_reverse"]
        if pwm_slice_channel(fwd) == pwm_slice_channel(rev):
            slice_no, channel = pwm_slice_channel(fwd)
            where = f"(GP{fwd}) and motor_reverse (GP{rev}) share PWM slice {slice_no} channel {'AB'[channel]}"
            raise ValueError(f"pins motor_forward {where}: a DRV8833 needs its two inputs on different PWM outputs")


def pwm_slice_channel(gpio):
    """The RP2040 PWM output a GPIO drives: (slice 0-7, channel 0 = A / 1 = B); GPn and GPn+16 share one."""
    return (gpio >> 1) & 7, gpio & 1


def take_safe_flag():
    """True (once) after a RELEASE: the flag file is removed so the next boot runs the firmware again."""
    import os

    try:
        os.remove(SAFE_FLAG)
        return True
    except OSError:
        return False


class UsbStdio:
    """The USB serial port the REPL normally owns: reads never wait, writes only when there is room."""

    def __init__(self):
        import select

        self._rpoll = select.poll()
        self._rpoll.register(sys.stdin, select.POLLIN)
        self._wpoll = select.poll()
        self._wpoll.register(sys.stdout, select.POLLOUT)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._rx = bytearray(128)
        self._one = bytearray(1)

    def read(self):
        if not self._rpoll.poll(0):
            return None
        n = 0
        while n < 128 and self._rpoll.poll(0):
            self._rx[n] = self._in.read(1)[0]
            n += 1
        return bytes(self._rx[:n])

    def writable(self):
        return bool(self._wpoll.poll(0))

    def write(self, data):
        """Write what fits without blocking, one byte at a time while the port reports room; the count written.

        POLLOUT only says there is room for one byte. A 64-byte write with less room blocks until the host reads,
        for up to MicroPython's USB CDC timeout (500 ms), which would stall the loop that watches the motor."""
        one, out, poll = self._one, self._out, self._wpoll
        n = 0
        while n < len(data) and poll.poll(0):
            one[0] = data[n]
            if not out.write(one):
                break
            n += 1
        return n


class Rp2040Board(Board):
    def __init__(self, pins=None, stream=None, driver=None):
        p = dict(PINS)
        if pins:
            p.update(pins)
        self.driver = DRIVER if driver is None else driver
        check_pins(p, self.driver)  # before any pin is touched: a refused map leaves every pin an input
        self._p = p
        Pin = machine.Pin
        self._motor_pins()
        self._tripped = array("b", [0])  # guard timer fired: motor refused until reset
        self._last_dir = array("b", [1])  # the way the motor was last driven: +1 forward, -1 reverse
        self._lid_edge = array("b", [0])  # the lid interrupt saw an opening
        self._led = Pin(p["led"], Pin.OUT, value=0)
        self._buzzer = Pin(p["buzzer"], Pin.OUT, value=0)
        self._lid = Pin(p["lid"], Pin.IN, Pin.PULL_UP)
        self._lid_handler = self._on_lid  # bound once: an interrupt handler must not allocate a bound method
        self._lid.irq(handler=self._lid_handler, trigger=Pin.IRQ_RISING, hard=True)
        # Button edges: (ticks, level) pairs in a ring per input, [head, count, overflowed] beside it.
        self._button = Pin(p["button"], Pin.IN, Pin.PULL_UP)
        self._uno = Pin(p["uno"], Pin.IN, Pin.PULL_UP)
        self._rings = (array("i", [0] * (2 * EDGE_SLOTS)), array("i", [0] * (2 * EDGE_SLOTS)))
        self._ring_state = (array("i", [0, 0, 0]), array("i", [0, 0, 0]))
        self._button_handler = self._on_button
        self._uno_handler = self._on_uno
        both = Pin.IRQ_FALLING | Pin.IRQ_RISING
        self._button.irq(handler=self._button_handler, trigger=both, hard=True)
        self._uno.irq(handler=self._uno_handler, trigger=both, hard=True)
        # Cards: [count, ticks of the last counted edge].
        self._beam = Pin(p["sensor"], Pin.IN, Pin.PULL_UP)
        self._beam_state = array("i", [0, time.ticks_add(time.ticks_ms(), -BEAM_MIN_GAP_MS)])
        self._beam_handler = self._on_beam
        self._beam.irq(handler=self._beam_handler, trigger=Pin.IRQ_FALLING, hard=True)
        self._guard = machine.Timer()
        self._guard_handler = self._on_guard_timer
        self._guard_report = self._report_guard
        self._stream = stream if stream is not None else UsbStdio()
        self._out = OutQueue(OUT_CAPACITY)
        self._reset_cause = msgs.R_WATCHDOG_RESET if machine.reset_cause() == machine.WDT_RESET else 0
        self._wdt = None

    def _motor_pins(self):
        """Motor lines as outputs, low, with their PWM: at boot, and again after a probe released them."""
        p, Pin = self._p, machine.Pin
        # Motor lines low first: the motor must never twitch at boot (external pull-downs hold them until here).
        self._en = Pin(p["motor_enable"], Pin.OUT, value=0)
        if self.driver == "tb6612":
            self._in1 = Pin(p["motor_forward"], Pin.OUT, value=0)
            self._in2 = Pin(p["motor_reverse"], Pin.OUT, value=0)
            self._pwm = machine.PWM(self._en)
            self._pwm_in1 = self._pwm_in2 = None
            self._pwm.freq(PWM_FREQ)
            self._pwm.duty_u16(0)
        else:
            self._in1 = self._in2 = None
            self._pwm = None
            self._pwm_in1 = machine.PWM(Pin(p["motor_forward"], Pin.OUT, value=0))
            self._pwm_in2 = machine.PWM(Pin(p["motor_reverse"], Pin.OUT, value=0))
            for pwm in (self._pwm_in1, self._pwm_in2):
                pwm.freq(PWM_FREQ)
                pwm.duty_u16(0)

    def probe(self):
        """Readings for the host's wiring selftest (``unolauncher selftest --serial``), with the motor idle.

        Each motor line in turn is released to an input with the internal pull-up (about 50 kOhm) for 50 us, the
        other two held low: it must read low, held by its external 10 kOhm pull-down (R2-R4), or a crashed or
        unpowered Pico could leave the driver's input floating. Then every line is an output again, low."""
        Pin = machine.Pin
        levels = 0
        if self.button():
            levels |= msgs.P_BUTTON_DOWN
        if self.uno():
            levels |= msgs.P_UNO_DOWN
        if self.lid_open():
            levels |= msgs.P_LID_OPEN
        if self._beam.value() == 0:
            levels |= msgs.P_BEAM_BLOCKED
        self._hw_off()
        released = 0
        for bit in range(3):
            line = Pin(self._p[msgs.PROBE_ROLES[bit]], Pin.IN, Pin.PULL_UP)
            time.sleep_us(50)
            if line.value():
                released |= 1 << bit
            Pin(self._p[msgs.PROBE_ROLES[bit]], Pin.OUT, value=0)
        self._motor_pins()
        return levels, released, [self._p[role] for role in msgs.PROBE_ROLES]

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
        return self._out.put(data)

    def pump(self):
        out = self._out
        if out.size == 0 or not self._stream.writable():
            return 0
        sent = self._stream.write(out.peek(CHUNK)) or 0
        out.consume(sent)
        return sent

    def flush(self, timeout_ms):
        start = time.ticks_ms()
        while self._out.size and time.ticks_diff(time.ticks_ms(), start) < timeout_ms:
            self.pump()
            self.feed_watchdog()
            time.sleep_ms(1)
        return self._out.size == 0

    def claim_console(self):
        micropython.kbd_intr(-1)

    def release_console(self):
        micropython.kbd_intr(3)

    # motor
    def _hw_off(self):
        # Safe from interrupt handlers: register writes only, no allocation (no tuples). The input of the last
        # direction goes low last: out of a brake the instant between two writes drives the motor's own way.
        fwd = self._last_dir[0] > 0
        if self._pwm is not None:
            self._pwm.duty_u16(0)  # TB6612FNG: PWM low with a direction set is already short brake, never drive
            (self._in2 if fwd else self._in1).value(0)
            (self._in1 if fwd else self._in2).value(0)
        else:
            (self._pwm_in2 if fwd else self._pwm_in1).duty_u16(0)
            (self._pwm_in1 if fwd else self._pwm_in2).duty_u16(0)

    def motor(self, power, forward):
        if self._tripped[0] or self._lid.value() == 1:
            self._hw_off()  # a tripped guard or an open lid: nothing drives the motor, whatever the loop asks
            return
        duty = int(max(0, min(100, power)) * 65535 // 100)
        self._last_dir[0] = 1 if forward else -1
        if self._pwm is not None:
            # TB6612FNG: PWM off, then the direction, then the PWM (never both inputs high: that is a brake).
            self._pwm.duty_u16(0)
            self._in1.value(1 if forward else 0)
            self._in2.value(0 if forward else 1)
            self._pwm.duty_u16(duty)
        else:
            # DRV8833: PWM on the input of the direction, the other input low (drive / coast).
            on, off = (self._pwm_in1, self._pwm_in2) if forward else (self._pwm_in2, self._pwm_in1)
            off.duty_u16(0)
            on.duty_u16(duty)

    def motor_off(self):
        self._hw_off()

    def motor_brake(self, forward):
        """Short brake, both inputs high (TB6612FNG IN1 = IN2 = H; DRV8833 1/1), the input of the way the motor
        last turned first: between the two writes it drives that way or brakes, never against it. A tripped guard
        or an open lid (driver in standby): off instead."""
        if self._tripped[0] or self._lid.value() == 1:
            self._hw_off()
            return
        self._last_dir[0] = 1 if forward else -1
        if self._pwm is not None:
            self._pwm.duty_u16(0)  # with a direction set, PWM low is short brake already
            first, second = (self._in1, self._in2) if forward else (self._in2, self._in1)
            first.value(1)
            second.value(1)
        else:
            first, second = (self._pwm_in1, self._pwm_in2) if forward else (self._pwm_in2, self._pwm_in1)
            first.duty_u16(65535)
            second.duty_u16(65535)

    def bridge_state(self):
        """The H-bridge read back from the pins: forward, reverse, brake or coast (tests, diagnostics)."""
        if self._pwm is not None:
            in1, in2 = self._in1.value(), self._in2.value()
            if in1 == in2:
                return "brake" if in1 else "coast"
            if self._pwm.duty_u16() == 0:
                return "brake"
            return "forward" if in1 else "reverse"
        fwd, rev = self._pwm_in1.duty_u16(), self._pwm_in2.duty_u16()
        if fwd == rev:
            return "brake" if fwd else "coast"
        return "forward" if fwd > rev else "reverse"

    def motor_state(self):
        """(duty 0-65535, +1 forward / -1 reverse / 0 off) read back from the pins (tests and diagnostics)."""
        if self._pwm is not None:
            duty = self._pwm.duty_u16()
            if duty == 0 or self._in1.value() == self._in2.value():
                return 0, 0
            return duty, 1 if self._in1.value() else -1
        fwd, rev = self._pwm_in1.duty_u16(), self._pwm_in2.duty_u16()
        if fwd and rev:
            return 0, 0
        return (fwd, 1) if fwd else ((rev, -1) if rev else (0, 0))

    def guard(self, ms):
        # hard=True: the callback runs in interrupt context even if the main loop is stuck inside a C call.
        # runtime_problem() refuses a MicroPython whose rp2 Timer cannot do that.
        self._guard.init(mode=machine.Timer.ONE_SHOT, period=ms, callback=self._guard_handler, hard=True)

    def unguard(self):
        self._guard.deinit()

    def guard_tripped(self):
        return self._tripped[0] == 1

    def _on_guard_timer(self, timer):
        # Interrupt context: switch the motor off and latch right here; tell the main loop later.
        self._tripped[0] = 1
        self._hw_off()
        micropython.schedule(self._guard_report, 0)

    def _report_guard(self, _):
        if self.on_guard is not None:
            self.on_guard(time.ticks_ms())

    # inputs
    def _on_lid(self, pin):
        self._hw_off()  # the lid opened: motor off at the edge, before any debouncing or loop iteration
        self._lid_edge[0] = 1

    def lid_tripped(self):
        if self._lid_edge[0]:
            self._lid_edge[0] = 0
            return True
        return False

    def _on_beam(self, pin):
        now = time.ticks_ms()
        state = self._beam_state
        if time.ticks_diff(now, state[1]) >= BEAM_MIN_GAP_MS:
            state[0] += 1
            state[1] = now

    def cards(self):
        return self._beam_state[0]

    def _record(self, index, pin):
        ring = self._rings[index]
        state = self._ring_state[index]
        if state[1] >= EDGE_SLOTS:
            state[2] = 1  # full: the loop resamples the level instead
            return
        slot = (state[0] + state[1]) % EDGE_SLOTS
        ring[2 * slot] = time.ticks_ms()
        ring[2 * slot + 1] = pin.value()
        state[1] += 1

    def _on_button(self, pin):
        self._record(0, pin)

    def _on_uno(self, pin):
        self._record(1, pin)

    def _take(self, index):
        state = self._ring_state[index]
        irq = machine.disable_irq()
        try:
            if state[1] == 0:
                return None
            slot = state[0]
            ring = self._rings[index]
            edge = (ring[2 * slot], ring[2 * slot + 1] == 0)
            state[0] = (slot + 1) % EDGE_SLOTS
            state[1] -= 1
            return edge
        finally:
            machine.enable_irq(irq)

    def button(self):
        return self._button.value() == 0

    def button_edge(self):
        return self._take(0)

    def uno(self):
        return self._uno.value() == 0

    def uno_edge(self):
        return self._take(1)

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
