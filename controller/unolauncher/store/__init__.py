"""Durability: the table's SQLite journal and outbox (``journal.py``: every accepted command, event and launcher
note, written before anything depends on it, and the outbox the bus publishes from) and the limits a damaged or
forged journal reaches (``limits.py``).

Imports nothing of the shell above it (``bus``, ``launcher``, ``daemon``); the rules core does not import it either.
"""
