"""The table's MQTT connection (paho-mqtt 2.x) and the outbox publisher.

- ``status`` is retained ``online`` after each connect and the Last Will is a retained ``offline``; because a clean
  ``disconnect()`` does not send the Will, :meth:`TableBus.stop` publishes ``offline`` itself.
- Events go out from the journal's outbox in ``seq`` order at QoS 1, at most :data:`WINDOW` unacknowledged at a
  time; a row leaves the outbox only on a PUBACK that reports success. paho re-sends its unacknowledged QoS 1
  messages after a reconnect, so the publisher never re-publishes what paho still holds; after a restart the
  outbox is published from its oldest row. Delivery is therefore at-least-once: a consumer drops a ``seq`` it has
  already seen.
- A **refusal** (an MQTT 5 PUBACK or SUBACK with a failure reason code, e.g. 0x87 Not authorized from an ACL)
  deletes nothing: it is logged once with the cause and the fix, and retried with back-off (``reconnect_min`` up
  to ``reconnect_max`` seconds). Refused events are retried from the oldest, one at a time until the broker takes
  one again, then in order as before, so they arrive in order and once.
- **Bounded memory while offline.** The retained topics (state, launcher, sensors, Home Assistant discovery) are
  published with :meth:`TableBus.publish_latest`: the newest payload per topic waits here, one per topic, and goes
  to paho only while connected and once the previous one for that topic is acknowledged. Replies and other
  messages published while offline wait in a queue of at most :data:`OFFLINE_QUEUE` (the oldest are dropped, and
  counted in the log). Nothing queues in paho while the broker is away; :meth:`TableBus.backlog` counts what paho
  holds from its own records, not paho's private ones.
- Every paho callback catches everything: an exception inside one kills paho's network thread silently.
- A retained message on ``cmd`` is never a command (it would run again on every connect); under MQTT 5 the
  subscription asks the broker not to send retained messages at all, under 3.1.1 they are dropped on arrival.
- Home Assistant's ``online`` republishes discovery at most once per :data:`HA_REPUBLISH_MIN_S` (a flood of
  ``online`` once pinned the daemon); one that comes sooner is coalesced into a single republish when the interval
  is over (the publisher thread), so the last birth of a burst is always answered (a rename's resent deletion).

Example::

    bus = TableBus(BusSettings(host="127.0.0.1", port=1883), Topics("t1"), journal, on_command=print)
    bus.start()
    bus.kick()  # after appending events to the journal
    bus.stop()
"""

from __future__ import annotations

import collections
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.subscribeoptions import SubscribeOptions

from unolauncher import strict_json
from unolauncher.bus.client import BusSettings, make_client, set_tcp_nodelay, stop_loop
from unolauncher.bus.deafness import DeafnessProbe, drop_connection
from unolauncher.bus.refusals import RefusedTopic, refusal_sentence
from unolauncher.bus.topics import Topics
from unolauncher.progress import Progress
from unolauncher.store.journal import Journal

log = logging.getLogger(__name__)

ACK_BATCH_S = 0.02
WINDOW = 100  # events handed to paho but not yet acknowledged; bounds memory during an outage
OFFLINE_QUEUE = 100  # replies and other one-off messages kept while the broker is away (the newest)
HA_STATUS_TOPIC_SUFFIX = "/status"
HA_REPUBLISH_MIN_S = 5.0
RETAINED_IGNORED = "ignoring a retained message on %s (clear it with an empty retained publish)"


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
        *,
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
        self._resubscribe_at: float | None = None  # the cmd subscription was refused: try again then
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._acked: collections.deque[tuple[int, Any]] = collections.deque()  # (mid, reason) from on_publish
        # Everything handed to paho at QoS 1 and not acknowledged yet: mid -> the event's seq (int), the
        # coalesced topic (str) or None (a reply, a press, a resend). Written and read under _flush_lock, so an
        # acknowledgement is never looked up before its publish was recorded.
        self._unacked: dict[int, int | str | tuple[str]] = {}  # mid -> event seq, coalesced topic, (one-off topic,)
        self._inflight = 0  # events among them
        self._flush_lock = threading.Lock()
        self._sent_upto = 0  # highest seq handed to paho in this process
        self._latest: dict[str, tuple[str | bytes, bool]] = {}  # topic -> newest (payload, retain) not yet sent
        self._latest_busy: dict[str, tuple[str | bytes, bool]] = {}  # coalesced topic -> the value paho holds
        self._offline: collections.deque[tuple[str, str | bytes, bool, int]] = collections.deque(maxlen=OFFLINE_QUEUE)
        self._offline_dropped = 0
        self._refused: dict[str, RefusedTopic] = {}  # topic -> refusal being retried
        self._retry_after_seq: int | None = None  # events: resend from the one after this, once the wait is over
        self._unreachable_logged = False
        self._publisher: threading.Thread | None = None
        self._handling = Progress()  # on_message callbacks still running, for health()
        self._ha_republished = -HA_REPUBLISH_MIN_S  # monotonic time of the last republish for Home Assistant
        self._ha_online_waiting = False  # an online came within the interval: republish once when it is over
        self.retained_commands_ignored = 0
        # Unguessable, new at every start: a known id let anyone on the LAN take the daemon's session (#33).
        self.client_id = settings.client_id or f"unolauncher-{topics.table_id}-{secrets.token_hex(8)}"
        self.probe = DeafnessProbe(topics.probe)  # notices a broker that stopped delivering (deafness.py)
        self.client = self._make_client()

    # -- set-up -------------------------------------------------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        s = self.settings
        client = make_client(s, self.client_id)
        client.will_set(self.topics.status, "offline", qos=1, retain=True)
        client.reconnect_delay_set(s.reconnect_min, s.reconnect_max)
        client.max_inflight_messages_set(WINDOW)
        client.on_socket_open = self._on_socket_open
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
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
        stop_loop(self.client)

    def health(self, now: float, deadline_s: float) -> list[str]:
        """What keeps MQTT from progressing (empty when nothing does): paho's network thread or the outbox
        publisher died, or handling one message has taken longer than ``deadline_s``. A broker that is away is not
        a problem here: paho keeps reconnecting, the journal keeps the events."""
        if self._stop.is_set():
            return []
        problems = []
        network = getattr(self.client, "_thread", None)  # paho 2.x keeps its loop_start() thread here
        if network is not None and not network.is_alive():
            problems.append("paho's network thread died")
        if self._publisher is not None and not self._publisher.is_alive():
            problems.append("the outbox publisher thread died")
        stuck = self._handling.stuck_for(now)
        if stuck > deadline_s:
            problems.append(f"handling one MQTT message has taken {stuck:.1f} s")
        return problems

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
            self._unreachable_logged = False
            self._subscribe()
            self.connected.set()
            self._wake.set()
        except Exception:
            log.exception("error in on_connect")

    def _subscribe(self) -> None:
        topics: list[tuple[str, Any]]
        if self.settings.mqtt5:  # the broker keeps retained messages on cmd to itself
            cmd = SubscribeOptions(qos=1, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)
            topics = [(self.topics.cmd, cmd)]
            if self.settings.ha_prefix:  # QoS 0: see below
                topics.append((self.settings.ha_prefix + HA_STATUS_TOPIC_SUFFIX, SubscribeOptions(qos=0)))
        else:
            topics = [(self.topics.cmd, 1)]
            if self.settings.ha_prefix:
                # QoS 0 (HA sends its birth at QoS 0 anyway): amqtt delivers at the subscription's QoS, and a flood
                # of onlines delivered at QoS 1 waited in the broker for each of the daemon's PUBACKs (#33 item 10).
                topics.append((self.settings.ha_prefix + HA_STATUS_TOPIC_SUFFIX, 0))
        self._resubscribe_at = None
        _, self._subscribe_mid = self.client.subscribe(topics)
        self.client.subscribe(self.probe.topic, 0)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # paho calls this for each failed attempt (broker down, refused TCP, TLS failure); once per outage is enough.
        try:
            if not self._unreachable_logged:
                self._unreachable_logged = True
                log.warning(
                    "cannot reach the MQTT broker at %s:%s; retrying every %s-%s s (events wait in the journal)",
                    self.settings.host,
                    self.settings.port,
                    self.settings.reconnect_min,
                    self.settings.reconnect_max,
                )
        except Exception:
            log.exception("error in on_connect_fail")

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        # "online" only once the broker confirmed the cmd subscription: a phone that sees it can send commands.
        try:
            if mid != self._subscribe_mid:
                return
            topics = [self.topics.cmd, (self.settings.ha_prefix or "") + HA_STATUS_TOPIC_SUFFIX]
            failed = {t: r for t, r in zip(topics, reasons, strict=False) if getattr(r, "is_failure", False)}
            with self._flush_lock:
                for topic in topics[: len(reasons)]:
                    if topic in failed:
                        self._note_refusal(topic, failed[topic], "subscribe")
                    else:
                        self._note_accepted(topic)
                if self.topics.cmd in failed:
                    # Without cmd the table hears nothing: not "online"; subscribe again after the back-off.
                    self._resubscribe_at = self._refused[self.topics.cmd].retry_at
                    self._wake.set()
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
            with self._handling.working():
                self._handle_message(message)
        except Exception:
            log.exception("error handling a message on %s", message.topic)

    def _handle_message(self, message: mqtt.MQTTMessage) -> None:
        if message.topic == self.topics.cmd:
            self.probe.delivering()
            if message.retain:  # left on the broker by someone: not a command sent now
                self.retained_commands_ignored += 1
                if self.retained_commands_ignored == 1:  # said once
                    log.warning(RETAINED_IGNORED, message.topic)
                return
            self.on_command(bytes(message.payload))
        elif message.topic == self.probe.topic:
            self.probe.heard(message.payload)
        elif (
            self.settings.ha_prefix
            and message.topic == self.settings.ha_prefix + HA_STATUS_TOPIC_SUFFIX
            and message.payload.strip() == b"online"
            and self.on_ha_online
        ):
            now = time.monotonic()
            if now - self._ha_republished >= HA_REPUBLISH_MIN_S:
                self._ha_republished = now
                self._ha_online_waiting = False
                self.on_ha_online()
            else:
                self._ha_online_waiting = True  # coalesced: the publisher thread republishes once, later

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        try:
            self._acked.append((mid, reason))  # deque.append is atomic; the publisher thread maps mid -> message
            self._wake.set()
        except Exception:
            log.exception("error in on_publish")

    # -- refusals -----------------------------------------------------------------------------------------------

    def _note_refusal(self, topic: str, reason: Any, verb: str, retried: bool = True) -> None:
        """Log a refused topic once (with the cause and the fix) and schedule its retry with back-off."""
        now = time.monotonic()
        known = self._refused.get(topic)
        if known is None:
            delay = float(self.settings.reconnect_min)
            self._refused[topic] = RefusedTopic(str(reason), delay, now + delay)
            then = (
                f"nothing is deleted, retrying every {delay}-{self.settings.reconnect_max} s"
                if retried
                else "these messages are dropped, not retried (a phone that misses a reply asks again)"
            )
            log.warning("%s; %s", refusal_sentence(topic, reason, verb), then)
        else:
            known.refusals += 1
            known.delay = min(known.delay * 2, float(self.settings.reconnect_max))
            known.retry_at = now + known.delay

    def _note_accepted(self, topic: str) -> None:
        known = self._refused.pop(topic, None)
        if known is not None:
            log.warning("the broker accepts %s again (after %d refusal(s): %s)", topic, known.refusals, known.reason)

    def _waiting_out_refusal(self, topic: str) -> bool:
        known = self._refused.get(topic)
        return known is not None and time.monotonic() < known.retry_at

    # -- publishing ---------------------------------------------------------------------------------------------

    def publish(self, topic: str, payload: Any, retain: bool = False, qos: int = 1) -> None:
        """Publish JSON (or text) outside the outbox: replies, presses, resends. While the broker is away the
        newest :data:`OFFLINE_QUEUE` wait here (QoS 0 ones are dropped, as paho would); they go out on reconnect."""
        data = _encode(payload)
        with self._flush_lock:
            if self.connected.is_set():
                self._hand_to_paho(topic, data, retain, qos, (topic,))
            elif qos > 0:
                if len(self._offline) == self._offline.maxlen:
                    self._offline_dropped += 1
                self._offline.append((topic, data, retain, qos))

    def publish_latest(self, topic: str, payload: Any, retain: bool = True) -> None:
        """Publish a value where only the newest matters (retained state, launcher, sensors, discovery).

        At most one message per topic is in paho at a time; a newer value waits here and replaces any older one
        still waiting, so a long outage or a slow broker costs one payload per topic, never a queue.
        """
        with self._flush_lock:
            self._latest[topic] = (_encode(payload), retain)
            self._send_latest(topic)

    def _send_latest(self, topic: str) -> None:
        """Hand ``topic``'s newest value to paho if nothing of it is there and the broker takes it (lock held)."""
        if not self.connected.is_set() or topic in self._latest_busy or self._waiting_out_refusal(topic):
            return
        waiting = self._latest.pop(topic, None)
        if waiting is not None:
            self._latest_busy[topic] = waiting
            self._hand_to_paho(topic, waiting[0], waiting[1], 1, topic)

    def _hand_to_paho(self, topic: str, data: str | bytes, retain: bool, qos: int, key: int | str | tuple[str]) -> None:
        info = self.client.publish(topic, data, qos=qos, retain=retain)
        if qos > 0:
            self._unacked[info.mid] = key

    def backlog(self) -> int:
        """QoS 1 messages handed to paho and not yet acknowledged (events in flight, the newest retained values,
        replies), from this bus's own records; the command-flood guard compares it with its limit."""
        return len(self._unacked)

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
            refused = self.topics.events in self._refused
            if refused or self._retry_after_seq is not None:
                # Refused: wait until every event in paho is answered and the back-off is over, then go back to the
                # oldest refused one and send it alone; the rest follow, in order, once the broker takes one.
                if self._inflight or self._waiting_out_refusal(self.topics.events):
                    return
                if self._retry_after_seq is not None:
                    self._sent_upto, self._retry_after_seq = self._retry_after_seq, None
            room = (1 if refused else WINDOW) - self._inflight
            if room <= 0:
                return
            rows = self.journal.pending(after_seq=self._sent_upto, limit=room)
            for seq, body in rows:
                self._hand_to_paho(self.topics.events, body, False, 1, seq)
                self._inflight += 1
                self._sent_upto = seq
            if len(rows) == room:
                self._wake.set()  # there may be more: the publisher thread continues when acks make room

    def _drain_acks(self) -> None:
        delivered: list[int] = []
        with self._flush_lock:
            while self._acked:
                mid, reason = self._acked.popleft()
                if mid not in self._unacked:
                    continue  # not ours to track (QoS 0, the status messages)
                key = self._unacked.pop(mid)
                refused = getattr(reason, "is_failure", False)
                if isinstance(key, int):  # an event
                    self._inflight -= 1
                    if refused:
                        self._note_refusal(self.topics.events, reason, "publish")
                        first = key - 1 if self._retry_after_seq is None else min(self._retry_after_seq, key - 1)
                        self._retry_after_seq = first
                    else:
                        self._note_accepted(self.topics.events)
                        delivered.append(key)
                elif isinstance(key, str):  # the newest value of a coalesced topic
                    sent = self._latest_busy.pop(key)
                    if refused:
                        self._note_refusal(key, reason, "publish")
                        self._latest.setdefault(key, sent)  # retried after the back-off, unless a newer one waits
                    else:
                        self._note_accepted(key)
                elif refused:  # a reply, press, resend, discovery: not retried (a newer one comes), logged once
                    self._note_refusal(key[0], reason, "publish", retried=False)  # named by its own topic
                else:
                    self._note_accepted(key[0])
        if delivered:
            self.journal.mark_delivered(delivered)

    def _send_waiting(self) -> None:
        """After a (re)connect or an acknowledgement: the offline queue, then each coalesced topic's newest value."""
        with self._flush_lock:
            if not self.connected.is_set():
                return
            if self._offline_dropped:
                log.warning("%d message(s) published while the broker was away were dropped", self._offline_dropped)
                self._offline_dropped = 0
            while self._offline:
                self._hand_to_paho(*(message := self._offline.popleft()), (message[0],))
            for topic in list(self._latest):
                self._send_latest(topic)

    def _publish_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._next_retry_in())
            # Let acknowledgements gather for a moment: one outbox transaction per batch, not per PUBACK.
            self._stop.wait(ACK_BATCH_S)
            self._wake.clear()
            try:
                self._drain_acks()
                due = self._resubscribe_at is not None and time.monotonic() >= self._resubscribe_at
                if due and self.connected.is_set():
                    self._subscribe()
                self._send_waiting()
                self.flush()
                self._republish_for_ha_if_due()
                if self.probe.tick(self.client, self.subscribed.is_set(), time.monotonic()):
                    drop_connection(self.client)
            except Exception:
                log.exception("outbox publisher error; retrying")
                self._stop.wait(0.5)

    def _republish_for_ha_if_due(self) -> None:
        """The coalesced republish of the ``online`` messages that came within the interval (publisher thread)."""
        if self._ha_online_waiting and self.on_ha_online and self.connected.is_set():
            now = time.monotonic()
            if now - self._ha_republished >= HA_REPUBLISH_MIN_S:
                self._ha_republished, self._ha_online_waiting = now, False
                self.on_ha_online()

    def _next_retry_in(self) -> float:
        """How long the publisher may sleep: 1 s, or less when a refused topic is due for its retry."""
        now = time.monotonic()
        return min([1.0, *(r.retry_at - now for r in self._refused.values() if r.retry_at > now)])

    def outbox_idle(self) -> bool:
        """True when every journalled event has been acknowledged by the broker."""
        return not self._inflight and self.journal.outbox_size() == 0


def _encode(payload: Any) -> str | bytes:
    """Text and bytes as they are; anything else as strict JSON (never NaN: browsers and HA refuse it)."""
    if isinstance(payload, str | bytes):
        return payload
    return strict_json.dumps(payload, sort_keys=False, ensure_ascii=True)
