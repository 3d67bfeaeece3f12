"""Entry point on the Pico: run the co-processor firmware on the USB serial port.

The firmware turns off the REPL's Ctrl-C on the port, so mpremote cannot break in while it runs. To get a plain
REPL (e.g. to redeploy): hold the fire button while plugging in, or send RELEASE from the host
(``python -m unolauncher.launcher.backends.serial release PORT``), which reboots once into the REPL.

It refuses to start (motor pins left as inputs, held low by their external pull-downs; the REPL stays usable) on
a MicroPython too old for hard timer interrupts and on a pin map that uses a Pico W's Wi-Fi pins.
"""

from unofw import rp2040
from unofw.app import run_forever


def start():
    problem = rp2040.runtime_problem()
    if problem is None:
        try:
            board = rp2040.Rp2040Board()
        except ValueError as exc:
            problem = str(exc)
    if problem is not None:
        print("unolauncher firmware refuses to start: " + problem + " (REPL left on)")
        return None
    if rp2040.take_safe_flag() or board.held_at_boot():
        board.motor_off()
        print("unolauncher firmware: safe mode, REPL left on")
        return None
    return run_forever(board)


start()
