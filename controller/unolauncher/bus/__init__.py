"""MQTT: how the table talks to phones, Home Assistant and other tables.

- ``mqtt.py``: the table's connection (paho-mqtt) and the outbox publisher; ``client.py``: the paho client as
  configured (:class:`~unolauncher.bus.client.BusSettings`); ``deafness.py``: noticing a broker that stopped
  delivering; ``refusals.py``: a broker's refusal in one sentence.
- ``topics.py``: the table's topic names; ``event_types.py``: every event type the daemon publishes, in one place.
- ``discovery.py``, ``ha_game.py``: Home Assistant discovery (the launcher as a device, the game as entities).
- ``broker*.py``, ``retained_store.py``: the embedded amqtt broker for zero-setup tables, with the guards amqtt lacks
  (packet size, connections, deliveries, command rate, entropy, identity) and its retained messages on disk.

Nothing here imports ``launcher``, ``web`` or ``daemon``; the daemon wires the bus to the table.
"""
