"""Late taps are refused ``stale`` and fire nothing; the ``alive`` topic (issue 26 items 2 and 3).

A real ``unolauncher run`` (virtual launcher, embedded broker) and a test client that sends what the dashboard sends:
``seen_seq`` (the state it showed) and ``tapped_at`` (the tap's time on the daemon's clock).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until

GAME = {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob", "cy"], "seed": 5}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DaemonProcess, TableClient]]:
    overrides = {"homeassistant": {"enabled": False}}
    with (
        DaemonProcess(tmp_path_factory.mktemp("fresh"), overrides=overrides) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="fresh") as client,
    ):
        yield daemon, client


def new_game(client: TableClient) -> int:
    reply = client.command(GAME)
    assert reply["ok"], reply
    assert wait_until(lambda: (client.state or {}).get("seq") == reply["seq"], 10)
    assert client.state is not None and client.state["owed"] == [] and client.state["current"] == "ann"
    return int(reply["seq"])


def now_ms() -> int:
    return round(time.time() * 1000)


def hits_after(client: TableClient, seq: int) -> list[dict[str, Any]]:
    return [e for e in client.ordered_events() if e["seq"] > seq and e["type"] in ("hit", "press", "fired")]


def test_alive_every_second_not_retained_with_the_clock_and_the_state_seq(
    running: tuple[DaemonProcess, TableClient],
) -> None:
    _, client = running
    seq = new_game(client)
    start = len(client.messages_on("alive"))
    assert wait_until(lambda: len(client.messages_on("alive")) >= start + 3, 10)
    with client.lock:
        beats = [(json.loads(p), r) for t, p, r in client.messages if t == f"{client.base}/alive"][start:]
    assert not [r for _, r in beats if r], "alive is never retained"
    last, _ = beats[-1]
    assert abs(last["t"] - now_ms()) < 5000, last  # the daemon's wall clock (same machine)
    assert last["seq"] == seq, "the seq of the last state published"
    times = [b["t"] for b, _ in beats]
    assert all(later > earlier for earlier, later in itertools.pairwise(times)), times


def test_a_press_tapped_ten_seconds_ago_is_refused_stale_and_fires_nothing(
    running: tuple[DaemonProcess, TableClient],
) -> None:
    _, client = running
    seq = new_game(client)
    reply = client.command({"type": "press", "seen_seq": seq, "tapped_at": now_ms() - 10_000})
    assert reply["ok"] is False and reply["code"] == "stale", reply
    assert "10 s after it was made" in reply["message"] and reply["message"].count(".") == 1, reply["message"]
    time.sleep(0.3)  # nothing may follow; a press would show as press/fired/hit events within ~0.1 s
    assert hits_after(client, seq) == []
    # The same tap on time fires, for the player whose turn it saw.
    reply = client.command({"type": "press", "seen_seq": seq, "tapped_at": now_ms()})
    assert reply["ok"], reply
    assert wait_until(lambda: any(e["type"] == "hit" for e in hits_after(client, seq)), 10)
    hit = next(e for e in hits_after(client, seq) if e["type"] == "hit")
    assert hit["player"] == "ann"


def test_a_press_tapped_on_an_older_state_than_the_hitters_is_refused(
    running: tuple[DaemonProcess, TableClient],
) -> None:
    """Three taps, all tapped on the state where ann was to hit, reach the table one after another (each after the
    last one's run is over): only the first is taken; the others are not bob's or cy's hits."""
    _, client = running
    seq = new_game(client)
    replies = []
    for _ in range(3):
        replies.append(client.command({"type": "press", "seen_seq": seq, "tapped_at": now_ms()}))
        assert wait_until(lambda: client.state is not None and client.state["current"] != "ann", 10)
    assert [r["code"] for r in replies] == ["ok", "stale", "stale"], replies
    assert "moved on" in replies[1]["message"], replies[1]
    hits = [e for e in hits_after(client, seq) if e["type"] == "hit"]
    assert [h["player"] for h in hits] == ["ann"], hits


def test_commands_without_the_fields_and_the_emergency_stop_always_work(
    running: tuple[DaemonProcess, TableClient],
) -> None:
    _, client = running
    seq = new_game(client)
    assert client.command({"type": "press"})["ok"]  # the CLI, Home Assistant: no fields, no check
    assert wait_until(lambda: any(e["type"] == "hit" for e in hits_after(client, seq)), 10)
    stop = client.command({"type": "disable", "by": "test", "seen_seq": 1, "tapped_at": now_ms() - 60_000})
    assert stop["ok"], stop
    late_enable = client.command({"type": "enable", "seen_seq": 1, "tapped_at": now_ms() - 60_000})
    assert late_enable["code"] == "stale", late_enable  # re-arming the motor a minute late: no
    assert client.command({"type": "enable", "tapped_at": now_ms()})["ok"]
    bad = client.command({"type": "press", "seen_seq": "7"})
    assert bad["code"] == "bad_field" and "seen_seq" in bad["message"], bad
