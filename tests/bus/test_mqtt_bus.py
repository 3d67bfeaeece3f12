"""The MQTT bus on the embedded amqtt broker: outbox order, PUBACK bookkeeping, restarts, callback safety."""

from __future__ import annotations

import logging
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from support.daemon import TableClient
from support.net import wait_until
from unolauncher.bus.broker import EmbeddedBroker
from unolauncher.bus.client import BusSettings
from unolauncher.bus.mqtt import TableBus
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


def test_a_refused_cmd_subscription_keeps_the_table_offline_logs_once_and_is_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A SUBACK with a failure reason code (mosquitto 2.0 never sends one for an ACL, so the broker's answer is
    handed to the callback here): no ``online``, one log line with the cause and the fix, a retry scheduled with a
    growing wait; the next accepted subscription brings the table online and says so."""
    journal = Journal(tmp_path / "j.sqlite3")
    bus = TableBus(BusSettings(port=1, reconnect_min=1, reconnect_max=4), Topics("t9"), journal, lambda p: None)
    refused = [ReasonCode(PacketTypes.SUBACK, identifier=0x87), ReasonCode(PacketTypes.SUBACK, identifier=1)]
    caplog.set_level(logging.INFO, logger="unolauncher.bus.mqtt")
    try:
        delays = []
        for mid in (7, 8):
            bus._subscribe_mid = mid
            bus._on_subscribe(bus.client, None, mid, refused, None)
            assert not bus.subscribed.is_set() and bus._resubscribe_at is not None
            delays.append(bus._refused["unolauncher/t9/cmd"].delay)
        assert delays == [1.0, 2.0]
        lines = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
        assert len(lines) == 1, lines
        assert "to unolauncher/t9/cmd (Not authorized): the MQTT user must be allowed to subscribe" in lines[0]
        bus._subscribe_mid = 9
        granted = [ReasonCode(PacketTypes.SUBACK, identifier=1)] * 2
        bus._on_subscribe(bus.client, None, 9, granted, None)
        assert bus.subscribed.is_set() and bus.sessions == 1
        assert any("accepts unolauncher/t9/cmd again" in r.getMessage() for r in caplog.records)
    finally:
        journal.close()
