"""The launcher on GPIO pins through gpiozero (on a Pi, or on mock pins under the virtual launcher and in tests).

One module per concern, each saying which thread runs it:

- :mod:`~unolauncher.launcher.backends.gpio.settings`: :class:`DeviceSettings` and the backend's settings schema
  (the thread that loads the configuration or builds the launcher);
- :mod:`~unolauncher.launcher.backends.gpio.launcher`: :class:`GpioLauncher`: builds the devices, the public
  ``Launcher`` methods (the caller's thread);
- :mod:`~unolauncher.launcher.backends.gpio.runs`: the run state machine, magazine, jam, lid (the clock's timer
  thread, and the calls of the other two, under its lock);
- :mod:`~unolauncher.launcher.backends.gpio.inputs`: input edges and their filters (gpiozero's callback thread);
- :mod:`~unolauncher.launcher.backends.gpio.entry`: what catches an exception on a thread the backend does not own;
- :mod:`~unolauncher.launcher.backends.gpio.motor_guard`: the only writer of the motor pins (its own thread);
- :mod:`~unolauncher.launcher.backends.gpio.feedback`: LED and buzzer patterns (the clock's timer thread).

Nothing is imported here, so that reading the settings does not import gpiozero.
"""
