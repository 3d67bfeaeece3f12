"""``unolauncher league`` against a real mosquitto, fed by scripted table publishers (PROTOCOL.md payloads)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from support.fake_tables import TablePublisher
from support.mosquitto import Mosquitto, add_password
from support.net import free_port, wait_until
from unolauncher.cli.league import LeagueClient

LEAGUE = [sys.executable, "-m", "unolauncher", "league"]


RunLeague = Callable[..., subprocess.CompletedProcess[str]]


def test_once_json_shows_every_retained_table(broker: Mosquitto, tables: TablePublisher, run_league: RunLeague) -> None:
    tables.status("kitchen", "online")
    tables.state("kitchen", ["ann", "bob", "cy"], {"ann": 120, "bob": 0, "cy": 45}, rnd=3)
    tables.status("garden", "offline")
    tables.state("garden", ["dee", "ann"], {"dee": 520, "ann": 80}, rnd=5, winner="dee")
    tables.state("attic", ["eve", "fay"], {"eve": 0, "fay": 0})
    done = run_league("--port", str(broker.port), "--host", "127.0.0.1", "--json", "--once", "--timeout", "10")
    assert done.returncode == 0, done.stderr
    snap = json.loads(done.stdout)
    by_table = {t["table"]: t for t in snap["tables"]}
    assert sorted(by_table) == ["attic", "garden", "kitchen"]
    assert by_table["kitchen"]["status"] == "online" and by_table["kitchen"]["round"] == 3
    assert by_table["kitchen"]["leader"] == "ann" and by_table["kitchen"]["scores"]["cy"] == 45
    assert by_table["garden"]["status"] == "offline" and by_table["garden"]["winner"] == "dee"
    assert by_table["attic"]["status"] == "unknown" and by_table["attic"]["leader"] is None
    assert snap["ranking"][0] == {"player": "dee", "tables": 1, "wins": 1, "points": 520}
    assert snap["totals"]["invalid"] == 0 and snap["broker"]["connected"] is True


def test_once_text_is_a_readable_table(broker: Mosquitto, tables: TablePublisher, run_league: RunLeague) -> None:
    tables.status("t7", "online")
    tables.state("t7", ["ann", "bob"], {"ann": 300, "bob": 150}, rnd=4)
    done = run_league("--port", str(broker.port), "--host", "127.0.0.1", "--once", "--timeout", "10")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("UNO league on 'unolauncher': 1 tables, 1 online")
    row = next(line for line in lines if line.startswith("t7 "))
    assert "online" in row and "ann:300 bob:150" in row
    assert any(line.startswith("ann ") for line in lines)


def test_live_events_are_checked_for_gaps_duplicates_and_order(broker: Mosquitto, tables: TablePublisher) -> None:
    lc = LeagueClient("127.0.0.1", broker.port)
    lc.start()
    try:
        assert wait_until(lambda: lc.link.subscribed, 10)
        for seq in range(1, 51):
            tables.event("a", seq)
        for seq in (1, 2, 4, 3, 3):  # table b: 4 before 3 (late), then 3 again (duplicate)
            tables.event("b", seq, "hit", cards=2)
        for seq in (10, 11, 14):  # table c: joined mid-game at 10, then 12 and 13 lost
            tables.event("c", seq)
        assert wait_until(lambda: lc.snapshot()["totals"]["events"] == 58, 10)
        t = {row["table"]: row for row in lc.snapshot()["tables"]}
        assert (t["a"]["first_seq"], t["a"]["last_seq"], t["a"]["gaps"], t["a"]["duplicates"]) == (1, 50, 0, 0)
        assert (t["b"]["reordered"], t["b"]["duplicates"], t["b"]["gaps"], t["b"]["last_event"]) == (1, 1, 0, "hit")
        assert (t["c"]["first_seq"], t["c"]["gaps"]) == (10, 2)
    finally:
        lc.stop()


def test_hostile_payloads_are_counted_and_ignored(broker: Mosquitto, tables: TablePublisher) -> None:
    lc = LeagueClient("127.0.0.1", broker.port)
    lc.start()
    try:
        assert wait_until(lambda: lc.link.subscribed, 10)
        tables.state("good", ["ann", "bob"], {"ann": 10, "bob": 20})
        junk: list[tuple[str, bytes]] = [
            ("unolauncher/good/state", b"\x00\xff garbage"),
            ("unolauncher/good/state", b'{"players": 5}'),
            ("unolauncher/good/events", b'{"type": "play", "seq": "7"}'),
            ("unolauncher/good/events", b"[" * 50_000),
            ("unolauncher/good/status", b"sideways"),
            ("unolauncher/good/state", b'{"players": [], "pad": "' + b"x" * 600_000 + b'"}'),
        ]
        for topic, payload in junk:
            tables.raw(topic, payload)
        tables.event("good", 1)
        assert wait_until(lambda: lc.snapshot()["totals"]["events"] == 1, 10)
        snap = lc.snapshot()
        good = snap["tables"][0]
        assert good["invalid"] == len(junk) and good["scores"] == {"ann": 10, "bob": 20}
        assert good["status"] == "unknown" and good["last_seq"] == 1
        assert lc.client.is_connected() and snap["broker"]["connected"]
    finally:
        lc.stop()


def test_refused_credentials_give_a_clear_error(run_league: RunLeague, tmp_path: Path) -> None:
    pw = tmp_path / "passwd"
    add_password(pw, "league", "right", create=True)
    pw.chmod(0o644)
    # `user root`: mosquitto started as root drops to the mosquitto user, which cannot read pytest's tmp_path.
    with Mosquitto(extra_config=f"user root\nallow_anonymous false\npassword_file {pw}") as broker:
        common = ["--host", "127.0.0.1", "--port", str(broker.port), "--once", "--json", "--timeout", "10"]
        wrong = run_league(*common, "--username", "league", "--password", "wrong")
        assert wrong.returncode == 1 and wrong.stdout == ""
        assert "refused the connection" in wrong.stderr and "authori" in wrong.stderr.lower()
        pwfile = tmp_path / "league.pw"
        pwfile.write_text("right\n")
        ok = run_league(*common, "--username", "league", "--password-file", str(pwfile))
        assert ok.returncode == 0, ok.stderr
        assert json.loads(ok.stdout)["broker"]["connected"] is True


def test_no_broker_gives_a_clear_error_within_the_timeout(run_league: RunLeague) -> None:
    started = time.monotonic()
    done = run_league("--host", "127.0.0.1", "--port", str(free_port()), "--once", "--timeout", "1.5")
    assert done.returncode == 1
    assert "no connection to the broker at 127.0.0.1" in done.stderr
    assert time.monotonic() - started < 10


def test_bad_options_are_refused_with_exit_2(run_league: RunLeague) -> None:
    for args, message in (
        (["--port", "0"], "--port 0"),
        (["--base", "unolauncher/#"], "--base"),
        (["--cafile", "/nonexistent.pem", "--tls"], "--cafile"),
        (["--password-file", "/nonexistent.pw"], "--password-file"),
    ):
        done = run_league(*args, "--once")
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and "Traceback" not in done.stderr


def test_live_json_mode_streams_a_line_per_change(broker: Mosquitto, tables: TablePublisher) -> None:
    proc = subprocess.Popen(
        [*LEAGUE, "--host", "127.0.0.1", "--port", str(broker.port), "--json", "--interval", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["base"] == "unolauncher"
        tables.state("t1", ["ann", "bob"], {"ann": 0, "bob": 50}, rnd=2)
        for _ in range(100):  # bounded: each line is a changed snapshot
            snap = json.loads(proc.stdout.readline())
            if snap["tables"] and snap["tables"][0]["round"] == 2:
                break
        assert snap["tables"][0]["leader"] == "bob"
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_fixed_client_id_keeps_a_session_so_events_sent_while_away_arrive(
    broker: Mosquitto, tables: TablePublisher
) -> None:
    first = LeagueClient("127.0.0.1", broker.port, client_id="league-view-1")
    first.start()
    assert wait_until(lambda: first.link.subscribed, 10)
    first.stop()  # the view closes (laptop lid shut); its session stays on the broker
    for seq in range(1, 31):
        tables.event("t1", seq)
    again = LeagueClient("127.0.0.1", broker.port, client_id="league-view-1")
    again.start()
    try:
        assert wait_until(lambda: again.snapshot()["totals"]["events"] == 30, 10)
        row = again.snapshot()["tables"][0]
        assert (row["first_seq"], row["last_seq"], row["gaps"]) == (1, 30, 0)
    finally:
        again.stop()
    fresh = LeagueClient("127.0.0.1", broker.port)  # no id: a clean session, nothing queued for it
    fresh.start()
    try:
        assert wait_until(lambda: fresh.link.subscribed, 10)
        time.sleep(0.3)  # a bound: nothing queued for a clean session arrives late either
        assert fresh.snapshot()["totals"]["events"] == 0
    finally:
        fresh.stop()
