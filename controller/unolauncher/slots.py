"""Connection slots: at most so many connections open at once, and at most so many from one client address.

The dashboard's HTTP server and the embedded MQTT broker take a slot when they accept a connection and give it back
when it closes; without one the connection is closed at once (no thread, no buffer, no file handle kept for it).
The per-address limit keeps one host (a misbehaving script, a slowloris) from taking every slot: phones, Home
Assistant and the daemon's own MQTT client, each on its own address, still get in.

Example::

    >>> slots = ConnectionSlots(total=64, per_client=16)
    >>> if slots.take("192.168.1.20"):
    ...     pass                                 # serve it
    ...     slots.give_back("192.168.1.20")
"""

from __future__ import annotations

import threading


class ConnectionSlots:
    """Counts open connections in total and per client address (thread-safe)."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self.refused = 0
        self._by_client: dict[str, int] = {}
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        return self._open

    def take(self, client: str) -> bool:
        """A slot for a new connection from ``client``, or False (then close the connection)."""
        with self._lock:
            held = self._by_client.get(client, 0)
            if self._open >= self.total or held >= self.per_client:
                self.refused += 1
                return False
            self._by_client[client] = held + 1
            self._open += 1
            return True

    def give_back(self, client: str) -> None:
        with self._lock:
            held = self._by_client.get(client, 0) - 1
            if held > 0:
                self._by_client[client] = held
            else:
                self._by_client.pop(client, None)
            self._open -= 1
