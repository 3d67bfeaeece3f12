"""The MQTT face of a table daemon, around the real :class:`Referee`, for the dashboard tests.

It speaks exactly what the page relies on (PROTOCOL.md + the daemon's ``press`` / ``resend`` commands): commands
on ``cmd`` answered on ``reply``; accepted commands' events on ``events`` (QoS 1, gap-free ``seq``); the retained
``state`` (with ``seq``), ``status`` and ``launcher``. The referee is the real one; only the launcher is
virtual: a ``press`` becomes a ``hit`` whose card count the referee's own seeded ejection model (or the game's
``launcher.script``) decides, as in ``full`` mode with the virtual launcher.

Example::

    with Mosquitto(websockets=True) as broker, StandInTable(broker.port, "t1") as table:
        table.command({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "mode": "full"})
        table.state["current"]
"""

from __future__ import annotations

import json
import threading
from types import TracebackType
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from unolauncher.rules.referee import Referee

DAEMON_COMMANDS = {"press", "resend"}


class StandInTable:
    """One table: referee + event log + MQTT topics, republishing its retained topics after every reconnect."""

    def __init__(self, port: int, table: str = "t1", magazine: int = 60) -> None:
        self.base = f"unolauncher/{table}/"
        self.referee = Referee()
        self.events: list[dict[str, Any]] = []  # every published event, seq = index + 1
        self.replies: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.magazine = magazine
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"standin-{table}")
        self.client.will_set(self.base + "status", "offline", qos=1, retain=True)
        self.client.reconnect_delay_set(0.1, 0.5)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.port = port
        self.connected = threading.Event()

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self) -> None:
        self.client.connect("127.0.0.1", self.port, keepalive=5)
        self.client.loop_start()
        if not self.connected.wait(10):
            raise TimeoutError("stand-in table could not connect to the broker")

    def stop(self) -> None:
        self.client.publish(self.base + "status", "offline", qos=1, retain=True)
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> StandInTable:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def seq(self) -> int:
        return len(self.events)

    @property
    def state(self) -> dict[str, Any]:
        with self.lock:
            return {**self.referee.public_state(), "seq": self.seq}

    # -- MQTT callbacks (paho's network thread) ------------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            return
        client.subscribe(self.base + "cmd", qos=1)
        # A broker restarted without persistence has lost the retained topics: publish them again.
        client.publish(self.base + "status", "online", qos=1, retain=True)
        self._publish_state()
        self._publish_launcher()
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            command = json.loads(message.payload)
            if not isinstance(command, dict):
                raise ValueError("not an object")
        except ValueError:
            self._reply(None, False, "invalid_json", "The command is not a JSON object.")
            return
        try:
            self.command(command)
        except Exception as exc:  # paho's thread must survive anything (NOTES.md)
            self._reply(command.get("id"), False, "internal_error", f"stand-in failed: {exc}")

    # -- commands ------------------------------------------------------------------------------------------------

    def command(self, command: dict[str, Any]) -> dict[str, Any]:
        """Apply one command as the daemon would; returns the reply it published."""
        command = dict(command)
        command_id = command.pop("id", None)
        self.commands.append(command)
        kind = command.get("type")
        if kind == "press":
            with self.lock:
                player = self.referee.hitter()
            if player is None:
                return self._reply(command_id, False, "no_hitter", "Nobody may hit now.")
            ok, code, message = self._apply({"type": "hit", "player": player})
            return self._reply(command_id, ok, code, "Button pressed." if ok else message)
        if kind == "resend":
            start = command.get("from")
            if isinstance(start, bool) or not isinstance(start, int) or start < 1:
                return self._reply(command_id, False, "bad_field", 'resend needs "from": a positive integer seq.')
            for event in self.events[start - 1 : start - 1 + 1000]:
                self.client.publish(self.base + "events", json.dumps(event), qos=1)
            return self._reply(command_id, True, "ok", f"Re-sent events from seq {start}.")
        ok, code, message = self._apply(command)
        return self._reply(command_id, ok, code, message)

    def _apply(self, command: dict[str, Any]) -> tuple[bool, str, str]:
        with self.lock:
            events = self.referee.handle(command)
            if events and events[0].get("type") == "rejected":
                return False, str(events[0]["code"]), str(events[0]["message"])
            for event in events:
                event = {**event, "seq": len(self.events) + 1}
                self.events.append(event)
                self.client.publish(self.base + "events", json.dumps(event), qos=1)
            hits = sum(e.get("cards", 0) for e in events if e.get("type") == "hit")
            self.magazine = max(0, self.magazine - hits)
        self._publish_state()
        self._publish_launcher()
        return True, "ok", f"Accepted; {len(events)} event(s)."

    def _reply(self, command_id: Any, ok: bool, code: str, message: str) -> dict[str, Any]:
        payload = {"id": command_id, "ok": ok, "code": code, "message": message, "seq": self.seq}
        self.replies.append(payload)
        self.client.publish(self.base + "reply", json.dumps(payload), qos=1)
        return payload

    def _publish_state(self) -> None:
        self.client.publish(self.base + "state", json.dumps(self.state), qos=1, retain=True)

    def _publish_launcher(self) -> None:
        status = {"backend": "virtual", "magazine_estimate": self.magazine, "jammed": False, "running": False,
                  "lid_open": False, "motor_on": False, "has_sensor": True}
        self.client.publish(self.base + "launcher", json.dumps(status), qos=1, retain=True)
