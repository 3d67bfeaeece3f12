"""Oversized and malformed input below the JSON level: huge MQTT packets and raw bytes thrown at the broker.

The daemon helper's suite sends 10,000 bad JSON payloads to one table; this one attacks the transport: with the
many-table broker settings (``systemd/mosquitto-cafe.conf``) an oversized packet is cut off at the broker, and
without them the daemon refuses it with ``too_large``; raw garbage, a lying length header and invalid UTF-8 topics
cost the attacker its connection and nobody else anything.
"""

from __future__ import annotations

import json
import socket
import time
from functools import partial
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until

pytestmark = pytest.mark.timeout(120)

CAFE = Path(__file__).resolve().parents[2] / "systemd" / "mosquitto-cafe.conf"
NO_HA = {"homeassistant": {"enabled": False}}


def cafe_settings() -> str:
    return "\n".join(
        line for line in CAFE.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")
    )


def raw_send(port: int, data: bytes, wait: float = 1.0) -> bool:
    """Send raw bytes; True if the broker closed the connection within ``wait`` seconds."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        try:
            sock.sendall(data)
            for _ in range(100):  # bounded: a CONNACK may come before the close
                if sock.recv(4096) == b"":
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except TimeoutError:
            return False
    return False


def mqtt_string(text: bytes) -> bytes:
    return len(text).to_bytes(2, "big") + text


def packet(first_byte: int, body: bytes) -> bytes:
    """An MQTT packet with a correct one-byte remaining length (bodies here are under 128 bytes)."""
    assert len(body) < 128
    return bytes([first_byte, len(body)]) + body


CONNECT = packet(0x10, mqtt_string(b"MQTT") + b"\x04\x02\x00\x3c" + mqtt_string(b"raw"))


def replied_too_large(observer: TableClient) -> bool:
    """Too large to be parsed, so its id is unknown: the reply carries ``id: null``."""
    return observer.replies.get(None, {}).get("code") == "too_large"


def test_oversized_packets_stop_at_the_broker_or_are_refused_by_the_table(tmp_path: Path) -> None:
    big = json.dumps({"id": "big", "type": "status", "pad": "x" * (1 << 20)})  # 1 MiB
    for settings, expect in ((cafe_settings(), "cut off"), ("", "too_large")):
        with Mosquitto(extra_config=settings) as broker:
            daemon = DaemonProcess(tmp_path / expect.replace(" ", "_"), broker_port=broker.port, overrides=NO_HA)
            with daemon, TableClient("127.0.0.1", broker.port, "t1", name="obs") as observer:
                attacker = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="attacker")
                dropped: list[str] = []
                attacker.on_disconnect = lambda c, u, f, reason, p, d=dropped: d.append(str(reason))
                attacker.connect("127.0.0.1", broker.port)
                attacker.loop_start()
                try:
                    attacker.publish("unolauncher/t1/cmd", big, qos=1)
                    if expect == "cut off":
                        assert wait_until(partial(bool, dropped), 5), "the broker kept a client sending 1 MiB"
                        time.sleep(0.3)  # a bound: no reply to the cut-off message comes late either
                        assert "big" not in observer.replies and None not in observer.replies
                    else:
                        # Too large to be parsed, so its id is unknown: the reply carries ``id: null``.
                        assert wait_until(partial(replied_too_large, observer), 10)
                finally:
                    attacker.disconnect()
                    attacker.loop_stop()
                assert observer.command({"type": "status"})["ok"]
                assert daemon.alive()


def test_raw_garbage_costs_only_the_senders_connection(tmp_path: Path) -> None:
    with Mosquitto(extra_config=cafe_settings()) as broker:
        daemon = DaemonProcess(tmp_path / "raw", broker_port=broker.port, overrides=NO_HA)
        with daemon, TableClient("127.0.0.1", broker.port, "t1", name="obs") as observer:
            attacks = {
                "random bytes": bytes(range(256)) * 16,
                "HTTP request": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                "bad protocol name": packet(0x10, mqtt_string(b"MQXX") + b"\x04\x02\x00\x3c" + mqtt_string(b"r")),
                "publish before connect": packet(0x30, mqtt_string(b"a") + b"x"),
                # CONNECT, then a PUBLISH whose length header claims 256 MiB and never delivers it.
                "lying length": CONNECT + b"\x30\xff\xff\xff\x7f" + b"x" * 100,
                # A PUBLISH to a topic that is not valid UTF-8.
                "invalid utf-8 topic": CONNECT + packet(0x30, mqtt_string(b"\xff\xfe\xfd") + b"xx"),
            }
            closed = {name: raw_send(broker.port, data) for name, data in attacks.items()}
            # The broker hangs up on all but the lying length header, which it waits for until its own time-out.
            assert all(closed[name] for name in attacks if name != "lying length"), closed
            assert broker.process is not None and broker.process.poll() is None
            assert daemon.alive() and observer.command({"type": "status"})["ok"]
            game = {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "seed": 1, "mode": "full"}
            assert observer.command(game)["ok"]
            assert observer.wait_for_seq(1, 5)
