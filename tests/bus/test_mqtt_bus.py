"""The MQTT bus on the embedded amqtt broker: outbox order, PUBACK bookkeeping, restarts, callback safety."""

from __future__ import annotations

from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import TableClient
from support.net import wait_until
from unolauncher.bus.broker import EmbeddedBroker
from unolauncher.bus.mqtt import BusSettings, TableBus
from unolauncher.bus.topics import Topics
from unolauncher.store.journal import Journal


def _bus(broker: EmbeddedBroker, journal: Journal, table: str, on_command: object = None) -> TableBus:
    bus = TableBus(
        BusSettings(port=broker.port, client_id=f"bus-{table}"),
        Topics(table),
        journal,
        on_command=on_command or (lambda payload: None),  # type: ignore[arg-type]
    )
    bus.start()
    assert bus.subscribed.wait(10)
    return bus


def test_outbox_drains_in_seq_order_and_empties_on_puback(broker: EmbeddedBroker, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    watcher = TableClient("127.0.0.1", broker.port, "order", name="watcher")
    try:
        # 250 events already waiting (more than the publisher's window) plus 50 appended while running
        for i in range(50):
            journal.append_command({"type": "c"}, [{"type": "e", "i": i}] * 5)
        bus = _bus(broker, journal, "order")
        for i in range(50):
            journal.append_events([{"type": "late", "i": i}])
            bus.kick()
        assert wait_until(lambda: len(watcher.arrivals) >= 300, 20)
        assert watcher.arrivals == list(range(1, 301))
        assert wait_until(bus.outbox_idle, 5)
        bus.stop()
    finally:
        watcher.close()


def test_undelivered_events_are_published_after_a_restart(broker: EmbeddedBroker, tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.append_command({"type": "c"}, [{"type": "e"}] * 3)
    journal.mark_delivered([1, 2])  # the previous process saw PUBACK for 1 and 2 only
    journal.close()
    watcher = TableClient("127.0.0.1", broker.port, "restart", name="watcher")
    try:
        journal = Journal(path)
        bus = _bus(broker, journal, "restart")
        journal.append_events([{"type": "after"}])
        bus.kick()
        assert wait_until(lambda: len(watcher.arrivals) >= 2, 10)
        assert watcher.arrivals == [3, 4]
        assert wait_until(lambda: journal.outbox_size() == 0, 5)
        bus.stop()
    finally:
        watcher.close()


def test_an_exception_in_the_command_callback_does_not_kill_the_network_loop(
    broker: EmbeddedBroker, tmp_path: Path
) -> None:
    received: list[bytes] = []

    def explode(payload: bytes) -> None:
        received.append(payload)
        raise RuntimeError("boom")

    journal = Journal(tmp_path / "j.sqlite3")
    bus = _bus(broker, journal, "boom", on_command=explode)
    sender = mqtt.Client(CallbackAPIVersion.VERSION2)
    sender.connect("127.0.0.1", broker.port)
    sender.loop_start()
    try:
        for i in range(3):
            sender.publish("unolauncher/boom/cmd", f"{i}", qos=1).wait_for_publish(5)
        assert wait_until(lambda: len(received) == 3, 10), "the loop must survive each exception"
        journal.append_events([{"type": "still-alive"}])
        bus.kick()
        assert wait_until(lambda: journal.outbox_size() == 0, 10)
    finally:
        sender.disconnect()
        sender.loop_stop()
        bus.stop()
