"""The table's output over MQTT: replies, retained state and sensors, the outbox kick, resends.

Example (not a doctest: needs a connected bus and a journal)::

    output = MqttOutput(bus)
    table = Table(journal, Referee, output)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from unolauncher import strict_json
from unolauncher.bus.mqtt import TableBus


class MqttOutput:
    """Implements :class:`unolauncher.daemon.interfaces.TableOutput` on a :class:`TableBus`."""

    def __init__(self, bus: TableBus, on_state: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.bus = bus
        self.topics = bus.topics
        self.on_state = on_state  # sees every state published (the freshness check's memory of states)

    def events_journalled(self) -> None:
        self.bus.flush()

    def reply(self, payload: dict[str, Any], qos: int = 1) -> None:
        self.bus.publish(self.topics.reply, payload, qos=qos)  # every payload its reply (docs/protocol-mqtt.md)
        if payload.get("ok") is False:  # Home Assistant's commands carry no id: its "Last refusal" sensor shows it
            refusal = {
                "code": payload.get("code"),
                "message": payload.get("message"),
                "id": payload.get("id"),
                "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            self.bus.publish_latest(self.topics.refusal, refusal)  # coalesced: a flood of refusals costs one

    def backlog(self) -> int:
        return self.bus.backlog()

    # The retained topics: only the newest value matters, so they coalesce instead of queuing (TableBus).
    def state(self, public_state: dict[str, Any]) -> None:
        if self.on_state is not None:
            self.on_state(public_state)
        self.bus.publish_latest(self.topics.state, public_state)

    def launcher_status(self, status: dict[str, Any]) -> None:
        self.bus.publish_latest(self.topics.launcher, status)

    def motor(self, on: bool) -> None:
        # Every change, in order (not coalesced): a run's ON must reach Home Assistant even if its OFF follows at once.
        self.bus.publish(self.topics.motor, "ON" if on else "OFF", retain=True)

    def press(self, press: dict[str, Any]) -> None:
        self.bus.publish(self.topics.press, press)

    def sensors(self, values: dict[str, Any]) -> None:
        self.bus.publish_latest(self.topics.sensors, values)

    def resend(self, events: list[dict[str, Any]]) -> None:
        # Straight to paho, not through the outbox: these were delivered once already; consumers dedupe by seq.
        for event in events:
            self.bus.publish(self.topics.events, strict_json.dumps(event, ensure_ascii=True))
