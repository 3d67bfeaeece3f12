"""The embedded broker stops at once while QoS 1 messages are in flight to a subscriber (bus/broker_shutdown.py).

Found by the virtual Pi (tools/vpi): amqtt's shutdown cancels each client's reader, and on Python 3.11
``asyncio.wait_for`` can drop that cancellation when a PUBACK has just been read; shutdown then waited out its whole
10 s timeout on every SIGTERM during a run (systemd's TimeoutStopSec is 15 s).
"""

from __future__ import annotations

import logging
import threading

import paho.mqtt.client as mqtt
import pytest

from unolauncher.bus.broker import EmbeddedBroker
from unolauncher.bus.client import stop_loop


@pytest.mark.timeout(120)
@pytest.mark.parametrize("attempt", range(3))
def test_stop_with_qos1_messages_in_flight_does_not_time_out(attempt: int, caplog: pytest.LogCaptureFixture) -> None:
    broker = EmbeddedBroker(port=0, ws_port=0)
    broker.start()
    clients = []
    try:
        subscribed = threading.Event()
        sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"sub-{attempt}")
        sub.on_subscribe = lambda *args: subscribed.set()
        sub.connect("127.0.0.1", broker.port)
        sub.subscribe("t/#", 1)
        sub.loop_start()
        clients.append(sub)
        assert subscribed.wait(30)
        pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"pub-{attempt}")
        pub.connect("127.0.0.1", broker.port)
        pub.loop_start()
        clients.append(pub)
        infos = [pub.publish("t/x", f"m{i}", qos=1) for i in range(20)]
        infos[0].wait_for_publish(30)  # the flow has started; the rest are in flight while the broker stops
    finally:
        with caplog.at_level(logging.WARNING, logger="unolauncher.bus.broker"):
            broker.stop(timeout=8.0)
        for client in clients:
            stop_loop(client)
    assert "did not shut down cleanly" not in caplog.text
