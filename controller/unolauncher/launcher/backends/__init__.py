"""The launcher backends, one subpackage (or module) each, behind :class:`~unolauncher.launcher.interface.Launcher`.

- :mod:`~unolauncher.launcher.backends.gpio`: the launcher on the Pi's own GPIO pins (gpiozero);
- :mod:`~unolauncher.launcher.backends.virtual`: the simulated toy on gpiozero's mock pins, driven by the GPIO
  backend (the ``virtual`` backend is the GPIO code on mock pins, wired to this toy);
- :mod:`~unolauncher.launcher.backends.serial`: the launcher behind a USB-serial co-processor (``firmware/``).

Backends do not import each other, and nothing outside ``launcher/`` imports one: the factory
(:mod:`~unolauncher.launcher.factory`) chooses and builds them, the configuration check
(:mod:`~unolauncher.launcher.config_table`) reads their schemas, and the selftests (``gpio_selftest.py``,
``serial_selftest.py``) drive them by hand (import-linter contracts in ``pyproject.toml``). What they share — the
protocol, events, pin maps, the settings schema — sits beside them in ``launcher/``.
"""
