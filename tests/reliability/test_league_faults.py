"""The league view under faults: broker restarts while tables publish, and junk from the wire."""

from __future__ import annotations

import time

from support.fake_tables import TablePublisher
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.cli.league import LeagueClient


def test_league_view_reconnects_after_broker_restarts_and_keeps_counting() -> None:
    """Three broker restarts while 5 tables publish: the view reconnects each time (back-off from 1 s), resubscribes,
    and afterwards sees each table's new events with no crash and nothing counted as invalid."""
    with Mosquitto() as broker:
        league = LeagueClient("127.0.0.1", broker.port)
        league.start()
        try:
            assert wait_until(lambda: league.link.subscribed, 10)
            seq = dict.fromkeys(range(5), 0)
            recoveries: list[float] = []
            for _restart in range(3):  # bounded
                pub = TablePublisher(broker.port)
                for _ in range(20):
                    for t in seq:
                        seq[t] += 1
                        pub.event(f"t{t}", seq[t])
                assert wait_until(lambda: league.snapshot()["totals"]["events"] == sum(seq.values()), 5)
                pub.close()
                broker.stop()
                assert wait_until(lambda: not league.link.connected, 5)
                stopped = time.monotonic()
                broker.start()
                assert wait_until(lambda: league.link.subscribed, 40), league.snapshot()["broker"]
                recoveries.append(time.monotonic() - stopped)
            pub = TablePublisher(broker.port)
            for t in seq:
                pub.event(f"t{t}", seq[t] + 1)
            pub.close()
            assert wait_until(lambda: all(league.standings.tables[f"t{t}"].seq.last == seq[t] + 1 for t in seq), 10)
            snap = league.snapshot()
            assert snap["totals"]["invalid"] == 0
            assert snap["broker"]["connected"] is True
            # Nothing was published while the view was away, so every event arrived once, in order.
            assert snap["totals"]["events"] == sum(seq.values()) + len(seq)
            assert (snap["totals"]["gaps"], snap["totals"]["duplicates"], snap["totals"]["reordered"]) == (0, 0, 0)
            assert max(recoveries) < 35  # paho's back-off is capped at 30 s
        finally:
            league.stop()
