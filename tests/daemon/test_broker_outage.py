"""The broker (mosquitto) SIGKILLed mid-game and restarted 10 s later: nothing lost, nothing reordered.

The daemon runs in this process so the test can press the launcher's (virtual) button while the broker is away,
as players at the table would: those hits are journalled and wait in the outbox. After the broker is back the
observer ends with a gap-free sequence whose events equal the journal's. An observer that reconnects after the
daemon may have missed events published before it re-subscribed; it asks for them with the documented
``resend`` command, as the dashboard does.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import pytest

from daemon.game import PRESS_GAP_S, play_steps, public, start_game
from support.daemon import TableClient, running_daemon
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

OUTAGE_S = 10.0

pytestmark = pytest.mark.timeout(120)


def _hit_journalled_after(journal: Journal, seq: int) -> bool:
    return any(e["type"] == "hit" for e in journal.events(seq + 1))


def test_broker_killed_mid_game_and_back_10s_later_loses_nothing(tmp_path: Path) -> None:
    with Mosquitto() as broker, running_daemon(tmp_path, "outage", broker.port) as daemon:
        assert daemon.bus is not None and daemon.table is not None and daemon.journal is not None
        bus, table, journal, virtual = daemon.bus, daemon.table, daemon.journal, daemon.virtual
        assert virtual is not None and bus.subscribed.wait(10)
        observer = TableClient("127.0.0.1", broker.port, "outage", name="observer")
        mirror, bot = Referee(), Bot("random", seed=11)
        with TableClient("127.0.0.1", broker.port, "outage", name="player") as player:
            start_game(player, mirror)
            play_steps(player, mirror, bot, 15)
        before_outage = journal.last_seq
        assert observer.wait_for_seq(before_outage, 10)

        broker.kill()
        killed_at = time.monotonic()
        assert wait_until(lambda: not bus.connected.is_set(), 5)
        presses = 0
        while time.monotonic() - killed_at < OUTAGE_S:
            if presses < 6 and table.hitter() is not None:
                seq = journal.last_seq
                time.sleep(PRESS_GAP_S)
                virtual.press_button()
                got_hit = wait_until(functools.partial(_hit_journalled_after, journal, seq), 10)
                assert got_hit, journal.events(seq - 3)
                hit = next(e for e in journal.events(seq + 1) if e["type"] == "hit")
                mirror.handle({"type": "hit", "player": hit["player"], "cards": hit["cards"]})
                presses += 1
            else:
                time.sleep(0.1)  # pacing: the outage lasts OUTAGE_S whatever the table does
        assert presses >= 3
        offline_events = journal.last_seq - before_outage
        assert offline_events >= 6 and journal.outbox_size() >= offline_events  # waiting, not lost

        broker.start()
        assert bus.subscribed.wait(15), "the daemon must reconnect by itself"
        assert wait_until(lambda: observer.connected.is_set(), 10)
        with TableClient("127.0.0.1", broker.port, "outage", name="player2") as player:
            play_steps(player, mirror, bot, 10)
            final = player.command({"type": "status"})["data"]["seq"]
        assert wait_until(lambda: journal.outbox_size() == 0, 10), "every event acknowledged by the broker"
        wait_until(lambda: observer.last_seq() >= final, 5)
        observer.resend_missing(final)  # events published before the observer re-subscribed
        assert sorted(observer.events) == list(range(1, final + 1)), "gap-free after the outage"
        journalled = {e["seq"]: e for e in journal.events(1, 100_000)}
        assert all(observer.events[s] == journalled[s] for s in observer.events)
        # arrivals may repeat a seq (at-least-once), but a first arrival never goes backwards
        firsts = list(dict.fromkeys(observer.arrivals))
        assert firsts[:before_outage] == list(range(1, before_outage + 1))
        assert wait_until(lambda: observer.state is not None and observer.state.get("seq") == final, 5)
        assert observer.state is not None and public(observer.state) == mirror.public_state()
        observer.close()
