"""Taps that mean *now*: a phone's command carries what it was tapped on, and a late one is refused ``stale``.

A phone that loses Wi-Fi for a moment may deliver a held command many seconds later, to a table that has moved on:
a HIT would fire on whoever's turn it is by then (docs/reliability.md, "Figures behind the guards"). So the dashboard
adds two fields to what it sends (``web/static/js/freshness.js``):

- ``seen_seq``: the ``seq`` of the last ``state`` the phone showed when it was tapped;
- ``tapped_at``: the tap's time on the *daemon's* wall clock (unix ms), which the phone estimates from the
  ``alive`` topic's ``t`` (:class:`AlivePublisher`).

The worker checks them just before it applies the command (:meth:`Freshness.check`; queueing delay counts) and
strips them (the referee and the journal never see them). Refused, with code ``stale`` and one sentence the page
shows:

- **too old**: ``tapped_at`` more than :data:`MAX_AGE_MS` before now (or that far in the future);
- **the table moved on**: the game's public state now differs from the one published at ``seen_seq`` (any change:
  a hit taken, a card played, another phone's command). A press tapped on an older state than the current hitter's
  is not theirs.

Which commands: both fields are optional everywhere, so the CLI, Home Assistant and scripts work unchanged, and the
physical button is never affected (it is not a command). When present they are checked on every command that moves
the game (``press``, ``hit``, ``play``, ``draw``, ``pass``, ``uno``, ``catch``, ``challenge``, ``color``, ``undo``,
``score``, ``next_round``, ``new_game``, … — everything not listed below); ``enable``, ``lid``, ``load`` and
``preset`` check the age only; ``status``, ``moves``, ``resend`` and ``disable`` (the emergency stop must always
act) ignore them.

Example::

    >>> now = [10_000]
    >>> fresh = Freshness(clock_ms=lambda: now[0])
    >>> fresh.observe_state({"current": "ann", "seq": 4})
    >>> fresh.check({"type": "press", "seen_seq": 4, "tapped_at": 9_500}, {"current": "ann"}) is None
    True
    >>> fresh.check({"type": "press", "seen_seq": 4, "tapped_at": 5_000}, {"current": "ann"})[0]
    'stale'
    >>> fresh.check({"type": "press", "seen_seq": 4}, {"current": "bob"})[1][:60]
    'The table has moved on since this tap (it is now bob’s turn)'
    >>> command = {"type": "status", "seen_seq": 1}
    >>> fresh.check(command, {}), command
    (None, {'type': 'status'})
"""

from __future__ import annotations

import collections
import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from unolauncher.strict_json import INT_MAX

FIELDS = ("seen_seq", "tapped_at")
MAX_AGE_MS = 2000  # "older than a couple of seconds": a tap is a decision about what the table showed then
IGNORED = frozenset({"status", "moves", "resend", "disable"})  # queries, catch-up, and the emergency stop
AGE_ONLY = frozenset({"enable", "lid", "load", "preset"})  # not about the game's state, but not to be done late
REMEMBERED_STATES = 512  # published states whose fingerprint is kept (a phone that saw an older one: stale)
ALIVE_INTERVAL_S = 1.0


def fingerprint(public_state: dict[str, Any]) -> str:
    """A short digest of the game's public state, ``seq`` left out (launcher events move ``seq``, not the game)."""
    data = {k: v for k, v in public_state.items() if k != "seq"}
    return hashlib.blake2b(json.dumps(data, sort_keys=True, default=str).encode(), digest_size=12).hexdigest()


def _whose(state: dict[str, Any]) -> str:
    owed = state.get("owed")
    if isinstance(owed, list) and owed and isinstance(owed[0], dict) and isinstance(owed[0].get("player"), str):
        return f"{owed[0]['player']} must hit"
    current = state.get("current")
    return f"it is now {current}’s turn" if isinstance(current, str) else "the game has changed"


class Freshness:
    """The states the table published (by ``seq``) and the check of a command's freshness fields.

    :meth:`observe_state` is called for every state published (the worker, or paho's thread on a reconnect);
    :meth:`check` on the worker. ``clock_ms`` is the daemon's wall clock in unix ms (the ``alive`` topic's).
    """

    def __init__(self, clock_ms: Callable[[], float] | None = None, max_age_ms: int = MAX_AGE_MS) -> None:
        self.clock_ms = clock_ms or (lambda: time.time() * 1000)
        self.max_age_ms = max_age_ms
        self.last_state_seq: int | None = None  # the ``alive`` topic's seq
        self.refused = 0
        self._lock = threading.Lock()
        self._states: collections.OrderedDict[int, str] = collections.OrderedDict()

    def observe_state(self, snapshot: dict[str, Any]) -> None:
        seq = snapshot.get("seq")
        if not isinstance(seq, int):
            return
        with self._lock:
            self._states[seq] = fingerprint(snapshot)
            self._states.move_to_end(seq)
            while len(self._states) > REMEMBERED_STATES:
                self._states.popitem(last=False)
            self.last_state_seq = seq

    def _seen(self, seq: int) -> str | None:
        """The fingerprint of the state the phone showed at ``seq``: the newest published at or before it."""
        with self._lock:
            known = [s for s in self._states if s <= seq]
            return self._states[max(known)] if known else None

    def check(
        self, command: dict[str, Any], public_state: dict[str, Any] | Callable[[], dict[str, Any]]
    ) -> tuple[str, str] | None:
        """Remove the freshness fields from ``command`` and say why it is refused (``(code, message)``), if it is.
        ``public_state`` is the game's public state now (or a function returning it, called only when needed)."""
        seen, tapped = command.pop("seen_seq", None), command.pop("tapped_at", None)
        kind = command.get("type")
        if kind in IGNORED or (seen is None and tapped is None):
            return None
        for name, value in (("seen_seq", seen), ("tapped_at", tapped)):
            if value is not None and (type(value) is not int or not 0 <= value <= INT_MAX):
                return "bad_field", f"{name} must be a whole number from 0 to {INT_MAX}."
        if tapped is not None:
            age = self.clock_ms() - tapped
            if abs(age) > self.max_age_ms:
                self.refused += 1
                when = f"{age / 1000:.0f} s after it was made" if age > 0 else "with a time ahead of the table's clock"
                return "stale", (
                    f"This tap reached the table {when} (the connection was slow or down), so it was not carried out;"
                    " tap again if you still mean it."
                )
        if seen is None or kind in AGE_ONLY:
            return None
        state = public_state() if callable(public_state) else public_state
        then = self._seen(seen)
        if then is None or then != fingerprint(state):
            self.refused += 1
            return "stale", (
                f"The table has moved on since this tap ({_whose(state)}), so it was not carried out; tap again if you"
                " still mean it."
            )
        return None


class AlivePublisher:
    """``unolauncher/<table>/alive`` every second (QoS 0, not retained): ``{"t": unix ms, "seq": last state seq}``.
    Pages notice a silent table from it (no ``alive`` for 2.5 s: offline) and estimate the daemon's clock.

    Its own thread, which only formats a small payload and hands it to the bus (dropped while disconnected).

    Example (not a doctest: needs the daemon's bus)::

        alive = AlivePublisher(lambda payload: bus.publish(topics.alive, payload, qos=0), freshness)
        alive.start()
        ...
        alive.stop()
    """

    def __init__(
        self,
        publish: Callable[[dict[str, Any]], None],
        freshness: Freshness,
        interval_s: float = ALIVE_INTERVAL_S,
    ) -> None:
        self.publish = publish
        self.freshness = freshness
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="alive", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2.0)

    def _run(self) -> None:
        while True:
            try:
                self.publish({"t": round(self.freshness.clock_ms()), "seq": self.freshness.last_state_seq})
            except Exception:  # a bus that is stopping: the next beat tries again; nothing to report per beat
                pass
            if self._stop.wait(self.interval_s):
                return
