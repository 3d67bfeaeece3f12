"""A scripted stand-in for table daemons: publishes what PROTOCOL.md says a table publishes.

Used by the league, bridge and reliability tests to feed observers without running real daemons.

Example::

    pub = TablePublisher(broker.port)
    pub.status("t1", "online")
    pub.state("t1", ["ann", "bob"], {"ann": 0, "bob": 50}, rnd=2)
    pub.event("t1", seq=1, type_="play", player="ann", card="red 7")
    pub.close()
"""

from __future__ import annotations

import json
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


def state_payload(
    players: list[str], scores: dict[str, int], rnd: int = 1, winner: str | None = None, **extra: Any
) -> bytes:
    """The retained public state PROTOCOL.md says a table publishes (the fields the league reads, plus the rest)."""
    body = {
        "ruleset": "attack",
        "mode": "full",
        "round": rnd,
        "direction": 1,
        "players": players,
        "current": None if winner else players[0],
        "top": "red 7",
        "color": "red",
        "hands": dict.fromkeys(players, 7),
        "owed": [],
        "pending": None,
        "scores": scores,
        "winner": winner,
        **extra,
    }
    return json.dumps(body).encode()


class TablePublisher:
    """Publishes what a table daemon would (retained status/state, QoS 1 events) for a scripted table."""

    def __init__(self, port: int, base: str = "unolauncher") -> None:
        self.base = base
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="fake-tables")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def raw(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def status(self, table: str, value: str) -> None:
        self.raw(f"{self.base}/{table}/status", value, retain=True)

    def state(
        self,
        table: str,
        players: list[str],
        scores: dict[str, int],
        rnd: int = 1,
        winner: str | None = None,
        **extra: Any,
    ) -> None:
        self.raw(f"{self.base}/{table}/state", state_payload(players, scores, rnd, winner, **extra), retain=True)

    def event(self, table: str, seq: int, type_: str = "play", **fields: Any) -> None:
        self.raw(f"{self.base}/{table}/events", json.dumps({"type": type_, "seq": seq, **fields}))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
