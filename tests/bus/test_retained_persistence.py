"""The embedded broker keeps what it retains (``bus/retained_store.py``), across a clean restart and a SIGKILL of
real daemon processes; a retained empty payload deletes for good. And the daemon's one-shot discovery messages (a
renamed table's deletion) go out again on Home Assistant's birth message, so a Home Assistant that reconnects after
the daemon (the embedded broker restarts with it) still removes the old device; ``ha-remove`` finds the table after
the documented ``homeassistant.enabled = false`` restart.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import DaemonProcess
from support.net import wait_until
from unolauncher.bus.client import stop_loop
from unolauncher.bus.retained_store import RETAINED_FILE

from .test_discovery import FakeHomeAssistant
from .test_ha_remove import ha_remove

HA = {"homeassistant": {"enabled": True}}


class Watcher:
    """A client subscribed to ``#`` that keeps the newest retained payload per topic (empty: deleted)."""

    def __init__(self, port: int) -> None:
        self.retained: dict[str, bytes] = {}
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"watcher-{time.monotonic_ns()}")
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        self.client.on_connect = lambda c, u, f, reason, p: c.subscribe("#", qos=1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert subscribed.wait(10), "no SUBACK"

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.retained[message.topic] = bytes(message.payload)

    def has(self, topic: str, payload: bytes) -> bool:
        with self.lock:
            return self.retained.get(topic) == payload

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        stop_loop(self.client)


def retained_after_restart(port: int, topics: list[str]) -> dict[str, bytes]:
    """The retained messages a client connecting now gets on ``topics`` (absent: none)."""
    watcher = Watcher(port)
    try:
        wait_until(lambda: all(t in watcher.retained for t in topics), 3)  # absent ones: waited out, then reported
        with watcher.lock:
            return {t: watcher.retained[t] for t in topics if t in watcher.retained}
    finally:
        watcher.close()


def on_disk(daemon: DaemonProcess, expected: dict[str, bytes], absent: tuple[str, ...] = ()) -> bool:
    """The broker's retained store on disk holds ``expected`` and none of ``absent`` (read like any other reader)."""
    path = daemon.state_dir / RETAINED_FILE
    if not path.exists():
        return False
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = dict(db.execute("SELECT topic, payload FROM retained").fetchall())
    finally:
        db.close()
    return all(bytes(rows.get(t, b"")) == p for t, p in expected.items()) and not any(t in rows for t in absent)


def test_retained_messages_survive_a_clean_restart_and_a_sigkill(tmp_path: Path) -> None:
    daemon = DaemonProcess(tmp_path, "kitchen", overrides=HA)
    device = "homeassistant/device/unolauncher_kitchen/config"
    daemon.start()
    try:
        watcher = Watcher(daemon.mqtt_port)
        try:
            watcher.publish("zigbee/bulb/config", b"kept")
            watcher.publish("zigbee/old/config", b"to be deleted")
            assert wait_until(lambda: watcher.has("zigbee/old/config", b"to be deleted"), 5)
            watcher.publish("zigbee/old/config", b"")  # an empty retained payload deletes
            assert wait_until(lambda: watcher.has("zigbee/bulb/config", b"kept") and device in watcher.retained, 20)
            announced = watcher.retained[device]
        finally:
            watcher.close()
        # A client connecting now gets them as retained messages, and the broker's store has them on disk.
        expected = {"zigbee/bulb/config": b"kept", device: announced}
        topics = [*expected, "zigbee/old/config"]
        assert wait_until(lambda: retained_after_restart(daemon.mqtt_port, topics) == expected, 10)
        assert wait_until(lambda: on_disk(daemon, expected, absent=("zigbee/old/config",)), 10)
        assert daemon.stop() == 0

        daemon.start()  # a clean restart: a new broker on a new port, the same state directory
        topics = ["zigbee/bulb/config", "zigbee/old/config", device]
        found = retained_after_restart(daemon.mqtt_port, topics)
        assert found["zigbee/bulb/config"] == b"kept"
        assert "zigbee/old/config" not in found
        assert found[device] == announced

        watcher = Watcher(daemon.mqtt_port)
        try:
            watcher.publish("zigbee/bulb/config", b"changed before the crash")
            assert wait_until(lambda: watcher.has("zigbee/bulb/config", b"changed before the crash"), 5)
        finally:
            watcher.close()
        # Retained for a new client (in the broker's memory), and on disk.
        changed = {"zigbee/bulb/config": b"changed before the crash"}
        assert wait_until(lambda: retained_after_restart(daemon.mqtt_port, ["zigbee/bulb/config"]) == changed, 10)
        assert wait_until(lambda: on_disk(daemon, changed), 10)  # written (fsynced) by the broker's writer thread
        daemon.kill()  # SIGKILL: no clean-up

        daemon.start()
        found = retained_after_restart(daemon.mqtt_port, ["zigbee/bulb/config", device])
        assert found == {"zigbee/bulb/config": b"changed before the crash", device: announced}
    finally:
        daemon.stop()


def test_a_rename_removes_the_old_device_when_home_assistant_reconnects_after_the_daemon(tmp_path: Path) -> None:
    """The embedded broker restarts with the daemon, so Home Assistant is away when the renamed daemon deletes the
    old device's config; its birth message after reconnecting gets the deletion sent again."""
    den = "homeassistant/device/unolauncher_den/config"
    lounge = "homeassistant/device/unolauncher_lounge/config"
    with DaemonProcess(tmp_path, "den", overrides=HA) as daemon:
        ha = FakeHomeAssistant("127.0.0.1", daemon.mqtt_port)
        try:
            assert wait_until(lambda: den in ha.configs, 10)
        finally:
            ha.close()
    daemon.table = "lounge"
    daemon.config["table"]["id"] = "lounge"
    with daemon:  # renamed: announces lounge, deletes den's config before any Home Assistant is connected
        # Home Assistant back ~10 s later: once the broker has den's deletion, so it finds nothing retained for den
        # and would keep the old device for ever without the birth's resend.
        assert wait_until(lambda: retained_after_restart(daemon.mqtt_port, [den, lounge]).keys() == {lounge}, 20)
        ha = FakeHomeAssistant("127.0.0.1", daemon.mqtt_port)
        try:
            assert wait_until(lambda: lounge in ha.configs, 10)
            with ha.lock:
                assert not any(t == den for t, _, _ in ha.log)
            ha.birth()
            assert wait_until(lambda: any(t == den and p == b"" for t, p, _ in ha.log), 10)
            with ha.lock:
                count = len(ha.log)
            time.sleep(5.5)  # past the daemon's republish limit (HA_REPUBLISH_MIN_S)
            ha.birth()  # the deletion was delivered on a birth once: not sent again
            assert wait_until(lambda: len(ha.log) > count, 10)
            with ha.lock:
                assert not any(t == den for t, _, _ in ha.log[count:])
                assert any(t == lounge for t, _, _ in ha.log[count:])
        finally:
            ha.close()


def test_ha_remove_finds_the_table_after_the_documented_restart_without_home_assistant(tmp_path: Path) -> None:
    """docs/home-assistant.md: set ``homeassistant.enabled = false``, restart, then ``ha-remove``."""
    daemon = DaemonProcess(tmp_path, "den", overrides=HA)
    device = "homeassistant/device/unolauncher_den/config"
    with daemon:
        assert wait_until(lambda: device in retained_after_restart(daemon.mqtt_port, [device]), 10)
    daemon.config["homeassistant"]["enabled"] = False
    with daemon:
        elsewhere = tmp_path / "ha-remove"  # its own configuration and state directory, as on another machine
        elsewhere.mkdir()
        done = ha_remove(elsewhere, daemon.mqtt_port)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Removed table den" in done.stdout
        # ha-remove returns once its deletion is acknowledged; the broker retains (deletes) it a moment later
        assert wait_until(lambda: retained_after_restart(daemon.mqtt_port, [device]) == {}, 15)
    assert json.loads((daemon.state_dir / "ha_discovery.json").read_text())["node"] == "unolauncher_den"
