"""Issue #25 item 9, attacked against a real daemon: the "never more than N dry presses" bound runs through the whole
game (a cheater cannot dodge a due fire by moving to the next round), and free play's commitment is out before its
first press (so phones can add entropy to it, item 3 in free play too).

The preset makes the bound exact: ``miss_hazard = [0, 0, 1]`` — two dry presses, and the third must fire.
"""

from __future__ import annotations

import hashlib
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until

PLAYERS = ["ann", "bob", "cy"]
TWO_DRY = {"ejection_preset": "custom", "ejection_custom": {"miss_hazard": [0.0, 0.0, 1.0], "hit_repeat": [0.0],
                                                            "cards": {"1": 1}}}  # fmt: skip
# cy holds one card: after ann's and bob's dry presses cy plays it and the round ends.
GAME = {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table", "options": TWO_DRY,
        "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 7, "cy": 1}}}  # fmt: skip


def overrides(lockout: bool) -> dict[str, Any]:
    return {"launcher": {"allow_rigged": False}, "homeassistant": {"enabled": False}, "table": {"lockout": lockout}}


@pytest.fixture(params=[True, False], ids=["lockout", "free-play"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[DaemonProcess, TableClient, bool]]:
    lockout = bool(request.param)
    with (
        DaemonProcess(tmp_path, overrides=overrides(lockout)) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="cheater") as client,
    ):
        yield daemon, client, lockout


def ordered(client: TableClient, kind: str) -> list[dict[str, Any]]:
    with client.lock:
        return [e for _, e in sorted(client.events.items()) if e.get("type") == kind]


def ok(client: TableClient, command: dict[str, Any]) -> dict[str, Any]:
    reply = client.command(command)
    assert reply["ok"], (command, reply)
    assert client.wait_for_seq(reply["seq"]) if "seq" in reply else True
    return reply


def press(client: TableClient, count: int) -> dict[str, Any]:
    """One press of the (virtual) launcher, and its ``press`` event (the table's ``count``-th), with its hit settled."""
    ok(client, {"type": "press"})
    if not wait_until(lambda: len(ordered(client, "press")) >= count, 10):
        with client.lock:
            seen = [(s, e.get("type"), e.get("reason")) for s, e in sorted(client.events.items())]
        raise AssertionError(f"the press was not used: {seen}")
    event = ordered(client, "press")[count - 1]
    assert wait_until(lambda: any(e.get("seq", 0) > event["seq"] for e in ordered(client, "hit")
                                  + ordered(client, "unattributed_hit")), 10), "its hit never came"  # fmt: skip
    return event


def verify(daemon: DaemonProcess) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "unolauncher", "verify", "--state-dir", str(daemon.state_dir),
                           "--strict"], capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_dry_presses_cannot_be_carried_past_a_round_boundary(table: tuple[DaemonProcess, TableClient, bool]) -> None:
    daemon, client, lockout = table
    ok(client, GAME)
    assert [p["plan"]["fire"] for p in (press(client, 1), press(client, 2))] == [False, False]  # ann, bob: dry
    ok(client, {"type": "play", "player": "cy", "card": "red 7"})  # cy goes out: the round ends...
    ok(client, {"type": "score", "hands": {"ann": 10, "bob": 10}})  # ...and its secret comes out
    made = 2  # presses so far
    if not lockout:
        # Free play: its commitment is out before anyone presses, and goes on from round 1's two dry presses.
        assert wait_until(lambda: [e for e in ordered(client, "ejection_commit") if e.get("reason") == "free"], 10)
        free = ordered(client, "ejection_commit")[-1]
        assert (free["run"], free["since_lid"]) == (-2, 2), free
        assert not [p for p in ordered(client, "press") if p["commitment"] == free["commitment"]]
        # A phone adds its entropy to free play (commit, then reveal once the window has closed).
        entropy = secrets.token_hex(16)
        ok(client, {"type": "entropy", "hash": sha(entropy), "client": "phone", "commitment": free["commitment"]})
        for _ in range(30):
            answer = client.command({"type": "entropy", "entropy": entropy, "commitment": free["commitment"]})
            if answer.get("code") != "entropy_too_early":
                break
            time.sleep(0.1)  # poll: the table says when its window has closed (the phone retries the same way)
        assert answer["ok"], answer
        fired = press(client, 3)  # nobody's turn: an unattributed press of free play, the third: it must fire
        assert fired["commitment"] == free["commitment"] and fired["plan"]["fire"], fired
        mixed = [e for e in ordered(client, "ejection_entropy") if e["commitment"] == free["commitment"]]
        assert [e["entropy"] for e in mixed] == [entropy], mixed  # the phone's contribution is in free play's mix
        assert free["seq"] < mixed[0]["seq"] < fired["seq"]
        made = 3
    ok(client, {"type": "next_round", "deal": {"starter": "blue 2"}})
    started = ordered(client, "round_started")[-1]
    first = press(client, made + 1)
    assert first["commitment"] == started["commitment"]
    if lockout:
        # The cheater's hope: a new round starts at no streak, so the press that had to fire is dry again.
        assert (started["run"], started["since_lid"]) == (-2, 2), started
        assert first["plan"]["fire"] is True, first
    else:
        assert (started["run"], started["since_lid"]) == (1, 3), started  # free play's fire goes on too
        assert first["plan"]["fire"] is False, first
    ok(client, GAME)  # round 2's secret comes out (replaced)
    code, out = verify(daemon)
    assert code == 0, out
