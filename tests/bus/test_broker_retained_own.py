"""A client receives the retained messages of its own subscriptions only, once each (MQTT 3.3.1.3), on the embedded
broker as on mosquitto. amqtt 0.12.1 sent every newcomer, at connect time, the retained messages matching *any*
client's filters: a phone got the table's retained state and rule catalogue twice (once before it subscribed), and
topics it never asked for (bus/broker_subscriptions.py)."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from support.net import wait_until


class Recorder:
    """A paho client that records every message it receives and can prove it has seen everything sent before a
    marker (one connection, one topic, QoS 1: in order)."""

    def __init__(self, port: int, name: str) -> None:
        self.received: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.acked = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{name}-{secrets.token_hex(3)}")
        self.client.on_message = self._message
        self.client.on_subscribe = lambda *args: self.acked.set()
        connected = threading.Event()
        self.client.on_connect = lambda *args: connected.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert connected.wait(10), f"{name} did not connect"

    def _message(self, _client: object, _userdata: object, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.received.append((message.topic, bytes(message.payload)))

    def subscribe(self, *topics: str) -> None:
        self.acked.clear()
        self.client.subscribe([(topic, 1) for topic in topics])
        assert self.acked.wait(10), f"no SUBACK for {topics}"

    def settle(self, marker_topic: str) -> list[tuple[str, bytes]]:
        """Everything received before a marker this client publishes on its own subscribed ``marker_topic``."""
        token = secrets.token_hex(4).encode()
        self.client.publish(marker_topic, token, qos=1)
        assert wait_until(lambda: (marker_topic, token) in self.received, 10), "the marker never came back"
        with self.lock:
            return self.received[: self.received.index((marker_topic, token))]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@contextmanager
def recorder(port: int, name: str) -> Iterator[Recorder]:
    client = Recorder(port, name)
    try:
        yield client
    finally:
        client.close()


def test_a_newcomer_gets_only_its_own_subscriptions_retained_messages_once(broker_port: int) -> None:
    table = f"own-{secrets.token_hex(3)}"
    with recorder(broker_port, "holder") as holder, recorder(broker_port, "seeder") as seeder:
        holder.subscribe(f"{table}/#")  # another client (a phone, Home Assistant) holds a wide filter
        seeder.client.publish(f"{table}/state", b"the state", qos=1, retain=True).wait_for_publish(10)
        seeder.client.publish(f"{table}/rules", b"the rules", qos=1, retain=True).wait_for_publish(10)
        assert wait_until(lambda: len(holder.received) == 2, 10)

        with recorder(broker_port, "stranger") as stranger:  # subscribes to something else entirely
            stranger.subscribe(f"elsewhere-{table}/marker")
            assert stranger.settle(f"elsewhere-{table}/marker") == []  # nothing of the table's

        with recorder(broker_port, "phone") as phone:  # subscribes to one of the table's topics, and its marker
            phone.subscribe(f"{table}/rules", f"{table}-phone/marker")
            assert phone.settle(f"{table}-phone/marker") == [(f"{table}/rules", b"the rules")]  # once, and only it
