"""Hard faults under load: several real daemons on one mosquitto, bots playing on each, then something breaks.

Every test ends with the same proof: each table's observer holds every journalled event (``seq`` 1..last, no gap),
the tables that were not hit by the fault saw no duplicate, and the daemon's state is what its journal replays to.
The daemon helper's suite already covers one daemon with 10,000 bad payloads, 20 SIGKILLs and a 10 s broker
outage; these add load, neighbours, repetition and the faults it does not cover.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path

import pytest
from daemon.game import public

from reliability.helpers import GameDriver, fill, status_with_credentials
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto, add_password
from support.net import wait_until
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

pytestmark = pytest.mark.timeout(150)

NO_HA = {"homeassistant": {"enabled": False}}


@contextmanager
def tables(
    tmp_path: Path, broker: Mosquitto, names: list[str]
) -> Iterator[dict[str, tuple[DaemonProcess, TableClient]]]:
    """Start one daemon per name on ``broker`` and one observer per table; stop all at the end."""
    with ExitStack() as stack:
        out: dict[str, tuple[DaemonProcess, TableClient]] = {}
        for name in names:
            daemon = DaemonProcess(tmp_path / name, table=name, broker_port=broker.port, overrides=NO_HA)
            daemon.start()
            stack.callback(daemon.stop)
            client = stack.enter_context(TableClient("127.0.0.1", broker.port, name, name=f"obs-{name}"))
            out[name] = (daemon, client)
        yield out


def replied_since(client: TableClient, count: int) -> bool:
    """``client`` got a reply after its ``count``-th."""
    return client.reply_count > count


def all_replied_since(tbl: dict[str, tuple[DaemonProcess, TableClient]], counts: dict[str, int]) -> bool:
    """Every table's observer got a reply since ``counts`` were taken."""
    return all(client.reply_count > counts[name] for name, (_, client) in tbl.items())


def journal_of(daemon: DaemonProcess) -> Journal:
    return Journal(daemon.state_dir / "journal.sqlite3")


def assert_complete(client: TableClient, last_seq: int, label: str) -> None:
    """The observer holds events 1..last_seq; if it missed some while reconnecting, ``resend`` fills them in."""
    client.wait_for_seq(last_seq, 10)
    assert client.resend_missing(last_seq)
    assert sorted(client.events) == list(range(1, last_seq + 1)), f"{label}: events not gap-free"
    assert [client.events[s]["seq"] for s in range(1, last_seq + 1)] == list(range(1, last_seq + 1))


def status_seq(client: TableClient) -> int:
    reply = client.command({"type": "status"}, timeout=15)
    assert reply["ok"], reply
    return int(reply["data"]["seq"])


def test_daemon_sigkill_under_load_next_to_busy_neighbours(tmp_path: Path) -> None:
    """Three tables play as fast as they answer; one daemon is SIGKILLed five times and restarted at once.

    Nothing journalled is lost (the outbox republishes what the broker had not acknowledged), the victim's state is
    its journal's replay, and the neighbours never notice (no gap, no duplicate)."""
    with Mosquitto() as broker, tables(tmp_path, broker, ["victim", "n1", "n2"]) as tbl:
        drivers = {name: GameDriver(client, seed=i + 1) for i, (name, (_, client)) in enumerate(tbl.items())}
        for d in drivers.values():
            d.start()
        victim, victim_client = tbl["victim"]
        recoveries: list[float] = []
        try:
            time.sleep(1.0)  # pacing the load: the games are under way before the first kill
            for kill in range(5):  # bounded
                time.sleep(0.4 + 0.2 * kill)  # pacing the faults: kills at growing intervals
                victim.kill()
                killed = time.monotonic()
                victim.start()
                before = victim_client.reply_count
                assert wait_until(partial(replied_since, victim_client, before), 20), "no reply after restart"
                recoveries.append(time.monotonic() - killed)
            time.sleep(1.0)  # pacing the load: the games go on after the last restart
        finally:
            for d in drivers.values():
                d.stop()
        for name, d in drivers.items():
            assert d.errors == [], (name, d.errors)
            assert d.applied > 20, (name, d.applied)
        for name, (daemon, client) in tbl.items():
            last = status_seq(client)
            assert last == drivers[name].seq
            assert_complete(client, last, name)
            if name != "victim":
                assert len(client.arrivals) == len(set(client.arrivals)), f"{name} saw duplicates"
                assert daemon.alive()
        # The victim's published state is its journal's replay and the mirror's state.
        final_seq = drivers["victim"].seq
        assert wait_until(lambda: (victim_client.state or {}).get("seq") == final_seq, 10)
        assert victim_client.state is not None
        assert public(victim_client.state) == drivers["victim"].mirror.public_state()
        dups = len(victim_client.arrivals) - len(set(victim_client.arrivals))
        print(
            f"\nSIGKILL x5 under load: recovery (kill -> first reply) median {statistics.median(recoveries):.2f} s, "
            f"max {max(recoveries):.2f} s; commands applied {[d.applied for d in drivers.values()]}; "
            f"victim duplicates (at-least-once) {dups}; timeouts {[d.timeouts for d in drivers.values()]}"
        )


def test_broker_restarts_and_a_broker_kill_under_load(tmp_path: Path) -> None:
    """mosquitto restarted twice (clean stop, 1 s away) and SIGKILLed once while three tables play: no daemon dies,
    every journalled event reaches its observer (with ``resend`` for what an observer missed while it was away),
    and every table answers again within seconds."""
    with Mosquitto() as broker, tables(tmp_path, broker, ["a", "b", "c"]) as tbl:
        pids = {name: daemon.process.pid for name, (daemon, _) in tbl.items() if daemon.process}
        drivers = {name: GameDriver(client, seed=10 + i) for i, (name, (_, client)) in enumerate(tbl.items())}
        for d in drivers.values():
            d.start()
        recoveries: list[float] = []
        try:
            for outage in ("stop", "kill", "stop"):  # bounded
                time.sleep(1.5)  # pacing the load: play between outages
                broker.stop() if outage == "stop" else broker.kill()
                time.sleep(1.0)  # pacing the fault: the broker stays away a second
                broker.start()
                back = time.monotonic()
                counts = {n: c.reply_count for n, (_, c) in tbl.items()}
                assert wait_until(partial(all_replied_since, tbl, counts), 30)
                recoveries.append(time.monotonic() - back)
            time.sleep(1.0)  # pacing the load: the games go on after the last outage
        finally:
            for d in drivers.values():
                d.stop()
        for name, (daemon, client) in tbl.items():
            assert drivers[name].errors == [], (name, drivers[name].errors)
            assert daemon.alive() and daemon.process is not None and daemon.process.pid == pids[name]
            last = status_seq(client)
            assert last == drivers[name].seq
            assert_complete(client, last, name)
            assert client.state is not None
        print(
            f"\nbroker stop/kill/stop under load: every table answering again {statistics.median(recoveries):.2f} s "
            f"(median) after the broker came back; applied {[d.applied for d in drivers.values()]}, "
            f"driver timeouts {[d.timeouts for d in drivers.values()]}"
        )


def test_disk_full_on_the_state_directory(tmp_path: Path, small_fs: Path) -> None:
    """The journal's filesystem fills up mid-game: every command still gets a reply (refused, saying why), the motor
    stays off, nothing half-written survives, and once space returns the table goes on from what was acknowledged,
    also after a restart."""
    with Mosquitto() as broker:
        daemon = DaemonProcess(tmp_path / "df", table="df", broker_port=broker.port, overrides=NO_HA)
        daemon.state_dir = small_fs / "state"
        daemon.config["table"]["state_dir"] = str(daemon.state_dir)
        daemon.start()
        try:
            with TableClient("127.0.0.1", broker.port, "df", name="obs") as client:
                driver = GameDriver(client, seed=5)
                for _ in range(30):  # a game in progress, all acknowledged
                    step(driver)
                acknowledged = driver.mirror.public_state()
                filler = fill(small_fs)
                refusals = []
                for _ in range(10):  # bounded
                    command = driver._next()
                    try:
                        reply = client.command(command, timeout=5)
                    except TimeoutError:
                        reply = {"ok": None, "code": "no reply"}
                    refusals.append(reply)
                assert all(r["ok"] is False for r in refusals), refusals
                assert all(r["code"] == "journal_error" for r in refusals), refusals
                wording = refusals[0]["message"]
                status = client.command({"type": "status"})
                assert status["data"]["launcher"]["motor_on"] is False
                assert public(status["data"]["state"]) == acknowledged  # no refused command changed the game
                filler.unlink()
                for _ in range(10):
                    step(driver)
                assert daemon.alive()
            daemon.stop()
            with sqlite3.connect(daemon.state_dir / "journal.sqlite3") as db:
                assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            daemon.start()
            with TableClient("127.0.0.1", broker.port, "df", name="obs2") as client:
                status = client.command({"type": "status"})
                assert public(status["data"]["state"]) == driver.mirror.public_state()
                assert status["data"]["seq"] == driver.seq
            assert wording.startswith("The journal's disk is full;"), wording
        finally:
            daemon.stop()


def step(driver: GameDriver) -> None:
    """One move by the driver, synchronously (the driver's own loop, without its thread)."""
    command = driver._next()
    probe = Referee.from_json(driver.mirror.to_json())
    probe.handle(command)
    reply = driver.client.command(command, timeout=10)
    assert reply["ok"], (command, reply)
    driver.mirror, driver.seq = probe, int(reply["seq"])


def test_rejected_credentials_clear_error_backoff_no_crash_loop(tmp_path: Path) -> None:
    """A table with a wrong password: it says why in one line, retries with growing pauses instead of hammering
    the broker or exiting, and connects by itself once the broker accepts the password."""
    pw = tmp_path / "passwd"
    pw.write_text("")
    add_password(pw, "t1", "right")
    pw.chmod(0o644)
    # `user root`: mosquitto started as root drops to the mosquitto user, which cannot read pytest's tmp_path.
    with Mosquitto(extra_config=f"user root\nallow_anonymous false\npassword_file {pw}") as broker:
        broker_settings = {"username": "t1", "password": "wrong", "reconnect_min": 1, "reconnect_max": 4}
        daemon = DaemonProcess(
            tmp_path / "cred", table="t1", broker_port=broker.port, overrides={**NO_HA, "broker": broker_settings}
        )
        daemon.start(wait_mqtt=False)
        try:
            time.sleep(8.0)  # a bound: refused for 8 s (several back-offs), the daemon stays up
            assert daemon.alive(), daemon.log_text()[-2000:]
            log = daemon.log_text()
            refusals = [line for line in log.splitlines() if "refused" in line.lower()]
            assert refusals and "authori" in refusals[0].lower(), log[-2000:]
            connects = broker.log_path.read_text(errors="replace").count("New connection from")
            assert 2 <= connects <= 7, f"{connects} connection attempts in 8 s (back-off 1..4 s expected)"
            # The operator fixes the password file; mosquitto reloads it on SIGHUP; the table gets in by itself.
            add_password(pw, "t1", "wrong")
            assert broker.process is not None
            broker.process.send_signal(signal.SIGHUP)
            fixed = time.monotonic()
            reply = status_with_credentials(broker.port, "t1", "t1", "wrong")
            assert reply["ok"], reply
            print(
                f"\nwrong password: {connects} connection attempts in 8 s, daemon alive, log: {refusals[0].strip()!r}; "
                f"answering {time.monotonic() - fixed:.1f} s after the password was fixed"
            )
        finally:
            daemon.stop()


def test_command_flood_from_a_misbehaving_client(tmp_path: Path) -> None:
    """A client floods one table's ``cmd`` with 20,000 messages (valid, invalid and refused ones, QoS 0, as fast as
    paho sends). The flooded table stays up, answers them all, then answers a normal command again; the
    neighbour on the same broker keeps playing with every event delivered."""
    with Mosquitto() as broker, tables(tmp_path, broker, ["target", "neighbour"]) as tbl:
        target, target_client = tbl["target"]
        _, neighbour_client = tbl["neighbour"]
        neighbour = GameDriver(neighbour_client, seed=21)
        neighbour.start()
        rss_before = target.rss_mb()
        flood = [
            json.dumps({"type": "status"}),
            "{not json",
            json.dumps({"type": "play", "player": "nobody", "card": "red 7"}),
            json.dumps({"type": "hit"}),
            json.dumps({"id": 1, "type": "x" * 1000}),
        ]
        sent = 20_000
        started = time.monotonic()
        try:
            flooder = TableClient("127.0.0.1", broker.port, "target", name="flooder")
            for i in range(sent):  # bounded
                flooder.client.publish("unolauncher/target/cmd", flood[i % len(flood)], qos=0)
            publish_s = time.monotonic() - started
            answered = wait_until(lambda: flooder.reply_count >= sent * 0.99, 90)
            answer_s = time.monotonic() - started
            rss_peak = target.rss_mb()
            flooder.close()
            assert target.alive()
            assert target_client.command({"type": "status"}, timeout=30)["ok"]
        finally:
            neighbour.stop()
        assert answered, f"only {flooder.reply_count} of {sent} commands answered"
        assert neighbour.errors == [] and neighbour.applied > 10
        assert_complete(neighbour_client, status_seq(neighbour_client), "neighbour")
        rtt = sorted(neighbour.rtts)
        print(
            f"\ncommand flood: {sent} QoS 0 commands published in {publish_s:.1f} s, {flooder.reply_count} answered "
            f"after {answer_s:.1f} s; target RSS {rss_before:.0f} -> {rss_peak:.0f} MB; neighbour applied "
            f"{neighbour.applied} commands, RTT median {1000 * statistics.median(rtt):.0f} ms, "
            f"p99 {1000 * rtt[int(0.99 * (len(rtt) - 1))]:.0f} ms"
        )
