"""The embedded MQTT broker (amqtt) for zero-setup use: TCP and WebSocket listeners, in its own thread.

amqtt speaks MQTT 3.1.1 only and manages ~6k messages/s here (NOTES.md): fine for one table and a few phones;
production tables use mosquitto (``systemd/mosquitto/``). amqtt is imported only when this module is, so a
daemon pointed at mosquitto never loads it.

amqtt has no limits of its own that hold against a hostile client (its ``max_connections`` queues connections
instead of refusing them, and it waits for a CONNECT for ever), so every connection is guarded here
(:class:`_GuardedReader`, :func:`_guarded_broker`): a packet longer than ``max_packet`` bytes is refused from its
length header, before its body is read (the daemon's memory must not grow with a stranger's packet); a connection whose
CONNECT has not arrived within ``connect_timeout`` seconds, or that stops in the middle of a packet for
``packet_timeout`` seconds, is closed; past ``max_connections`` open connections, or ``max_per_client`` from one
address, a new one is closed at once.

Every accepted socket (TCP and WebSocket) gets TCP_NODELAY, and after every packet it reads the broker asks the
kernel to acknowledge it at once (TCP_QUICKACK, Linux): a client that keeps Nagle on (paho's default, as Home
Assistant and most scripts) otherwise holds its next small packet until the broker's delayed ACK of its last one,
~40 ms, because the broker often has nothing to send back (a PUBACK it received, a QoS 0 publish). See
:func:`tune_accepted_socket`.

Example::

    broker = EmbeddedBroker(host="127.0.0.1", port=0, ws_port=0)
    broker.start()  # returns once both listeners accept connections
    print(broker.port, broker.ws_port)
    broker.stop()
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from unolauncher.bus.broker_entropy import EntropyCap
from unolauncher.bus.broker_shutdown import shutdown_broker
from unolauncher.bus.retained_store import RetainedStore
from unolauncher.slots import ConnectionSlots

WS_PATH = "/mqtt"  # amqtt's WebSocket listener accepts any path; clients are told to use this one
MAX_PACKET = 256 * 1024  # as systemd/mosquitto-cafe.conf; a command is at most 64 KiB
CONNECT_TIMEOUT_S = 10.0
PACKET_TIMEOUT_S = 30.0  # for the rest of a packet once its first byte came (256 KiB on a poor phone link)
MAX_CONNECTIONS = 128  # both listeners together; a table needs a few (daemon, phones, Home Assistant)
MAX_PER_CLIENT = 32  # from one address: one host cannot take every slot from the others (the daemon's own client)

log = logging.getLogger(__name__)


class EmbeddedBroker:
    """An amqtt broker on ``host`` with a TCP listener on ``port`` and a WebSocket listener on ``ws_port``.

    A port of 0 picks a free one; the chosen ports are in :attr:`port` / :attr:`ws_port` after :meth:`start`.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        ws_port: int = 9001,
        *,
        max_packet: int = MAX_PACKET,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
        packet_timeout: float = PACKET_TIMEOUT_S,
        max_per_client: int = MAX_PER_CLIENT,
        retained_path: Path | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.ws_port = ws_port
        slots = ConnectionSlots(max_connections, max_per_client)
        self.limits = _Limits(max_packet, connect_timeout, packet_timeout, slots)
        from unolauncher.bus.broker_identity import Identities  # imports amqtt: only with the embedded broker

        self.identities = Identities()  # the daemon reserves its client id and topics here (broker_identity.py)
        self.entropy_cap = EntropyCap()  # commitments per connection and per address (broker_entropy.py)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None
        # Retained messages on disk (retained_store.py): kept across restarts, as mosquitto's persistence does.
        self.retained = RetainedStore(retained_path) if retained_path is not None else None

    def start(self, timeout: float = 15.0) -> None:
        # amqtt logs every connection at INFO; the daemon's log is for the table, not for the broker.
        logging.getLogger("amqtt").setLevel(logging.WARNING)
        logging.getLogger("amqtt.broker").addFilter(_quiet_about_unfinished_connects)
        logging.getLogger("transitions").setLevel(logging.WARNING)
        logging.getLogger("websockets").setLevel(logging.WARNING)
        started: Future[None] = Future()
        self._thread = threading.Thread(target=self._run, args=(started,), name="amqtt-broker", daemon=True)
        self._thread.start()
        started.result(timeout)

    def _run(self, started: Future[None]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._start())
        except BaseException as exc:
            started.set_exception(exc)
            loop.close()
            return
        started.set_result(None)
        try:
            loop.run_forever()
        finally:
            _finish_tasks(loop)
            loop.close()

    async def _start(self) -> None:
        config = {
            "listeners": {  # no amqtt max_connections: it queues connections; _Limits refuses them instead
                "default": {"type": "tcp", "bind": f"{self.host}:{self.port}"},
                "ws": {"type": "ws", "bind": f"{self.host}:{self.ws_port}"},
            },
            # Anonymous only, and no $SYS or packet-logging plugins: they cost CPU on a Pi Zero. Our own anonymous
            # plugin, not amqtt's: its module imports password hashing for nothing (see broker_auth.py).
            "plugins": {"unolauncher.bus.broker_auth.AllowAnonymous": {}},
        }
        self._broker = _guarded_broker(config, self.limits, self.retained)
        self._broker.identities = self.identities
        self._broker.entropy_cap = self.entropy_cap
        await self._broker.start()
        self.port = self._bound_port("default")
        self.ws_port = self._bound_port("ws")

    def _bound_port(self, listener: str) -> int:
        server = self._broker._servers[listener].instance
        return int(next(iter(server.sockets)).getsockname()[1])

    def stop(self, timeout: float = 10.0) -> None:
        loop, broker = self._loop, self._broker
        if loop is None or broker is None or not loop.is_running():
            return
        try:
            # Not broker.shutdown() alone: on Python 3.11 it can wait out a lost cancellation (broker_shutdown.py).
            asyncio.run_coroutine_threadsafe(shutdown_broker(broker), loop).result(timeout)
        except Exception:
            logging.getLogger(__name__).warning("embedded broker did not shut down cleanly", exc_info=True)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread:
            self._thread.join(timeout)
        self._broker = None
        if self.retained is not None:
            self.retained.close()

    @property
    def open_connections(self) -> int:
        """Connections open now (both listeners)."""
        return self.limits.slots.open

    @property
    def refused_connections(self) -> int:
        """Connections closed at once: ``max_connections`` in all, or ``max_per_client`` from one address, open."""
        return self.limits.slots.refused


_QUICKACK = getattr(socket, "TCP_QUICKACK", None)  # Linux only; elsewhere the delayed ACK stays


def tune_accepted_socket(sock: Any) -> None:
    """Nagle off on an accepted TCP socket (asyncio's own transports already do it; this does not rely on that).

    ``sock`` is the transport's socket (``transport.get_extra_info("socket")``); a Unix socket or a transport
    without one is left as it is.
    """
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:  # the peer already hung up: nothing to tune
        log.debug("embedded broker: could not set TCP_NODELAY", exc_info=True)


def acknowledge_now(sock: Any) -> None:
    """Ask the kernel to send the ACK of what was just read now, not after its delayed-ACK timer (40 ms on Linux).

    TCP_QUICKACK is not sticky (the kernel goes back to delaying ACKs once traffic looks interactive), so it is set
    after every packet read; setting it also sends an ACK the kernel was holding. One system call per packet.
    """
    if _QUICKACK is None or sock is None:
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
    except OSError:
        pass  # the connection is closing; amqtt's reader will see it


def _quiet_about_unfinished_connects(record: logging.LogRecord) -> bool:
    """amqtt logs an error and a warning for every connection that ends before its CONNECT (a port scan, a
    slow client cut off by the guard): a flood of them would bury the daemon's log. The guard counts them instead."""
    message = str(record.msg)
    return not (message.startswith("No data from") or message.startswith("Failed to initialize client session"))


class _Limits:
    """The guard's settings, its connection slots and what it cut off."""

    def __init__(self, max_packet: int, connect_timeout: float, packet_timeout: float, slots: ConnectionSlots) -> None:
        self.max_packet = max_packet
        self.connect_timeout = connect_timeout
        self.packet_timeout = packet_timeout
        self.slots = slots
        self.cut = 0  # connections closed by a limit (oversized packet, CONNECT or packet timeout)


class _GuardedReader:
    """Wraps one connection's amqtt reader and follows the MQTT framing of what it reads (a fixed-header byte, the
    remaining length in 1-4 bytes, the body): a length over the limit or a deadline passed closes the connection.

    Reads go straight through; the cost per packet is a few byte checks and one timer. After a violation every read
    ends as end-of-data, so amqtt's reader loop stops and cleans the session up as for a client that hung up.
    """

    def __init__(self, inner: Any, limits: _Limits, abort: Callable[[], None], sock: Any = None) -> None:
        self._inner = inner
        self._limits = limits
        self._abort = abort
        self._sock = sock if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6) else None
        self._closed = False
        self._connected = False  # the CONNECT packet has been read whole
        self._state = 0  # 0: between packets, 1: reading the remaining length, 2: reading the body
        self._length = 0
        self._multiplier = 1
        self._left = 0
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._timer: asyncio.TimerHandle | None = loop.call_later(limits.connect_timeout, self._expire, "CONNECT")

    async def read(self, n: int = -1) -> bytes:
        from amqtt.errors import NoDataError

        if self._closed:
            raise NoDataError("connection closed by a limit")
        data: bytes = await self._inner.read(n)
        if self._closed:
            raise NoDataError("connection closed by a limit")
        self._follow(data)
        return data

    def feed_eof(self) -> None:
        self._inner.feed_eof()

    def _follow(self, data: bytes) -> None:
        i, size = 0, len(data)
        while i < size:
            if self._state == 2:
                take = min(self._left, size - i)
                self._left -= take
                i += take
                if self._left == 0:
                    self._packet_done()
            elif self._state == 0:  # a packet's first byte
                self._state, self._length, self._multiplier = 1, 0, 1
                if self._connected and self._timer is None:
                    self._timer = self._loop.call_later(self._limits.packet_timeout, self._expire, "packet")
                i += 1
            else:
                byte = data[i]
                i += 1
                self._length += (byte & 0x7F) * self._multiplier
                self._multiplier *= 128
                if byte & 0x80 and self._multiplier <= 128**3:
                    continue
                if self._length > self._limits.max_packet:
                    self._cut(f"a packet of {self._length} bytes (limit {self._limits.max_packet})")
                    return
                self._left = self._length
                self._state = 2
                if self._left == 0:
                    self._packet_done()

    def finish(self) -> None:
        """The session ended: no timer may fire for it any more."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _packet_done(self) -> None:
        # Once per packet, not per read: amqtt reads a packet's header a byte at a time.
        acknowledge_now(self._sock)
        self._state = 0
        self._connected = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self, what: str) -> None:
        self._timer = None
        if not self._closed:
            self._cut(f"no whole {what} within the time limit")

    def _cut(self, reason: str) -> None:
        self.finish()
        self._limits.cut += 1
        log.debug("embedded broker: closing a connection: %s", reason)
        self._abort()


def _finish_tasks(loop: asyncio.AbstractEventLoop, rounds: int = 3, wait_s: float = 0.5) -> None:
    """Cancel the tasks amqtt left on the stopped loop and let them end before it closes, as ``asyncio.run`` does.

    amqtt's shutdown leaves each client handler's waiters (``get_next_pending_subscription`` …) pending; closed with
    the loop, they are collected later and each prints "Exception ignored … Event loop is closed" with a traceback
    into the daemon's log (seen once the retained store made a client's publish await its disk write). A cancellation
    that Python 3.11's ``wait_for`` loses (see broker_shutdown.py) is simply repeated; the rounds bound the wait.
    """
    for _ in range(rounds):
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        if not pending:
            break
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.wait(pending, timeout=wait_s))
    loop.run_until_complete(loop.shutdown_asyncgens())


def _guarded_broker(config: dict[str, Any], limits: _Limits, retained: RetainedStore | None = None) -> Any:
    """An amqtt ``Broker`` whose connections go through :class:`_GuardedReader` and the connection cap, and whose
    retained messages are kept in ``retained`` (loaded before the listeners open, stored before they are seen)."""
    from amqtt.adapters import StreamReaderAdapter, StreamWriterAdapter, WebSocketsReader, WebSocketsWriter
    from amqtt.broker import RetainedApplicationMessage

    from unolauncher.bus.broker_delivery import BoundedDelivery
    from unolauncher.bus.broker_identity import IdentityBroker  # lazy: only the embedded broker pays for amqtt
    from unolauncher.bus.broker_rate import CommandRate
    from unolauncher.bus.broker_subscriptions import OwnRetained

    # broker_delivery.py, broker_rate.py, broker_subscriptions.py
    class GuardedBroker(BoundedDelivery, CommandRate, OwnRetained, IdentityBroker):
        async def _start_listeners(self) -> None:  # after Broker.start() emptied its retained messages
            if retained is not None:
                for topic, data, qos in retained.load():
                    self._retained_messages[topic] = RetainedApplicationMessage(None, topic, data, qos)
            await super()._start_listeners()

        async def retain_message(self, source_session: Any, topic_name: Any, data: Any, qos: Any = None) -> None:
            # In memory first, as amqtt always did, then on disk: amqtt delivers to the current subscribers just
            # before it retains, so a client subscribing while a disk write was awaited in between got neither the
            # live message nor the retained one (a phone opening the page without the table's status or state).
            await super().retain_message(source_session, topic_name, data, qos)
            if retained is not None and topic_name is not None:
                await retained.put_async(topic_name, data or b"", qos)

        async def stream_connected(self, reader: Any, writer: Any, listener_name: str) -> None:
            transport = writer.transport
            await self._guarded(listener_name, StreamReaderAdapter(reader), StreamWriterAdapter(writer), transport)

        async def ws_connected(self, websocket: Any, listener_name: str) -> None:
            transport = websocket.transport
            if self.origin_refused(websocket):  # a page on another site (broker_identity.py)
                transport.abort()
                return
            await self._guarded(listener_name, WebSocketsReader(websocket), WebSocketsWriter(websocket), transport)

        async def _guarded(self, listener_name: str, reader: Any, writer: Any, transport: Any) -> None:
            peer = transport.get_extra_info("peername")
            client = str(peer[0]) if peer else "?"
            if not limits.slots.take(client):
                transport.abort()
                return
            sock = transport.get_extra_info("socket")
            tune_accepted_socket(sock)
            guarded = _GuardedReader(reader, limits, transport.abort, sock)
            try:
                await self._client_connected(listener_name, guarded, writer)
            except Exception:  # amqtt's own clean-up fails on a connection already reset: not worth a traceback
                log.debug("embedded broker: a connection ended with an error", exc_info=True)
            finally:
                limits.slots.give_back(client)
                guarded.finish()
                if not transport.is_closing():
                    transport.close()

    return GuardedBroker(config)
