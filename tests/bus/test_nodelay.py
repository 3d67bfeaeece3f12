"""TCP_NODELAY on the table's MQTT socket: set on every (re)connect, over TCP and WebSockets.

Without it (paho-mqtt 2.2 leaves Nagle on) the daemon's reply to a command waits behind the PUBACK it has just
written until the broker's delayed ACK arrives: ~40 ms per command (docs/reliability.md, finding "TCP_NODELAY").
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.bus.broker import EmbeddedBroker
from unolauncher.bus.client import BusSettings, set_tcp_nodelay
from unolauncher.bus.mqtt import TableBus
from unolauncher.bus.topics import Topics
from unolauncher.store.journal import Journal


def nodelay_on_open(client: mqtt.Client, userdata: object, sock: object) -> None:
    """paho ``on_socket_open``: Nagle off on the client's own socket too, as a phone's WebSocket client has."""
    set_tcp_nodelay(sock)


def nodelay(bus: TableBus) -> int:
    sock = bus.client.socket()
    assert sock is not None
    with socket.socket(fileno=sock.fileno()) as view:
        try:
            return view.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            view.detach()  # the descriptor stays paho's


@pytest.mark.parametrize("transport", ["tcp", "websockets"])
def test_nodelay_is_set_on_connect_and_again_after_a_reconnect(
    broker: EmbeddedBroker, tmp_path: Path, transport: str
) -> None:
    port = broker.port if transport == "tcp" else broker.ws_port
    settings = BusSettings(port=port, client_id=f"nd-{transport}", transport=transport, reconnect_max=1)
    bus = TableBus(settings, Topics(f"nd{transport}"), Journal(tmp_path / "j.sqlite3"), on_command=lambda p: None)
    bus.start()
    try:
        assert bus.subscribed.wait(10)
        assert nodelay(bus) == 1
        first, sessions = bus.client.socket(), bus.sessions
        # Drop the connection under paho's feet: it reconnects by itself with a new socket.
        assert first is not None
        with socket.socket(fileno=first.fileno()) as view:
            view.shutdown(socket.SHUT_RDWR)
            view.detach()
        # The state meant: a newer session than the first, confirmed by the broker (its socket is open then).
        # Waiting for "socket changed and subscribed" instead raced paho's teardown: the socket is None before
        # on_disconnect clears ``subscribed``.
        assert wait_until(lambda: bus.sessions > sessions and bus.subscribed.is_set(), 10)
        assert bus.client.socket() is not first
        assert nodelay(bus) == 1
    finally:
        bus.stop()


def test_command_to_reply_is_not_held_back_by_nagle(tmp_path: Path) -> None:
    """A real daemon on mosquitto: command → reply well under the ~40 ms Nagle + delayed ACK add (median of 20)."""
    from support.daemon import running_daemon

    # The broker's own side with Nagle off too, so that only the table's socket is under test.
    with (
        Mosquitto(extra_config="set_tcp_nodelay true") as broker,
        running_daemon(tmp_path, "ndrtt", broker.port, overrides={"homeassistant": {"enabled": False}}) as daemon,
    ):
        got = threading.Event()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="nd-rtt-client")
        client.on_message = lambda c, u, m: got.set()
        client.on_socket_open = nodelay_on_open
        try:
            assert daemon.bus is not None and daemon.bus.subscribed.wait(10)
            subscribed = threading.Event()
            client.on_subscribe = lambda *args: subscribed.set()
            # After CONNACK: amqtt can drop a SUBSCRIBE sent while it still sets up the session.
            client.on_connect = lambda c, u, f, reason, p: c.subscribe("unolauncher/ndrtt/reply", qos=1)
            client.connect("127.0.0.1", broker.port)
            client.loop_start()
            assert subscribed.wait(10), "no SUBACK"
            samples = []
            for i in range(20):
                got.clear()
                started = time.monotonic()
                client.publish("unolauncher/ndrtt/cmd", f'{{"id": {i}, "type": "status"}}', qos=1)
                assert got.wait(5)
                samples.append(time.monotonic() - started)
                time.sleep(0.01)  # pacing: one lone round trip at a time, as a phone's taps are
            median = statistics.median(samples)
            print(f"\ncommand -> reply over mosquitto: median {median * 1000:.2f} ms, max {max(samples) * 1000:.2f} ms")
            assert median < 0.020, f"median command -> reply {median * 1000:.1f} ms"
        finally:
            client.disconnect()
            client.loop_stop()
