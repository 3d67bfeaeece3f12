"""The embedded broker against hostile clients: slowloris on TCP and WebSocket, a connection flood, oversized and
unfinished packets — while a well-behaved client keeps publishing and receiving.

Real sockets on 127.0.0.1 only, bounded in count (at most 60) and time (a few seconds). Issue #18 defects 4 and 9.
"""

from __future__ import annotations

import base64
import os
import socket
import threading
import time
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from support.net import wait_until
from unolauncher.bus.broker import EmbeddedBroker

pytestmark = pytest.mark.timeout(60)

CONNECT_TIMEOUT_S = 1.0
PACKET_TIMEOUT_S = 1.0
CAP = 40
PER_CLIENT = 20


@pytest.fixture
def guarded() -> Iterator[EmbeddedBroker]:
    broker = EmbeddedBroker(
        "127.0.0.1",
        0,
        0,
        connect_timeout=CONNECT_TIMEOUT_S,
        packet_timeout=PACKET_TIMEOUT_S,
        max_connections=CAP,
        max_per_client=PER_CLIENT,
    )
    broker.start()
    yield broker
    broker.stop()


class Client:
    """A paho client subscribed to ``t/#`` that keeps what it receives."""

    def __init__(self, port: int, name: str, source: str = "127.0.0.1") -> None:
        self.received: list[bytes] = []
        self.disconnects: list[str] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name)
        self.client.on_message = lambda c, u, m: self.received.append(bytes(m.payload))
        self.client.on_disconnect = lambda c, u, f, reason, p: self.disconnects.append(str(reason))
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        # Subscribe after CONNACK (amqtt can drop a SUBSCRIBE sent while it still sets up the session) and return
        # once the SUBACK is in: round_trip() then cannot publish before the subscription exists.
        self.client.on_connect = lambda c, u, f, reason, p: c.subscribe("t/#", qos=1)
        self.client.connect("127.0.0.1", port, keepalive=30, bind_address=source)
        self.client.loop_start()
        if not subscribed.wait(5):
            self.close()
            raise AssertionError(f"{name} could not connect and subscribe")

    def round_trip(self, payload: bytes) -> bool:
        self.client.publish("t/x", payload, qos=1).wait_for_publish(5)
        return wait_until(lambda: payload in self.received, 5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


def test_tcp_slowloris_and_a_connection_flood(guarded: EmbeddedBroker) -> None:
    attackers = [socket.create_connection(("127.0.0.1", guarded.port)) for _ in range(PER_CLIENT + 30)]
    # Over the per-address cap: closed at once instead of queued (amqtt's own limit queues them, holding the sockets).
    assert wait_until(lambda: guarded.refused_connections >= 30, 3), guarded.refused_connections
    assert guarded.open_connections <= PER_CLIENT
    # Another address (a phone, the daemon's own client) still gets in while they are held.
    phone = Client(guarded.port, "phone", source="127.0.0.2")
    try:
        assert phone.round_trip(b"during the flood")
    finally:
        phone.close()
    # The others dribble a CONNECT a byte at a time: cut off when the CONNECT deadline passes.
    connect = b"\x10\x10\x00\x04MQTT\x04\x02\x00\x3c\x00\x04slow"
    started = time.monotonic()
    alive = list(attackers)
    for i in range(len(connect)):
        for sock in list(alive):
            try:
                sock.sendall(connect[i : i + 1])
            except OSError:
                alive.remove(sock)
        if not alive:
            break
        time.sleep(CONNECT_TIMEOUT_S / 4)  # pacing the attack: a byte per quarter of the timeout
    assert all(closed_by_server(sock, CONNECT_TIMEOUT_S * 3) for sock in attackers)
    assert time.monotonic() - started < CONNECT_TIMEOUT_S * 6
    assert wait_until(lambda: guarded.open_connections == 0, 3)
    for sock in attackers:
        sock.close()
    good = Client(guarded.port, "after-the-flood")
    try:
        assert good.round_trip(b"still here")
    finally:
        good.close()


def test_websocket_slowloris_is_cut_off(guarded: EmbeddedBroker) -> None:
    """A WebSocket upgrade that never sends its CONNECT (the dashboard's listener)."""
    key = base64.b64encode(os.urandom(16))
    upgrade = (
        b"GET /mqtt HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n"
    )
    socks = [socket.create_connection(("127.0.0.1", guarded.ws_port)) for _ in range(5)]
    for sock in socks:
        sock.sendall(upgrade)
        sock.settimeout(5)
        assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    assert wait_until(lambda: guarded.open_connections == 5, 3)
    assert all(closed_by_server(sock, CONNECT_TIMEOUT_S * 4) for sock in socks)
    for sock in socks:
        sock.close()


def test_an_oversized_publish_is_refused_from_its_length_and_others_carry_on(guarded: EmbeddedBroker) -> None:
    good = Client(guarded.port, "good")
    big = Client(guarded.port, "big")
    try:
        cut_before = guarded.limits.cut
        big.client.publish("t/big", b"x" * (50 * 1024 * 1024), qos=0)  # 50 MB: issue #18 (9)
        assert wait_until(lambda: guarded.limits.cut > cut_before, 10)
        assert wait_until(lambda: bool(big.disconnects), 10)
        assert good.round_trip(b"small is fine")
        assert not any(len(p) > 1000 for p in good.received)
    finally:
        big.close()
        good.close()


def test_a_packet_left_unfinished_is_cut_off(guarded: EmbeddedBroker) -> None:
    good = Client(guarded.port, "good")
    try:
        with socket.create_connection(("127.0.0.1", guarded.port)) as sock:
            sock.sendall(b"\x10\x10\x00\x04MQTT\x04\x02\x00\x3c\x00\x04half")  # a whole CONNECT
            sock.settimeout(5)
            assert sock.recv(4) == b"\x20\x02\x00\x00"  # CONNACK
            sock.sendall(b"\x30\x7f\x00\x03t/x")  # a PUBLISH announcing 127 bytes, then silence
            started = time.monotonic()
            assert closed_by_server(sock, PACKET_TIMEOUT_S * 4)
            assert time.monotonic() - started >= PACKET_TIMEOUT_S * 0.8
        assert good.round_trip(b"unaffected")
    finally:
        good.close()


def test_many_addresses_together_stop_at_the_total_cap(guarded: EmbeddedBroker) -> None:
    held = [
        socket.create_connection(("127.0.0.1", guarded.port), source_address=(f"127.0.0.{i}", 0))
        for i in range(10, 13)
        for _ in range(PER_CLIENT)
    ]  # 3 x 20 = 60 wanted, 40 allowed
    assert wait_until(lambda: guarded.refused_connections >= len(held) - CAP, 3)
    assert guarded.open_connections <= CAP
    for sock in held:
        sock.close()
    assert wait_until(lambda: guarded.open_connections == 0, 3)
