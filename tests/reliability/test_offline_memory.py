"""Bounded memory while the broker is away: thousands of commands with no broker, memory flat, and everything
correct once the broker is back.

Each accepted command journals its events and changes the retained ``state``, ``sensors`` and ``launcher``, and
each is answered with a ``reply``. Before, every one of those went into paho's in-memory queue until the broker
came back (QoS 1 while disconnected is queued without limit). Now the retained topics coalesce to the newest value
per topic, replies wait in a small bounded queue, and events wait where they always did: in the journal's outbox.
The daemon runs in this process (commands go straight to the table, as the launcher's button does) so that paho's
own queue can be inspected; the broker is a real mosquitto started on the daemon's port afterwards.
"""

from __future__ import annotations

import resource
from pathlib import Path
from typing import Any

import pytest
from daemon.game import NEW_GAME, public

from support.daemon import TableClient, running_daemon
from support.mosquitto import Mosquitto
from support.net import free_port, wait_until
from unolauncher.bus.mqtt import OFFLINE_QUEUE, WINDOW
from unolauncher.daemon.app import Daemon
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee

pytestmark = pytest.mark.timeout(180)

COMMANDS = 3000


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def play(daemon: Daemon, mirror: Referee, bot: Bot, count: int, seed: int) -> None:
    """Submit ``count`` legal commands to the table (new games when one ends) and wait until all are applied."""
    assert daemon.table is not None
    for index in range(count):
        command: dict[str, Any] | None = bot.next_command(mirror) if mirror.public_state().get("players") else None
        if command is None:
            command = {**NEW_GAME, "seed": seed * 100_000 + index}
        daemon.table.submit_command(command)
        mirror.handle(command)
    assert wait_until(daemon.table.idle, 120)


def test_broker_away_thousands_of_commands_memory_flat_then_all_delivered(tmp_path: Path) -> None:
    port = free_port()  # nothing listens here until the broker starts below
    with running_daemon(tmp_path, "t1", broker_port=port, overrides={"table": {"lockout": False}}) as daemon:
        bus, journal = daemon.bus, daemon.journal
        assert bus is not None and journal is not None and not bus.connected.is_set()
        mirror, bot = Referee(), Bot("random", seed=31)
        play(daemon, mirror, bot, 300, seed=1)  # warm up: the referee, SQLite's cache, the allocator
        before = rss_mb()
        play(daemon, mirror, bot, COMMANDS, seed=2)
        grown = rss_mb() - before
        paho_queue = len(bus.client._out_messages)  # paho's own queue (private; read here to prove the bound)
        events = journal.last_seq
        print(
            f"\n{COMMANDS} commands with the broker away: {events} events in the outbox, paho holds {paho_queue} "
            f"message(s), {len(bus._offline)} reply(ies) waiting, RSS +{grown:.1f} MB "
            f"(peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)"
        )
        assert journal.outbox_size() == events, "every event waits in the journal's outbox"
        assert paho_queue <= WINDOW, "only the events in the outbox's window may wait in paho"
        assert bus.backlog() <= WINDOW and len(bus._offline) <= OFFLINE_QUEUE
        assert grown < 8, f"memory grew {grown:.1f} MB over {COMMANDS} commands while the broker was away"

        with Mosquitto(port=port), TableClient("127.0.0.1", port, "t1", name="watcher") as watcher:
            assert wait_until(bus.outbox_idle, 60), f"outbox still holds {journal.outbox_size()} event(s)"
            assert watcher.resend_missing(events, timeout=30)  # the watcher may have come before the reconnect
            assert [e["seq"] for e in watcher.ordered_events()] == list(range(1, events + 1))
            assert wait_until(lambda: watcher.state is not None and watcher.state.get("seq") == events, 15)
            # The table's truth is its journal's commands replayed (the daemon adds some of its own, e.g. free
            # play's commitment between rounds, that the bot's mirror never saw).
            replayed = Referee()
            for command in journal.commands():
                replayed.handle(command)
            assert watcher.state is not None and public(watcher.state) == replayed.public_state()
            assert watcher.conflicts == []
