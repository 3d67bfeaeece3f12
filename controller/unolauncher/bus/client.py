"""The paho client as the table configures it: how to reach the broker (:class:`BusSettings`), building a client
for those settings (:func:`make_client`, also used by ``ha-remove`` and the league tools), switching Nagle off on
its socket (:func:`set_tcp_nodelay`) and stopping its network thread (:func:`stop_loop`). Plain functions, called on
whichever thread builds or opens the client.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

log = logging.getLogger(__name__)


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

    Example:

    >>> server = socket.create_server(("127.0.0.1", 0))
    >>> sock = socket.create_connection(server.getsockname())
    >>> set_tcp_nodelay(sock), sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    (True, True)
    >>> sock.close(), server.close()
    (None, None)
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


def make_client(s: BusSettings, client_id: str) -> mqtt.Client:
    """A paho client for ``s`` (protocol, transport, credentials, TLS), not connected yet.

    Example (then ``client.connect(settings.host, settings.port)``):

    >>> client = make_client(BusSettings(host="broker.local", transport="websockets", mqtt5=True), "unolauncher-tool")
    >>> client.transport, client.protocol
    ('websockets', <MQTTProtocolVersion.MQTTv5: 5>)
    """
    transport: Literal["tcp", "websockets"] = "websockets" if s.transport == "websockets" else "tcp"
    # A clean session under 3.1.1 is paho's default (and MQTT 5 refuses the argument): the journal's outbox, not the
    # broker's session, is what carries events across a restart.
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
    return client


def stop_loop(client: mqtt.Client) -> None:
    """``client.loop_stop()`` without paho's race (eclipse-paho/paho.mqtt.python#872, open): after ``disconnect()``
    the network thread ends by itself and clears ``client._thread``, and if that happens between ``loop_stop``'s
    check and its ``join`` it raises ``AttributeError`` — though the thread has stopped, which is all we asked for.

    Example::

        >>> client = mqtt.Client(CallbackAPIVersion.VERSION2)
        >>> stop_loop(client)   # never started: nothing to stop, nothing raised
    """
    try:
        client.loop_stop()
    except AttributeError:  # the thread ended on its own in between: stopped, as asked
        log.debug("paho's network thread ended while loop_stop() waited for it (paho #872)")
