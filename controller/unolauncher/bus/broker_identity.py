"""Who is who on the embedded broker: the daemon's client id cannot be taken over, and only the daemon may publish
on its own topics.

amqtt 0.12.1 handles a second CONNECT with a client id that is still connected badly: a clean-session CONNECT
deletes the old session's subscriptions but leaves the old connection open, answering PINGREQ, so the old client
(paho) never notices it went deaf; a persistent-session CONNECT takes the id over. One CONNECT with the daemon's id
made the table deaf for good. Here:

- a client id the daemon **reserved** (:meth:`Identities.reserve`) is refused (CONNACK 0x02, identifier rejected)
  while its owner is connected: nobody can kick the daemon off or take its subscriptions;
- any other id that is still connected is **taken over properly**, as MQTT 3.1.1 says (3.1.4-2): the old connection
  is closed before the new one is let in (a phone that reconnects with its tab's id, a half-open Wi-Fi link);
- only the reserving client may publish under its table's topics (``unolauncher/<table>/...``), ``cmd`` excepted:
  nobody else can fake ``events``, ``state``, ``status``, ``reply`` (and the rest) to the phones;
- once the daemon set :meth:`Identities.allow_origins`, a WebSocket whose ``Origin`` (every browser sends one) is not
  the dashboard's own is closed before any MQTT: a page on another site, open in a phone's browser on the LAN,
  cannot command the table. Allowed: the configured ``broker.ws_origins``, and an origin on the host the browser
  connected to (the ``Host`` header) with the dashboard's port or the WebSocket port itself (scripts such as paho
  send that one). A client without ``Origin`` is not a browser: it could use the TCP listener anyway.

Example (not a doctest: needs a running broker)::

    identities = Identities()
    identities.reserve("unolauncher-t1-9f2c...", "unolauncher/t1")
    identities.may_publish("someone", "unolauncher/t1/state")  # False
    identities.may_publish("someone", "unolauncher/t1/cmd")  # True
"""

from __future__ import annotations

import logging
import threading
from typing import Any
from urllib.parse import urlsplit

from amqtt.broker import Broker
from amqtt.contexts import Action
from amqtt.errors import MQTTError
from amqtt.mqtt.connack import IDENTIFIER_REJECTED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.utils import gen_client_id

from unolauncher.bus.broker_entropy import EntropyCap, is_commitment

log = logging.getLogger(__name__)

OPEN_SUFFIXES = ("/cmd",)  # the topics under a table's base that every client may publish on


class Identities:
    """Reserved client ids, each with the topic base only it may publish under, and what was refused (thread-safe
    to read; written from the daemon's thread before its client connects)."""

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}  # client id -> its topic base ("unolauncher/t1")
        self._bases: dict[str, str] = {}  # topic base + "/" -> the client id that owns it
        self._lock = threading.Lock()
        self.refused_ids = 0  # CONNECTs refused: the reserved id was connected
        self.taken_over = 0  # connections closed because a new CONNECT came with their id
        self.refused_publishes = 0  # publishes dropped: someone else's topic
        self.refused_origins = 0  # WebSockets closed: a foreign Origin
        self._origins: frozenset[str] | None = None  # None: no Origin check (a broker without a daemon's set-up)
        self._dashboard_port: int | None = None

    def allow_origins(self, dashboard_port: int | None, origins: list[str] | tuple[str, ...] = ()) -> None:
        """Check every WebSocket's ``Origin`` from now on: the dashboard's (its ``dashboard_port`` on the host the
        browser used), the WebSocket listener's own, and ``origins`` (exact ``scheme://host[:port]``)."""
        self._dashboard_port = dashboard_port
        self._origins = frozenset(o.rstrip("/").lower() for o in origins)

    def origin_allowed(self, origin: str | None, host_header: str | None) -> bool:
        """Whether a WebSocket with this ``Origin`` and ``Host`` may go on to MQTT."""
        if origin is None or self._origins is None:
            return True
        origin = origin.rstrip("/").lower()
        if origin in self._origins:
            return True
        try:
            parsed, host = urlsplit(origin), urlsplit("//" + (host_header or ""))
            port = parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)
            same_host = parsed.hostname is not None and parsed.hostname == host.hostname
            return same_host and parsed.scheme in ("http", "https") and port in (self._dashboard_port, host.port)
        except ValueError:  # a port that is not a number: not a browser's origin
            return False

    def reserve(self, client_id: str, base: str) -> None:
        """Only ``client_id`` may publish under ``base/`` (``cmd`` excepted); a second CONNECT with it is refused."""
        with self._lock:
            self._owners = {**self._owners, client_id: base}
            self._bases = {**self._bases, base + "/": client_id}

    def is_reserved(self, client_id: str | None) -> bool:
        return client_id in self._owners

    def may_publish(self, client_id: str | None, topic: str) -> bool:
        """False for a topic under a reserved base (``cmd`` excepted) from anyone but its owner."""
        for prefix, owner in self._bases.items():  # one table: one entry
            if topic.startswith(prefix) and client_id != owner:
                return topic.endswith(OPEN_SUFFIXES) and topic.count("/") == prefix.count("/")
        return True


class IdentityBroker(Broker):
    """amqtt's ``Broker`` with :class:`Identities` applied to every CONNECT and PUBLISH (set :attr:`identities`)."""

    identities: Identities
    entropy_cap: EntropyCap  # commitments per connection and per address (broker_entropy.py); set by the builder

    async def _initialize_client_session(
        self, reader: Any, writer: Any, remote_address: str, remote_port: int
    ) -> tuple[Any, Any]:
        # amqtt's own method, with the live-id check between reading the CONNECT and touching any session: amqtt's
        # version deletes the old session first (the deaf-daemon bug). Exceptions propagate as in amqtt's: its caller
        # logs and closes for AMQTTError, MQTTError and NoDataError alike.
        try:
            handler, session = await BrokerProtocolHandler.init_from_connect(reader, writer, self.plugins_manager)
        except MQTTError:
            await writer.close()
            raise
        client_id = session.client_id
        session.remote_address = remote_address  # for the entropy cap: per source address
        live = self._sessions.get(client_id) if client_id else None
        if live is not None and live[0].transitions.is_connected():
            if self.identities.is_reserved(client_id):
                self.identities.refused_ids += 1
                if _worth_logging(self.identities.refused_ids):
                    log.warning(
                        "embedded broker: refused a CONNECT from %s with the daemon's client id (%d so far)",
                        remote_address,
                        self.identities.refused_ids,
                    )
                await ConnackPacket.build(0, IDENTIFIER_REJECTED).to_stream(writer)
                await writer.close()
                raise MQTTError("client id in use by the daemon")
            self.identities.taken_over += 1
            await live[1].handle_connection_closed()
            await live[1].stop()
        if session.clean_session:
            if client_id:
                await self._delete_session(client_id)
            else:
                session.client_id = gen_client_id()
            session.parent = 0
        elif client_id in self._sessions:
            old, _ = self._sessions[client_id]
            for key in ("will_flag", "will_message", "will_topic", "will_qos", "keep_alive", "username", "password"):
                setattr(old, key, getattr(session, key))
            session = old
            session.parent = 1
        else:
            session.parent = 0
        delay = self.config.get("timeout-disconnect-delay", 0)
        if session.keep_alive > 0 and isinstance(delay, int):
            session.keep_alive += delay
        return handler, session

    async def _handle_message_delivery(self, client_session: Any, handler: Any, wait_deliver: Any) -> bool:
        # Both listeners (TCP and WebSocket) come through here with every PUBLISH, before it is broadcast or retained:
        # an entropy commitment past its connection's or address's room is dropped (issue #25 item 7).
        message = wait_deliver.result()
        if (
            message is not None
            and not self.identities.is_reserved(client_session.client_id)
            and is_commitment(message.topic, message.data)
            and not self.entropy_cap.admit(handler, str(getattr(client_session, "remote_address", None) or "?"))
        ):
            dropped = self.entropy_cap.dropped
            if _worth_logging(dropped):
                log.warning(
                    "embedded broker: dropped an entropy commitment from %s (client %.40r): its address or "
                    "connection used its room for now (%d so far)",
                    getattr(client_session, "remote_address", "?"),
                    client_session.client_id,
                    dropped,
                )
            return True
        return bool(await super()._handle_message_delivery(client_session, handler, wait_deliver))

    def origin_refused(self, websocket: Any) -> bool:
        """True (counted, logged) when a WebSocket's ``Origin`` is not allowed: the caller closes it."""
        request = getattr(websocket, "request", None)
        headers = request.headers if request is not None else {}
        origin, host = headers.get("Origin"), headers.get("Host")
        if self.identities.origin_allowed(origin, host):
            return False
        self.identities.refused_origins += 1
        if _worth_logging(self.identities.refused_origins):
            log.warning(
                "embedded broker: refused a WebSocket from a page on %.100r (not the dashboard's; %d so far)",
                origin,
                self.identities.refused_origins,
            )
        return True

    async def _topic_filtering(self, session: Any, topic: str, action: Any) -> bool:
        if action == Action.PUBLISH and not self.identities.may_publish(session.client_id, topic):
            self.identities.refused_publishes += 1
            return False
        return bool(await super()._topic_filtering(session, topic, action))


def _worth_logging(count: int) -> bool:
    """The 1st, 2nd, 4th, 8th, ... refusal: a flood of them costs the log a few lines, not one per attempt."""
    return count & (count - 1) == 0
