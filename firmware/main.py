"""Entry point on the Pico: run the co-processor firmware on the USB serial port.

The firmware turns off the REPL's Ctrl-C on the port, so mpremote cannot break in while it runs. To get a plain
REPL (e.g. to redeploy): hold the fire button while plugging in, or send RELEASE from the host
(``python -m unolauncher.launcher.serial_launcher --release PORT``), which reboots once into the REPL.
"""

from unofw import rp2040
from unofw.app import run_forever

board = rp2040.Rp2040Board()
if rp2040.take_safe_flag() or board.held_at_boot():
    board.motor_off()
    print("unolauncher firmware: safe mode, REPL left on")
else:
    run_forever(board)
