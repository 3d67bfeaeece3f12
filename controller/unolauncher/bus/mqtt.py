"""The table's MQTT connection (paho-mqtt 2.x) and the outbox publisher.

- ``status`` is retained ``online`` after each connect and the Last Will is a retained ``offline``; because a clean
  ``disconnect()`` does not send the Will, :meth:`TableBus.stop` publishes ``offline`` itself.
- Events go out from the journal's outbox in ``seq`` order at QoS 1, at most :data:`WINDOW` unacknowledged at a
  time; a row leaves the outbox only on PUBACK. paho re-sends its unacknowledged QoS 1 messages after a
  reconnect, so the publisher never re-publishes what paho still holds; after a restart the outbox is published
  from its oldest row. Delivery is therefore at-least-once: a consumer drops a ``seq`` it has already seen.
- Every paho callback catches everything: an exception inside one kills paho's network thread silently.
- A retained message on ``cmd`` is never a command (it would run again on every connect); under MQTT 5 the
  subscription asks the broker not to send retained messages at all, under 3.1.1 they are dropped on arrival.
- Home Assistant's ``online`` republishes discovery at most once per :data:`HA_REPUBLISH_MIN_S` (discovery is
  retained, so a message skipped changes nothing; a flood of ``online`` once pinned the daemon).

Example::

    bus = TableBus(BusSettings(host="127.0.0.1", port=1883), Topics("t1"), journal, on_command=print)
    bus.start()
    bus.kick()     # after appending events to the journal
    bus.stop()
"""

from __future__ import annotations

import collections
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.subscribeoptions import SubscribeOptions

from unolauncher import strict_json
from unolauncher.bus.topics import Topics
from unolauncher.store.journal import Journal

log = logging.getLogger(__name__)

ACK_BATCH_S = 0.02
WINDOW = 100  # events handed to paho but not yet acknowledged; bounds memory during an outage
HA_STATUS_TOPIC_SUFFIX = "/status"
HA_REPUBLISH_MIN_S = 5.0


@dataclass
class BusSettings:
    """How to reach the broker."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    tls_insecure: bool = False
    mqtt5: bool = False
    keepalive: int = 30
    client_id: str | None = None
    reconnect_min: int = 1
    reconnect_max: int = 30
    ha_prefix: str | None = "homeassistant"  # None: do not listen to Home Assistant's birth message
    transport: str = "tcp"  # or "websockets" (path ``ws_path``)
    ws_path: str = "/mqtt"


def set_tcp_nodelay(sock: Any) -> bool:
    """Turn Nagle's algorithm off on a connected socket (plain, TLS or paho's WebSocket wrapper); True if set.

    paho-mqtt 2.2 leaves Nagle on. The daemon writes small packets back to back (the PUBACK of a command, then
    its reply and events); with Nagle the second waits for the broker's delayed ACK, ~40 ms each time.
    The option is set through a duplicate of the descriptor, so any object with ``fileno()`` works.

    Example::

        set_tcp_nodelay(client.socket())
    """
    try:
        with socket.socket(fileno=os.dup(sock.fileno())) as dup:
            if dup.family not in (socket.AF_INET, socket.AF_INET6):
                return False  # a Unix socket: no Nagle to switch off
            dup.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return True
    except (OSError, ValueError, AttributeError):
        log.warning("could not set TCP_NODELAY on the MQTT socket", exc_info=True)
        return False


class TableBus:
    """One paho client for one table, plus the thread that drains the outbox.

    ``on_command(payload)`` is called from paho's thread for every message on ``cmd``; it must be quick (the
    daemon only queues it). ``on_connected()`` runs after every (re)connect, once the broker acknowledged the
    ``cmd`` subscription (``online`` is published then); ``on_ha_online()`` whenever Home Assistant announces
    itself.
    """

    def __init__(
        self,
        settings: BusSettings,
        topics: Topics,
        journal: Journal,
        on_command: Callable[[bytes], None],
        on_connected: Callable[[], None] | None = None,
        on_ha_online: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.topics = topics
        self.journal = journal
        self.on_command = on_command
        self.on_connected = on_connected
        self.on_ha_online = on_ha_online
        self.connected = threading.Event()
        self.subscribed = threading.Event()  # connected and the broker acknowledged the cmd subscription
        # Sessions the broker confirmed (the cmd subscription acknowledged), counted before ``subscribed`` is set:
        # ``sessions > n and subscribed.is_set()`` means "a connection newer than the n-th one is up and heard".
        self.sessions = 0
        self._subscribe_mid: int | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._acked: collections.deque[int] = collections.deque()  # mids from on_publish (paho thread)
        self._inflight: dict[int, int] = {}  # mid -> seq, guarded by _flush_lock
        self._flush_lock = threading.Lock()
        self._sent_upto = 0  # highest seq handed to paho in this process
        self._publisher: threading.Thread | None = None
        self._ha_republished = -HA_REPUBLISH_MIN_S  # monotonic time of the last republish for Home Assistant
        self.retained_commands_ignored = 0
        self.client = self._make_client()

    # -- set-up -------------------------------------------------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        s = self.settings
        client_id = s.client_id or f"unolauncher-{self.topics.table_id}"
        transport: Literal["tcp", "websockets"] = "websockets" if s.transport == "websockets" else "tcp"
        # A clean session under 3.1.1 is paho's default (and MQTT 5 refuses the argument): the journal's outbox,
        # not the broker's session, is what carries events across a restart.
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=MQTTProtocolVersion.MQTTv5 if s.mqtt5 else MQTTProtocolVersion.MQTTv311,
            transport=transport,
        )
        if transport == "websockets":
            client.ws_set_options(path=s.ws_path)
        if s.username is not None:
            client.username_pw_set(s.username, s.password)
        if s.tls:
            client.tls_set(ca_certs=s.ca_file, certfile=s.cert_file, keyfile=s.key_file)
            if s.tls_insecure:
                client.tls_insecure_set(True)
        client.will_set(self.topics.status, "offline", qos=1, retain=True)
        client.reconnect_delay_set(s.reconnect_min, s.reconnect_max)
        client.max_inflight_messages_set(WINDOW)
        client.on_socket_open = self._on_socket_open
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.on_publish = self._on_publish
        return client

    def start(self) -> None:
        """Connect in the background (retrying with back-off) and start the outbox publisher."""
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()
        self._publisher = threading.Thread(target=self._publish_loop, name="outbox-publisher", daemon=True)
        self._publisher.start()

    def stop(self, timeout: float = 3.0) -> None:
        """Say ``offline`` (the Will is not sent on a clean disconnect), then disconnect."""
        self._stop.set()
        self._wake.set()
        if self._publisher:
            self._publisher.join(timeout)
        self._drain_acks()
        if self.connected.is_set():
            try:
                self.client.publish(self.topics.status, "offline", qos=1, retain=True).wait_for_publish(timeout)
            except Exception:
                log.warning("could not publish offline before disconnecting", exc_info=True)
        self._drain_acks()
        self.client.disconnect()
        self.client.loop_stop()

    # -- paho callbacks (paho's network thread; never let an exception escape) ----------------------------------

    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        # Every (re)connect opens a new socket: switch Nagle off on each one, before CONNECT is sent.
        try:
            set_tcp_nodelay(sock)
        except Exception:
            log.exception("error in on_socket_open")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        try:
            if getattr(reason, "is_failure", False):
                log.warning("broker refused the connection: %s", reason)
                return
            log.info("connected to MQTT broker %s:%s", self.settings.host, self.settings.port)
            if self.settings.mqtt5:  # the broker keeps retained messages on cmd to itself
                cmd = SubscribeOptions(qos=1, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)
                topics: list[tuple[str, Any]] = [(self.topics.cmd, cmd)]
                if self.settings.ha_prefix:
                    topics.append((self.settings.ha_prefix + HA_STATUS_TOPIC_SUFFIX, SubscribeOptions(qos=1)))
            else:
                topics = [(self.topics.cmd, 1)]
                if self.settings.ha_prefix:
                    topics.append((self.settings.ha_prefix + HA_STATUS_TOPIC_SUFFIX, 1))
            _, self._subscribe_mid = client.subscribe(topics)
            self.connected.set()
            self._wake.set()
        except Exception:
            log.exception("error in on_connect")

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        # "online" only once the broker confirmed the cmd subscription: a phone that sees it can send commands.
        try:
            if mid != self._subscribe_mid:
                return
            client.publish(self.topics.status, "online", qos=1, retain=True)
            if self.on_connected:
                self.on_connected()
            self.sessions += 1
            self.subscribed.set()
        except Exception:
            log.exception("error in on_subscribe")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        try:
            self.connected.clear()
            self.subscribed.clear()
            if not self._stop.is_set():
                log.warning("lost the MQTT broker (%s); reconnecting with back-off", reason)
        except Exception:
            log.exception("error in on_disconnect")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            if message.topic == self.topics.cmd:
                if message.retain:  # left on the broker by someone: not a command sent now
                    self.retained_commands_ignored += 1
                    if self.retained_commands_ignored == 1:
                        log.warning("ignoring a retained message on %s (clear it with an empty retained publish)",
                                    message.topic)
                    return
                self.on_command(bytes(message.payload))
            elif (
                self.settings.ha_prefix
                and message.topic == self.settings.ha_prefix + HA_STATUS_TOPIC_SUFFIX
                and message.payload.strip() == b"online"
                and self.on_ha_online
            ):
                now = time.monotonic()
                if now - self._ha_republished >= HA_REPUBLISH_MIN_S:
                    self._ha_republished = now
                    self.on_ha_online()
        except Exception:
            log.exception("error handling a message on %s", message.topic)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        try:
            self._acked.append(mid)  # deque.append is atomic; the publisher thread maps mid -> seq
            self._wake.set()
        except Exception:
            log.exception("error in on_publish")

    # -- publishing ---------------------------------------------------------------------------------------------

    def publish(self, topic: str, payload: Any, retain: bool = False, qos: int = 1) -> None:
        """Publish JSON (or text) outside the outbox: replies, retained state, discovery. Queued while offline."""
        if isinstance(payload, str | bytes):
            data = payload
        else:
            data = strict_json.dumps(payload, sort_keys=False, ensure_ascii=True)
        self.client.publish(topic, data, qos=qos, retain=retain)

    def backlog(self) -> int:
        """QoS 1 messages handed to paho and not yet acknowledged (in flight or waiting for a window slot).

        paho has no public counter; its ``_out_messages`` dict is that set (paho-mqtt 2.x). Read without a lock:
        ``len()`` of a dict is atomic under the GIL.
        """
        return len(getattr(self.client, "_out_messages", ()))

    def kick(self) -> None:
        """Tell the publisher thread that the outbox has new rows."""
        self._wake.set()

    def flush(self) -> None:
        """Hand the outbox's new rows to paho now, from the calling thread.

        The daemon's worker calls this right after a journal commit, so a fresh event leaves without waiting for
        another thread to be scheduled (the press → event latency). Acknowledgements are left to the publisher
        thread: deleting outbox rows is a disk write and does not belong on this path.
        """
        with self._flush_lock:
            room = WINDOW - len(self._inflight)
            if room <= 0:
                return
            rows = self.journal.pending(after_seq=self._sent_upto, limit=room)
            for seq, body in rows:
                info = self.client.publish(self.topics.events, body, qos=1)
                self._inflight[info.mid] = seq
                self._sent_upto = seq
            if len(rows) == room:
                self._wake.set()  # there may be more: the publisher thread continues when acks make room

    def _drain_acks(self) -> None:
        with self._flush_lock:
            delivered = []
            while self._acked:
                seq = self._inflight.pop(self._acked.popleft(), None)
                if seq is not None:
                    delivered.append(seq)
        if delivered:
            self.journal.mark_delivered(delivered)

    def _publish_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            # Let acknowledgements gather for a moment: one outbox transaction per batch, not per PUBACK.
            self._stop.wait(ACK_BATCH_S)
            self._wake.clear()
            try:
                self._drain_acks()
                self.flush()
            except Exception:
                log.exception("outbox publisher error; retrying")
                self._stop.wait(0.5)

    def outbox_idle(self) -> bool:
        """True when every journalled event has been acknowledged by the broker."""
        return not self._inflight and self.journal.outbox_size() == 0
