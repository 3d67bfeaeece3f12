"""The virtual launcher: the simulated toy on gpiozero's mock pins, which the GPIO backend drives.

- :mod:`~unolauncher.launcher.backends.virtual.params`: :class:`VirtualParams` and their schema (the thread that
  loads the configuration or builds the launcher);
- :mod:`~unolauncher.launcher.backends.virtual.toy`: :class:`VirtualLauncher`, the simulation (the clock's timer
  thread, and whoever presses its buttons).

Nothing is imported here, so that reading the parameters does not import gpiozero.
"""
