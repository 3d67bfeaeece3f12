"""The embedded broker's accepted sockets: Nagle off, and what the broker reads acknowledged at once.

A client that keeps Nagle on (paho's default, as Home Assistant) holds its next small packet until its last one is
acknowledged; when the broker has nothing to send back (a PUBACK it received, a QoS 0 publish) that ACK waits for
the broker's delayed-ACK timer: ~40 ms per command → reply (docs/performance.md). These tests check the socket
options themselves, not a time: the figures are in ``bench/daemon.py``.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator

import pytest

from support.net import wait_until
from unolauncher.bus.broker import EmbeddedBroker, _GuardedReader, _Limits
from unolauncher.slots import ConnectionSlots

# MQTT 3.1.1 CONNECT, clean session, keep-alive 60 s, client id "sockopt"
CONNECT = bytes([0x10, 19, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 60, 0, 7]) + b"sockopt"
WS_UPGRADE = (
    b"GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    b"Sec-WebSocket-Protocol: mqtt\r\n\r\n"
)


def masked_binary_frame(payload: bytes) -> bytes:
    """One client → server WebSocket binary frame (clients must mask; a zero mask keeps the bytes as they are)."""
    assert len(payload) < 126
    return bytes([0x82, 0x80 | len(payload), 0, 0, 0, 0]) + payload


def server_side_of(client: socket.socket) -> socket.socket | None:
    """This process's accepted socket whose peer is ``client`` (the broker runs in this process), as a duplicate."""
    wanted = client.getsockname()
    for name in os.listdir("/proc/self/fd"):
        try:
            candidate = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue  # not a socket
        try:
            if candidate.family == socket.AF_INET and candidate.getpeername() == wanted:
                return candidate
        except OSError:
            pass
        candidate.close()
    return None


def receive_some(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(4096)
        assert chunk, f"the broker hung up before sending {marker!r}"
        data += chunk
    return data


@pytest.fixture
def raw_client() -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)
    yield sock
    sock.close()


@pytest.mark.parametrize("listener", ["tcp", "websocket"])
def test_an_accepted_socket_has_nagle_off(broker: EmbeddedBroker, raw_client: socket.socket, listener: str) -> None:
    # The client side keeps Nagle on, as paho's default does: only the broker's side is under test.
    if listener == "tcp":
        raw_client.connect(("127.0.0.1", broker.port))
        raw_client.sendall(CONNECT)
    else:
        raw_client.connect(("127.0.0.1", broker.ws_port))
        raw_client.sendall(WS_UPGRADE)
        receive_some(raw_client, b"\r\n\r\n")
        raw_client.sendall(masked_binary_frame(CONNECT))
    # The CONNACK comes from the broker's session, which starts after the guard has tuned the socket.
    assert b"\x20\x02" in receive_some(raw_client, b"\x20\x02")
    server = server_side_of(raw_client)
    assert server is not None, "the broker's side of the connection was not found in this process"
    with server:
        assert server.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1


@pytest.fixture
def accepted_pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A real loopback TCP connection: (client, the accepted socket)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname(), timeout=10)
        accepted, _ = listener.accept()
    yield client, accepted
    client.close()
    accepted.close()


class OneRead:
    """A stand-in for amqtt's reader that returns what the client sent."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    async def read(self, n: int = -1) -> bytes:
        return self.sock.recv(4096)

    def feed_eof(self) -> None:
        pass


@pytest.mark.skipif(not hasattr(socket, "TCP_QUICKACK"), reason="TCP_QUICKACK is Linux only")
def test_every_read_asks_for_an_immediate_ack(accepted_pair: tuple[socket.socket, socket.socket]) -> None:
    client, accepted = accepted_pair
    client.sendall(bytes([0x40, 2, 0, 1]))  # a PUBACK: a packet the broker answers with nothing
    assert wait_until(lambda: select_readable(accepted), 10)
    # Then delayed-ACK ("pingpong") mode, where the kernel is after any request/response exchange; reading the
    # option back tells which mode the socket is in. (Set after the data came, whose ACK a fresh connection has
    # sent already: no delayed-ACK timer is pending that could leave the mode by itself.)
    accepted.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 0)
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK) == 0

    async def read_once() -> bytes:
        limits = _Limits(1024, 10.0, 10.0, ConnectionSlots(4, 4))
        guarded = _GuardedReader(OneRead(accepted), limits, abort=lambda: None, sock=accepted)
        try:
            return await guarded.read()
        finally:
            guarded.finish()

    assert asyncio.run(read_once()) == bytes([0x40, 2, 0, 1])
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK) == 1


def select_readable(sock: socket.socket) -> bool:
    import select

    return bool(select.select([sock], [], [], 0)[0])
