"""The embedded broker's room for entropy commitments: each connection and each source address may pass only a few
``entropy`` commitments (a ``cmd`` with ``type: "entropy"`` and a ``hash``) on to the table per time window; the
excess is dropped in the broker, before the daemon sees it, and counted (docs/fairness.md).

Why in the broker: a commitment's ``client`` id is whatever the sender writes, so the daemon (which reads ``cmd``
through its own MQTT connection) cannot tell 32 invented ids from 32 phones, and a flood of them filled the round's
64 commitments before the honest phone's arrived. The broker sees the connection and the address of every publish.
With at most :data:`PER_ADDRESS` commitments from one address in any :data:`WINDOW_S`, one host can use at most
:data:`PER_ADDRESS` of the round's ``MAX_COMMITS`` (64): a cheater needs 8 addresses on the table's network to fill
it, and the broker's connection slots bound connections per address too. :data:`PER_ADDRESS` is sized for a café's
NAT (about 8 phones behind one address, one commitment each per round); :data:`PER_CONNECTION` lets one phone use
its 2 per client id and commit again after a reconnect.

The window (twice the commit window) is longer than a round's commit window, so any commit window holds at most
:data:`PER_ADDRESS` of one address's commitments; an honest phone commits once per round, far less often.

>>> cap = EntropyCap(per_connection=2, per_address=3, window_s=1.0, clock=lambda: 0.0)
>>> [cap.admit("conn-a", "10.0.0.5") for _ in range(3)]
[True, True, False]
>>> cap.admit("conn-b", "10.0.0.5"), cap.admit("conn-c", "10.0.0.5"), cap.admit("conn-d", "10.0.0.6")
(True, False, True)
>>> cap.dropped
2
>>> is_commitment("unolauncher/t1/cmd", b'{"type": "entropy", "hash": "ab", "client": "x"}')
True
>>> is_commitment("unolauncher/t1/cmd", b'{"type": "entropy", "entropy": "ab"}')  # a reveal: not capped here
False
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from unolauncher.rules.ejection_entropy import COMMIT_WINDOW_MS
from unolauncher.strict_json import StrictJSONError, loads

PER_CONNECTION = 4  # a phone's 2 per client id, and 2 more after a reconnect within the window
PER_ADDRESS = 8  # a café's NAT: ~8 phones behind one address; 8 < MAX_COMMITS (64), so one address cannot fill it
WINDOW_S = 2 * COMMIT_WINDOW_MS / 1000  # longer than a round's commit window (see the module docstring)
MAX_KEYS = 1024  # sweep stale keys once this many are tracked


def is_commitment(topic: str | None, data: bytes | bytearray | None) -> bool:
    """Whether a publish is an entropy commitment: on a ``cmd`` topic, parsed as the daemon parses it (strict JSON),
    an object with ``type`` ``"entropy"`` and a ``hash`` (the daemon takes a command with a non-null ``hash`` as a
    commitment). A payload the daemon cannot parse is refused by it, so it needs no room here."""
    if topic is None or not topic.endswith("/cmd") or not data:
        return False
    try:
        command = loads(bytes(data))
    except StrictJSONError:
        return False
    return isinstance(command, dict) and command.get("type") == "entropy" and command.get("hash") is not None


class EntropyCap:
    """Sliding-window counts of commitments per connection and per address; :meth:`admit` says whether one more
    may pass (and counts it when it may not). Used from the broker's event loop only."""

    def __init__(
        self,
        per_connection: int = PER_CONNECTION,
        per_address: int = PER_ADDRESS,
        window_s: float = WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_connection = per_connection
        self.per_address = per_address
        self.window_s = window_s
        self._clock = clock
        self._connections: dict[Hashable, deque[float]] = {}
        self._addresses: dict[str, deque[float]] = {}
        self.dropped = 0  # commitments dropped in all

    def admit(self, connection: Hashable, address: str) -> bool:
        """True (and counted in both windows) when ``connection`` and ``address`` have room for one more."""
        now = self._clock()
        if len(self._connections) + len(self._addresses) > MAX_KEYS:
            self._sweep(now)
        by_connection = self._recent(self._connections, connection, now)
        by_address = self._recent(self._addresses, address, now)
        if len(by_connection) >= self.per_connection or len(by_address) >= self.per_address:
            self.dropped += 1
            return False
        by_connection.append(now)
        by_address.append(now)
        return True

    def _recent(self, table: dict[Any, deque[float]], key: Hashable, now: float) -> deque[float]:
        times = table.setdefault(key, deque())
        while times and now - times[0] >= self.window_s:
            times.popleft()
        return times

    def _sweep(self, now: float) -> None:
        tables: tuple[dict[Any, deque[float]], ...] = (self._connections, self._addresses)
        for table in tables:
            for key in [k for k, times in table.items() if not times or now - times[-1] >= self.window_s]:
                del table[key]
