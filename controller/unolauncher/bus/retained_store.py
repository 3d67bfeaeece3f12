"""The embedded broker's retained messages on disk, so they outlive the daemon (a restart, a SIGKILL, a power cut).

amqtt keeps retained messages in memory only: without this, every restart of the daemon forgets Home Assistant's
discovery configs, the table's ``status``/``state``/``sensors`` and anything another client retained, and with them
a rename's or ``ha-remove``'s deletions. mosquitto persists them (``persistence true``); this gives the embedded
broker the same, with the journal's durability (``store/journal.py``): one SQLite file in the state directory, WAL,
``synchronous=FULL``, so every committed change is fsynced.

The broker calls :meth:`RetainedStore.put` for each retained publish right after it stored the message in memory,
from a single writer thread of its own (:meth:`RetainedStore.put_async`, in publish order), so the broker's event loop
never waits for an fsync and a client subscribing at any moment gets the message as retained (amqtt delivers to the
current subscribers, then retains: a disk write awaited in between left a gap that lost a newcomer both). As with
mosquitto's persistence, a message retained a moment before a crash may be missing after it. An empty retained
payload deletes (MQTT 3.3.1-10). An unchanged payload is not written again (Home Assistant's discovery is
republished on every birth message).

Example::

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "retained.sqlite"
    >>> store = RetainedStore(path)
    >>> store.put("homeassistant/device/x/config", b'{"a": 1}', 1)
    True
    >>> store.put("homeassistant/device/x/config", b'{"a": 1}', 1)   # unchanged: no write
    False
    >>> store.close(); store = RetainedStore(path)
    >>> store.load()
    [('homeassistant/device/x/config', b'{"a": 1}', 1)]
    >>> store.put("homeassistant/device/x/config", b"", 0)          # an empty payload deletes
    True
    >>> store.load()
    []
    >>> store.close()
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)

RETAINED_FILE = "broker-retained.sqlite"  # in the daemon's state directory
MAX_RETAINED = 10_000  # topics kept on disk; past it new topics stay in memory only (a hostile client's flood)


class RetainedStore:
    """Retained messages by topic in one SQLite file (see the module docstring). Not thread-safe by itself: the
    broker uses it from one writer thread (:meth:`put_async`) and loads it before its listeners open."""

    def __init__(self, path: Path, max_topics: int = MAX_RETAINED) -> None:
        self.path = path
        self.max_topics = max_topics
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # as the journal: each commit fsynced
        self._db.execute("CREATE TABLE IF NOT EXISTS retained (topic TEXT PRIMARY KEY, payload BLOB NOT NULL, qos INT)")
        self._known: dict[str, bytes] = {t: bytes(p) for t, p, _ in self.load()}
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="broker-retained")
        self._lock = threading.Lock()

    def load(self) -> list[tuple[str, bytes, int]]:
        """Every retained message on disk, ``(topic, payload, qos)``, in topic order."""
        rows = self._db.execute("SELECT topic, payload, qos FROM retained ORDER BY topic").fetchall()
        return [(str(t), bytes(p), int(q or 0)) for t, p, q in rows]

    def put(self, topic: str, payload: bytes, qos: int | None) -> bool:
        """Store (or, with an empty payload, delete) ``topic``'s retained message, fsynced; False: nothing to do."""
        data = bytes(payload)
        with self._lock:
            if self._known.get(topic) == (data or None):
                return False
            if not data:
                self._db.execute("DELETE FROM retained WHERE topic = ?", (topic,))
                self._known.pop(topic, None)
                return True
            if topic not in self._known and len(self._known) >= self.max_topics:
                log.warning(
                    "embedded broker: %d retained topics on disk already; %s is kept in memory only",
                    len(self._known),
                    topic,
                )
                return False
            self._db.execute(
                "INSERT INTO retained (topic, payload, qos) VALUES (?, ?, ?) "
                "ON CONFLICT(topic) DO UPDATE SET payload = excluded.payload, qos = excluded.qos",
                (topic, data, int(qos or 0)),
            )
            self._known[topic] = data
            return True

    async def put_async(self, topic: str, payload: bytes, qos: int | None) -> None:
        """:meth:`put` on the writer thread, awaited: the broker's loop keeps serving other clients meanwhile.
        A disk error is logged, never raised: the broker keeps the message in memory as amqtt always did."""
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._writer, self.put, topic, bytes(payload or b""), qos)
        except (sqlite3.Error, OSError):
            log.warning("embedded broker: could not store the retained message on %s", topic, exc_info=True)

    def close(self) -> None:
        self._writer.shutdown(wait=True)
        with self._lock:
            self._db.close()
