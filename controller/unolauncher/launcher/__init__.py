"""The launcher shell: the one ``Launcher`` interface (``interface.py``) and its device backends (``backends/``:
gpiozero, virtual, serial co-processor) chosen by ``factory.py`` from the settings (``schema.py``: the backends'
shared settings; ``config.py``: the ``[launcher]`` table; ``setting.py``: one setting's declaration), the press path
(``press.py``), calibration and the self-test (``calibrate.py``, ``gpio_selftest.py``, ``serial_selftest.py``), and,
for now, the audit commands ``verify`` and ``export`` (``verify_cli.py``, ``export_cli.py``).

The ejection model (which press fires, how many cards) is *not* here: it is pure and lives in ``rules/ejection*.py``.
"""
