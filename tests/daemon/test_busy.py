"""The command queue between MQTT and the table's worker is bounded: a flood is answered ``busy``, never queued.

docs/reliability.md (finding "Unbounded command queue"): 20,000 flooded commands grew the daemon 33 → 72 MB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.net import wait_until
from unolauncher.daemon.table import MAX_OUTGOING_BACKLOG, MAX_QUEUED_COMMANDS, Table
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal


class Recorder:
    """A :class:`TableOutput` that keeps the replies."""

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.qos: list[int] = []
        self.pending = 0  # what backlog() reports

    def reply(self, payload: dict[str, Any], qos: int = 1) -> None:
        self.replies.append(payload)
        self.qos.append(qos)

    def backlog(self) -> int:
        return self.pending

    def events_journalled(self) -> None: ...

    def state(self, public_state: dict[str, Any]) -> None: ...

    def launcher_status(self, status: dict[str, Any]) -> None: ...

    def press(self, press: dict[str, Any]) -> None: ...

    def sensors(self, values: dict[str, Any]) -> None: ...

    def motor(self, on: bool) -> None: ...

    def resend(self, events: list[dict[str, Any]]) -> None: ...


def payload(command: dict[str, Any], command_id: str) -> bytes:
    return json.dumps({**command, "id": command_id}).encode()


def test_a_flood_beyond_the_limit_is_answered_busy_at_once_and_the_queue_stays_bounded(tmp_path: Path) -> None:
    output = Recorder()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    table.start()
    try:
        with table.lock:  # the worker is stuck (a slow disk, say): it takes the first command and waits for the lock
            table.submit_payload(payload({"type": "status"}, "first"))
            assert wait_until(lambda: table._queued_commands == 0, 5)
            flood = 5 * MAX_QUEUED_COMMANDS
            for i in range(flood):  # paho's thread: each call returns at once
                table.submit_payload(payload({"type": "play", "player": "nobody", "card": "red 7"}, f"f{i}"))
            assert table._queued_commands == MAX_QUEUED_COMMANDS  # bounded
            busy = [r for r in output.replies if r["code"] == "busy"]
            assert [r["id"] for r in busy] == [f"f{i}" for i in range(MAX_QUEUED_COMMANDS, flood)]
            assert all(r["ok"] is False and r["message"].endswith(".") for r in busy)
            table.submit_payload(b"{not json")  # no usable id: busy with id null
            assert output.replies[-1] == {**output.replies[-1], "id": None, "code": "busy"}
        assert wait_until(table.idle, 10)
        ids = [r["id"] for r in output.replies]
        assert sorted(ids, key=str) == sorted(["first", None, *(f"f{i}" for i in range(flood))], key=str)  # once each
        assert table.busy_refusals == flood - MAX_QUEUED_COMMANDS + 1
    finally:
        table.stop()


def test_a_burst_under_the_limit_loses_no_legal_command(tmp_path: Path) -> None:
    """A whole game's worth of legal moves sent in bursts just under the limit while the worker is held: every one
    queued, applied in order and answered ``ok``; the table ends where a mirror referee does."""
    output = Recorder()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    table.start()
    mirror, bot = Referee(), Bot("random", seed=3)
    new_game = {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 9}
    mirror.handle(new_game)
    commands = [new_game]
    while len(commands) < 3 * MAX_QUEUED_COMMANDS:
        command = bot.next_command(mirror)
        if command is None:
            break
        mirror.handle(command)
        commands.append(command)
    try:
        sent = 0
        for start in range(0, len(commands), MAX_QUEUED_COMMANDS - 1):  # bounded: a few bursts
            with table.lock:
                for command in commands[start : start + MAX_QUEUED_COMMANDS - 1]:
                    table.submit_payload(payload(command, f"c{sent}"))
                    sent += 1
            assert wait_until(table.idle, 20)
        assert [r["id"] for r in output.replies] == [f"c{i}" for i in range(len(commands))]
        assert all(r["ok"] for r in output.replies), [r for r in output.replies if not r["ok"]][:3]
        assert table.busy_refusals == 0
        assert table.snapshot() == {**mirror.public_state(), "seq": table.journal.last_seq}
    finally:
        table.stop()


def test_a_full_outgoing_queue_also_answers_busy(tmp_path: Path) -> None:
    """Replies waiting in paho for the broker's acknowledgement count too: past MAX_OUTGOING_BACKLOG a command is
    answered ``busy`` (at QoS 0, so the answers themselves do not pile up), and taken again once it drains."""
    output = Recorder()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    table.start()
    try:
        output.pending = MAX_OUTGOING_BACKLOG
        table.submit_payload(payload({"type": "status"}, "s1"))
        assert output.replies[-1]["code"] == "busy" and output.qos[-1] == 0
        output.pending = MAX_OUTGOING_BACKLOG - 1
        table.submit_payload(payload({"type": "status"}, "s2"))
        assert wait_until(lambda: output.replies[-1]["id"] == "s2", 5)
        assert output.replies[-1]["ok"] and output.qos[-1] == 1
    finally:
        table.stop()


def test_a_real_daemon_flooded_with_20000_commands_stays_small_and_answers(tmp_path: Path) -> None:
    """20,000 QoS 0 commands as fast as paho sends them into a real ``unolauncher run`` on mosquitto: the daemon's
    memory grows by a few MB at most (it grew 33 → 72 MB with the unbounded queue), answers (nearly) every one (QoS
    0: the broker may drop a few), then answers normally."""
    from support.daemon import DaemonProcess, TableClient
    from support.mosquitto import Mosquitto

    with Mosquitto() as broker:
        daemon = DaemonProcess(tmp_path / "flood", table="flood", broker_port=broker.port)
        daemon.start()
        try:
            assert daemon.process is not None
            rss_before = daemon.rss_mb()
            flood = [
                json.dumps({"type": "status"}),
                "{not json",
                json.dumps({"type": "play", "player": "nobody", "card": "red 7"}),
                json.dumps({"id": 1, "type": "x" * 1000}),
            ]
            sent = 20_000
            with TableClient("127.0.0.1", broker.port, "flood", name="flooder") as flooder:
                for i in range(sent):  # bounded
                    flooder.client.publish("unolauncher/flood/cmd", flood[i % len(flood)], qos=0)
                assert wait_until(lambda: flooder.reply_count >= sent * 0.98, 60), flooder.reply_count
                rss_after = daemon.rss_mb()
            with TableClient("127.0.0.1", broker.port, "flood", name="after") as client:
                assert client.command({"type": "status"})["ok"]
            assert rss_after - rss_before < 12, f"RSS {rss_before:.0f} -> {rss_after:.0f} MB"
            print(f"\nflood: {sent} commands, RSS {rss_before:.0f} -> {rss_after:.0f} MB")
        finally:
            daemon.stop()
