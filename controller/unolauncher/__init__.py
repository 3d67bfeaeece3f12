"""unolauncher: the Raspberry Pi brain of the UNO Attack card launcher.

The package is split by concern, imports pointing one way:

- ``rules``     pure core: referee, registries (options, actions), house rules, bots, ejection model — no I/O
- ``launcher``  the launcher interface and its backends (gpiozero, virtual, serial), press path, self-test checks
- ``voice``     the box speaks (espeak-ng), from the journalled events
- ``store``     SQLite journal and outbox
- ``bus``       MQTT client, topics, Home Assistant discovery, embedded broker
- ``web``       phone dashboard and its tiny HTTP server
- ``daemon``    wires button → referee → launcher → journal → bus
- ``cli``       the ``unolauncher`` command, one module per subcommand
- ``league.py`` standings of many tables (pure); ``clock.py``, ``progress.py``, ``slots.py``, ``strict_json.py``,
  ``toml_file.py``, ``errors.py``: small helpers the layers share
"""

__version__ = "0.1.0"
