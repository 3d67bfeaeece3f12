"""The league view over real table daemons (not scripted publishers): what users actually run in a café."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import partial
from pathlib import Path

from reliability.helpers import GameDriver

from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.cli.league import LeagueClient


def caught_up(league: LeagueClient, table: str, seq: int) -> bool:
    """The league's standings have seen ``table`` up to event ``seq``."""
    return league.standings.tables[table].seq.last == seq


def test_league_follows_two_real_tables_and_shows_them_offline_when_they_stop(tmp_path: Path) -> None:
    with Mosquitto() as broker:
        league = LeagueClient("127.0.0.1", broker.port)
        league.start()
        daemons = [
            DaemonProcess(
                tmp_path / name, table=name, broker_port=broker.port, overrides={"homeassistant": {"enabled": False}}
            )
            for name in ("kitchen", "garden")
        ]
        try:
            assert wait_until(lambda: league.link.subscribed, 10)
            drivers = []
            for i, daemon in enumerate(daemons):
                daemon.start()
                client = TableClient("127.0.0.1", broker.port, daemon.table, name=f"p{i}")
                driver = GameDriver(client, seed=40 + i)
                driver.start()
                drivers.append((driver, client))
            assert wait_until(lambda: all(d.applied >= 30 for d, _ in drivers), 30)
            for driver, _ in drivers:
                driver.stop()
            for (driver, client), daemon in zip(drivers, daemons):
                assert driver.errors == []
                assert wait_until(partial(caught_up, league, daemon.table, driver.seq), 10)
                client.close()
            snap = league.snapshot()
            rows = {row["table"]: row for row in snap["tables"]}
            for (driver, _), daemon in zip(drivers, daemons):
                row = rows[daemon.table]
                state = driver.mirror.public_state()
                assert row["status"] == "online"
                assert row["players"] == state["players"] and row["scores"] == state["scores"]
                assert row["round"] == state["round"] and row["winner"] == state["winner"]
                assert (row["first_seq"], row["last_seq"], row["gaps"], row["duplicates"]) == (1, driver.seq, 0, 0)
            assert snap["totals"]["invalid"] == 0
            # A one-shot snapshot from the command line sees the same retained standings.
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "unolauncher",
                    "league",
                    "--port",
                    str(broker.port),
                    "--host",
                    "127.0.0.1",
                    "--json",
                    "--once",
                    "--timeout",
                    "10",
                ],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            once = {row["table"]: row for row in json.loads(done.stdout)["tables"]}
            assert once["kitchen"]["scores"] == rows["kitchen"]["scores"]
            daemons[1].stop()
            assert wait_until(lambda: league.standings.tables["garden"].status == "offline", 10)
        finally:
            for daemon in daemons:
                daemon.stop()
            league.stop()
