"""The launcher behind a USB-serial co-processor (``firmware/``); :mod:`~unolauncher.launcher.backends.serial.launcher`
lists its layers. ``python -m unolauncher.launcher.backends.serial release PORT`` reboots the co-processor into its
REPL once (:mod:`~unolauncher.launcher.backends.serial.cli`).

Nothing is imported here, so that reading the settings does not import pyserial.
"""
