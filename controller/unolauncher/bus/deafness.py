"""The daemon notices for itself when the broker stops delivering to it.

A broker can leave a connection open and answering pings while it delivers nothing to it any more: amqtt 0.12.1
did exactly that after a second CONNECT with the daemon's client id (broker_identity.py now refuses that one), and a
broker restarted behind a NAT, or a subscription lost some other way, looks the same from paho's side. A deaf table
answers nothing and still says ``online``.

So the daemon publishes a random token (``{"probe": "<hex>"}``) to ``unolauncher/<table>/probe``, a topic it
subscribes to itself (QoS 0), every :data:`PROBE_INTERVAL_S`; when neither one of its tokens nor any command has
come back for :data:`DEAF_AFTER_S`, it logs it and drops the connection, and paho reconnects and subscribes again.
Only the daemon may publish on its table's topics (broker_identity.py; the shipped mosquitto ACL), and the tokens
are random, so nobody can fake an echo.

Example (not a doctest: needs a paho client)::

    probe = DeafnessProbe("unolauncher/t1/probe")
    if probe.tick(client, subscribed=True, now=time.monotonic()):  # the publisher thread, about once a second
        drop_connection(client)
    probe.heard(message.payload)  # paho's thread, for every probe message
"""

from __future__ import annotations

import logging
import secrets
import socket
from typing import Any

log = logging.getLogger(__name__)

PROBE_INTERVAL_S = 5.0
DEAF_AFTER_S = 12.0  # two probes and more lost in a row; a loaded Pi Zero still echoes within a second


class DeafnessProbe:
    """Sends probes while the bus is subscribed and tells when their echoes stopped coming."""

    def __init__(self, topic: str, interval_s: float = PROBE_INTERVAL_S, deaf_after_s: float = DEAF_AFTER_S) -> None:
        self.topic = topic
        self.interval_s = interval_s
        self.deaf_after_s = deaf_after_s
        self.deaf_count = 0  # times the daemon found itself deaf and reconnected
        self._tokens: list[bytes] = []  # sent and not echoed (a few at most: cleared on every echo or reset)
        self._waiting_since: float | None = None  # when the oldest unanswered probe went out
        self._next = 0.0

    def tick(self, client: Any, subscribed: bool, now: float) -> bool:
        """Send a probe when one is due; True when the echoes stopped for ``deaf_after_s`` (counted, then reset)."""
        if not subscribed:
            self._reset()
            return False
        waiting = self._waiting_since
        if waiting is not None and now - waiting > self.deaf_after_s:
            self.deaf_count += 1
            log.warning(
                "the MQTT broker stopped delivering to this daemon (no echo of its probe for %.0f s); reconnecting",
                now - waiting,
            )
            self._reset()
            return True
        if now >= self._next:
            token = b'{"probe": "%s"}' % secrets.token_hex(8).encode()  # JSON: phones see it too
            self._tokens = [*self._tokens[-7:], token]
            if waiting is None:
                self._waiting_since = now
            self._next = now + self.interval_s
            client.publish(self.topic, token, qos=0)
        return False

    def heard(self, payload: bytes | bytearray) -> None:
        """A message on the probe topic (paho's thread): one of ours means the broker still delivers."""
        if bytes(payload) in self._tokens:
            self.delivering()

    def delivering(self) -> None:
        """Any message on a subscribed topic (paho's thread): the broker delivers. Under a flood of commands the
        probe's echo waits behind them, sometimes for longer than ``deaf_after_s``: that is not deafness."""
        self._tokens = []
        self._waiting_since = None

    def _reset(self) -> None:
        self._tokens = []
        self._waiting_since = None
        self._next = 0.0


def drop_connection(client: Any) -> None:
    """Shut the paho client's socket down: its network loop sees the connection end and reconnects with back-off,
    as after any lost connection (``disconnect()`` would stop the loop instead)."""
    sock = client.socket()
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: paho reconnects anyway
