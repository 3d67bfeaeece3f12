"""The launcher on GPIO pins through gpiozero (on a Pi, or on mock pins under the virtual launcher and in tests).

One module per concern, each saying which thread runs it:

- :mod:`~unolauncher.launcher.backends.gpio.settings`: :class:`DeviceSettings` (the thread that builds the launcher);
- :mod:`~unolauncher.launcher.backends.gpio.launcher`: :class:`GpioLauncher`, the public ``Launcher`` methods;
- :mod:`~unolauncher.launcher.backends.gpio.motor_guard`: the only writer of the motor pins (its own thread);
- :mod:`~unolauncher.launcher.backends.gpio.feedback`: LED and buzzer patterns (the clock's timer thread).

Nothing is imported here, so that reading the settings does not import gpiozero.
"""
