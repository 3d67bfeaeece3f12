"""10,000 generated bad payloads on `cmd`: the daemon stays up, answers every one, and nothing changes.

Payloads: invalid JSON and non-UTF-8 bytes, JSON that is not an object, missing or odd `type`, unknown
commands, wrong field types, huge strings, bad ids, unknown players, illegal plays (out of turn, cards not held,
hits owed by someone else), and daemon commands with bad fields.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from daemon.game import NEW_GAME
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.daemon.commands import MAX_PAYLOAD

COUNT = 10_000

pytestmark = pytest.mark.timeout(180)


def generators(state: dict[str, Any]) -> list[Callable[[random.Random, int], bytes | dict[str, Any]]]:
    """Each makes one bad payload (bytes = sent as is; dict = JSON with the given id)."""
    players = state["players"]
    current = state["current"]
    others = [p for p in players if p != current]

    def text(rng: random.Random, n: int) -> str:
        return "".join(rng.choice('abcdefghijklmnopqrstuvwxyz "{}[]:,\\é✓') for _ in range(n))

    return [
        lambda rng, i: text(rng, rng.randint(0, 40)).encode(),  # mostly invalid JSON
        lambda rng, i: bytes(rng.randrange(256) for _ in range(rng.randint(1, 30))),  # binary, often not UTF-8
        lambda rng, i: b'{"type": "play", "player": ' + str(i).encode(),  # truncated
        lambda rng, i: json.dumps(rng.choice([1, "play", None, [1, 2], True, 3.5])).encode(),  # not an object
        lambda rng, i: b"[" * 50_000,  # deep nesting: RecursionError inside json
        lambda rng, i: {"type": rng.choice([None, 5, "", [], {}])},
        lambda rng, i: {"no_type": True},
        lambda rng, i: {"type": text(rng, rng.randint(1, 30)) + "_x"},  # unknown command
        lambda rng, i: {"type": "play", "player": rng.choice([5, None, [], {}]), "card": rng.choice([1, [], "red"])},
        lambda rng, i: {"type": "new_game", "ruleset": rng.choice(["uno", 7, None]), "players": players},
        lambda rng, i: {"type": "new_game", "ruleset": "attack", "players": rng.choice(["ann", [], ["solo"], [1, 2]])},
        lambda rng, i: {"type": "play", "player": "x" * 70_000, "card": "red 1"},  # over the size limit
        lambda rng, i: {"type": "play", "player": "y" * rng.randint(41, 5000), "card": "red 1"},
        lambda rng, i: {"type": "play", "player": "zed" + str(i), "card": "red 1"},  # unknown player
        lambda rng, i: {"type": "play", "player": rng.choice(others), "card": "red 1"},  # out of turn
        lambda rng, i: {"type": "play", "player": current, "card": rng.choice(["red 0", "purple 3", "wild 9"])},
        lambda rng, i: {"type": "hit", "player": rng.choice(others)},  # not their hit
        lambda rng, i: {"type": "hit", "player": current, "cards": rng.choice([-1, 1000, "3", 2.5])},
        lambda rng, i: {"type": "choose", "player": current, "color": "red"},  # nothing pending
        lambda rng, i: {"type": "pass", "player": rng.choice(others)},
        lambda rng, i: {"type": "draw", "player": current},  # not in attack
        lambda rng, i: {"type": "catch", "player": current, "target": "nobody"},
        lambda rng, i: {"type": "lid", "open": rng.choice(["yes", 1, None])},
        lambda rng, i: {"type": "load", "cards": rng.choice([-1, 5000, "ten", True])},
        lambda rng, i: {"type": "resend", "from": rng.choice([0, -5, "1", [1]])},  # null = absent = from 1
    ]


def test_ten_thousand_bad_payloads_are_each_answered_and_change_nothing(tmp_path: Path) -> None:
    rng = random.Random(4)
    with (
        Mosquitto() as broker,
        DaemonProcess(tmp_path, broker_port=broker.port) as daemon,
        TableClient("127.0.0.1", broker.port, daemon.table, name="fuzzer") as client,
    ):
        assert client.command(NEW_GAME)["ok"]
        before = client.command({"type": "status"})["data"]
        replies_before = client.reply_count
        makers = generators(before["state"])
        with_id: list[str] = []
        for i in range(COUNT):
            payload = rng.choice(makers)(rng, i)
            if isinstance(payload, dict):
                command_id = f"bad{i}"
                if rng.random() < 0.05:  # a bad id: answered with id null
                    payload = {**payload, "id": rng.choice([[1], {"a": 1}, 1.5, True, "i" * 200])}
                else:
                    payload = {**payload, "id": command_id}
                text = json.dumps(payload)
                if payload.get("id") == command_id and len(text.encode()) <= MAX_PAYLOAD:
                    with_id.append(command_id)  # an oversized payload is not parsed: its reply has id null
                client.send(text)
            else:
                client.send(payload)
        assert wait_until(lambda: client.reply_count - replies_before >= COUNT, 120), (
            f"only {client.reply_count - replies_before} of {COUNT} answered"
        )
        assert daemon.alive()
        for command_id in with_id:
            body = client.replies[command_id]
            assert body["ok"] is False, body
            assert isinstance(body["code"], str) and body["code"]
            assert isinstance(body["message"], str) and 0 < len(body["message"]) < 300
        codes = {client.replies[c]["code"] for c in with_id}
        assert {"unknown_player", "not_your_turn", "unknown_command", "missing_type", "bad_field"} <= codes, codes
        after = client.command({"type": "status"})["data"]
        assert after["state"] == before["state"], "refusals must not change the game"
        assert after["seq"] == before["seq"], "refusals are not journalled or published as events"
        assert client.reply_count - replies_before == COUNT + 1  # + the final status
