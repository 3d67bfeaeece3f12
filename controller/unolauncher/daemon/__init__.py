"""The daemon: wires the button, the referee, the launcher, the journal and MQTT into one table.

- ``app.py`` starts and stops the parts; ``table.py`` is the worker that applies every command in order and journals
  it (with ``journalling.py``, ``restore.py``, ``prepare.py``, ``freshness.py``, ``press_gate.py``,
  ``failed_fire.py``; ``interfaces.py``: what these parts agree on).
- ``handlers.py``/``commands.py`` answer the daemon's own commands and queries; ``catalogue.py`` publishes the rule
  catalogue; ``mqtt_output.py``, ``ha_announce.py``, ``sensors.py`` publish what the table does.
- ``config.py`` reads the TOML configuration file (every key); ``mqtt_settings.py`` turns it into an MQTT connection.
- ``watchdog.py``, ``notify.py``, ``hard_exit.py``, ``emergency_stop.py``, ``disk_guard.py``, ``logqueue.py``,
  ``private_files.py``: keeping the process healthy, safe and private.

Its commands (``unolauncher run``, ``ha-remove``) are in ``cli/``.
"""
