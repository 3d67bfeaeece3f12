"""The launcher shell: the hardware that throws the cards, behind one interface.

- ``interface.py``: the ``Launcher`` protocol, ``FireResult``, ``LauncherStatus``; ``events.py``: the launcher-level
  events, worded once; ``pins.py``: pin maps.
- ``backends/``: the devices (gpiozero, the virtual toy, the serial co-processor), built by ``factory.py``.
- ``settings_schema.py``: every launcher setting declared once (``Setting``, ``Schema``, ``setting()``);
  ``config_table.py``: the configuration's ``[launcher]`` table checked against the chosen backend's schema.
- ``press.py``: the press path (button → the table's claim → ``fire``).
- ``gpio_selftest.py``, ``serial_selftest.py``, ``calibrate.py``, ``waits.py``: the wiring checks and the calibration
  behind ``unolauncher selftest`` (the command itself is :mod:`unolauncher.cli.selftest`).

The ejection model (which press fires, how many cards) is *not* here: it is pure and lives in ``rules/ejection*.py``.
"""
