"""unolauncher: the Raspberry Pi brain of the UNO Attack card launcher.

The package is split by concern, imports pointing one way:

- ``rules``     pure referee (cards, decks, rule sets, engine, bots) — no I/O
- ``launcher``  ejection model (pure), gpiozero device, virtual launcher, serial backend
- ``store``     SQLite journal and outbox
- ``bus``       MQTT client, topics, Home Assistant discovery, embedded broker
- ``web``       phone dashboard and its tiny HTTP server
- ``daemon``    wires button → referee → launcher → journal → bus
- ``cli``       the ``unolauncher`` command
"""

__version__ = "0.1.0"
