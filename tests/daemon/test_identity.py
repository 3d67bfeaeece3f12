"""#33 item 1: a CONNECT with the daemon's client id cannot make the table deaf, and the daemon notices deafness.

A stranger on the LAN connects to the embedded broker with the daemon's client id: clean-session and persistent, over
TCP and WebSocket. The broker refuses it (CONNACK 0x02) and the table keeps answering. The daemon's default id is new
at every start (the documented ``unolauncher-<id>`` is free for anyone). And a daemon whose broker stops delivering to
it (amqtt's own broker, without the guard, after the same attack) finds out through its probe and reconnects.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.bus.client import stop_loop

pytestmark = pytest.mark.timeout(120)

KNOWN_ID = "unolauncher-t1"  # the id the docs used to name: a stranger's first guess


class Intruder:
    """A paho client connecting with a chosen client id; records the broker's answer to its first CONNECT."""

    def __init__(self, host: str, port: int, client_id: str, clean: bool, transport: str = "tcp") -> None:
        self.answer: Any = None
        self.answered = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=clean,
            transport="websockets" if transport == "websockets" else "tcp",
        )
        if transport == "websockets":
            self.client.ws_set_options(path="/mqtt")
        self.client.on_connect = self._on_connect
        self.client.reconnect_delay_set(1, 1)  # it keeps trying: the attack goes on while the table is asked
        self.client.connect(host, port, keepalive=30)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not self.answered.is_set():
            self.answer = reason
            self.answered.set()

    def refused(self) -> bool:
        assert self.answered.wait(10), "the broker never answered the CONNECT"
        return bool(self.answer.is_failure)

    def close(self) -> None:
        self.client.disconnect()
        stop_loop(self.client)


def ws_port(daemon: DaemonProcess) -> int:
    match = re.search(r":(\d+)/mqtt$", str(daemon.endpoints["ws_url"]))
    assert match, daemon.endpoints
    return int(match.group(1))


def answers(table: TableClient, times: int = 3) -> bool:
    """The table answers ``status`` ``times`` times in a row, each within 5 s."""
    try:
        return all(table.command({"type": "status"}, timeout=5)["ok"] for _ in range(times))
    except TimeoutError:
        return False


@pytest.mark.parametrize("transport", ["tcp", "websockets"])
@pytest.mark.parametrize("clean", [True, False], ids=["clean", "persistent"])
def test_connect_with_the_daemons_id_is_refused_and_the_table_keeps_answering(
    tmp_path: Path, transport: str, clean: bool
) -> None:
    # The attacker knows the id here (configured as the docs used to name it): the broker itself must refuse it.
    with DaemonProcess(tmp_path, overrides={"broker": {"client_id": KNOWN_ID}}) as daemon:
        port = ws_port(daemon) if transport == "websockets" else daemon.mqtt_port
        with TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
            assert answers(table, 1)
            intruder = Intruder(daemon.mqtt_host, port, KNOWN_ID, clean, transport)
            try:
                assert intruder.refused(), f"the broker let a second client in as the daemon: {intruder.answer}"
                assert answers(table), "the table went deaf after a CONNECT with its client id"
            finally:
                intruder.close()
            assert table.status == "online"
        assert "refused a CONNECT" in daemon.log_text()


def test_the_daemons_default_id_is_not_the_documented_one(tmp_path: Path) -> None:
    with DaemonProcess(tmp_path) as daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        intruder = Intruder(daemon.mqtt_host, daemon.mqtt_port, KNOWN_ID, clean=True)
        try:
            # Accepted: nobody holds that id, so the daemon does not use it.
            assert not intruder.refused(), intruder.answer
            assert answers(table)
        finally:
            intruder.close()


def test_a_deaf_daemon_notices_and_reconnects(tmp_path: Path) -> None:
    """amqtt's own broker (no guard): a clean-session CONNECT with the bus's id leaves it deaf; the probe finds out."""
    import asyncio

    from amqtt.broker import Broker

    from support.net import free_port
    from unolauncher.bus.client import BusSettings
    from unolauncher.bus.mqtt import TableBus
    from unolauncher.bus.topics import Topics
    from unolauncher.store.journal import Journal

    port = free_port()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def make_broker() -> Broker:  # on the broker's own loop: amqtt asks for the current loop while it builds
        return Broker(
            {
                "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
                "plugins": {"unolauncher.bus.broker_auth.AllowAnonymous": {}},
            },
            loop=loop,
        )

    broker = asyncio.run_coroutine_threadsafe(make_broker(), loop).result(10)
    asyncio.run_coroutine_threadsafe(broker.start(), loop).result(10)
    heard: list[bytes] = []
    journal = Journal(tmp_path / "journal.sqlite")
    bus = TableBus(
        BusSettings(host="127.0.0.1", port=port, reconnect_min=1, reconnect_max=1),
        Topics("t1"),
        journal,
        on_command=heard.append,
    )
    bus.probe.interval_s, bus.probe.deaf_after_s = 0.5, 3.0
    try:
        bus.start()
        assert wait_until(lambda: bus.sessions >= 1 and bus.subscribed.is_set(), 10)
        with TableClient("127.0.0.1", port) as table:
            table.send(b"one")
            assert wait_until(lambda: b"one" in heard, 5)
            intruder = Intruder("127.0.0.1", port, bus.client_id, clean=True)
            assert not intruder.refused()  # amqtt's own broker lets it in and deletes the bus's subscriptions
            # Counted after the attack: a probe late under load may have reconnected the bus before it.
            deaf, sessions = bus.probe.deaf_count, bus.sessions
            intruder.close()
            assert wait_until(lambda: bus.probe.deaf_count > deaf, 15), "the bus never noticed it was deaf"
            assert wait_until(lambda: bus.sessions > sessions and bus.subscribed.is_set(), 10), "it did not reconnect"
            table.send(b"three")
            assert wait_until(lambda: b"three" in heard, 5), "still deaf after reconnecting"
    finally:
        bus.stop()
        asyncio.run_coroutine_threadsafe(broker.shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        journal.close()


# -- #33 item 2: pages on other sites, and fake events/state --------------------------------------------------------

CONNECT = b"\x10\x0d\x00\x04MQTT\x04\x02\x00\x3c\x00\x01x"  # MQTT 3.1.1, clean session, client id "x"
CONNACK_OK = b"\x20\x02\x00\x00"


def mqtt_over_websocket(port: int, origin: str | None) -> bytes | None:
    """The broker's answer to a CONNECT over a WebSocket opened with this ``Origin`` (None: closed without one)."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect
    from websockets.typing import Origin, Subprotocol

    url = f"ws://127.0.0.1:{port}/mqtt"
    sent = Origin(origin) if origin is not None else None
    try:
        with connect(url, origin=sent, subprotocols=[Subprotocol("mqtt")], open_timeout=5) as ws:
            ws.send(CONNECT)
            answer = ws.recv(timeout=5)
            return answer if isinstance(answer, bytes) else answer.encode()
    except (WebSocketException, TimeoutError, OSError):
        return None


def test_only_the_dashboards_origin_may_use_the_websocket(tmp_path: Path) -> None:
    overrides: dict[str, dict[str, Any]] = {
        "dashboard": {"enabled": True, "host": "127.0.0.1", "port": 0},
        "broker": {"ws_origins": ["https://scores.example"]},
    }
    with DaemonProcess(tmp_path, overrides=overrides) as daemon:
        port = ws_port(daemon)
        dashboard = str(daemon.endpoints["dashboard_url"]).rstrip("/")
        assert mqtt_over_websocket(port, dashboard) == CONNACK_OK  # the dashboard's own page
        assert mqtt_over_websocket(port, "https://scores.example") == CONNACK_OK  # configured
        assert mqtt_over_websocket(port, f"http://127.0.0.1:{port}") == CONNACK_OK  # paho's own (a script)
        assert mqtt_over_websocket(port, None) == CONNACK_OK  # no Origin: not a browser
        for foreign in ("https://evil.example", "http://evil.example:80", dashboard.replace("127.0.0.1", "evil")):
            assert mqtt_over_websocket(port, foreign) is None, foreign
        with TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
            assert answers(table, 1)
        assert "refused a WebSocket from a page on" in daemon.log_text()


@pytest.mark.parametrize("topic", ["events", "state", "status", "reply", "launcher", "sensors", "alive"])
def test_only_the_daemon_publishes_on_its_topics(tmp_path: Path, topic: str) -> None:
    fake = json.dumps({"seq": 10**15, "type": "game_started", "id": "fake"}).encode()
    with (
        DaemonProcess(tmp_path) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port) as watcher,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, name="stranger") as stranger,
    ):
        stranger.client.publish(f"unolauncher/t1/{topic}", fake, qos=1).wait_for_publish(5)
        stranger.send(json.dumps({"type": "status", "id": "after"}))  # cmd stays open to everyone
        assert wait_until(lambda: "after" in watcher.replies, 10)
        # The fake went out before the command; the watcher got the reply: it would have seen the fake by now.
        assert fake not in stranger.messages_on(topic) and fake not in watcher.messages_on(topic)
        assert 10**15 not in watcher.events and "fake" not in watcher.replies
