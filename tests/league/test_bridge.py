"""Tables on one mosquitto, league on another, joined by a mosquitto bridge on loopback (docs/scaling.md).

The observers use the league's own :class:`LeagueClient`, so "sees every event, gap-free" is checked by the same
sequence tracker the league view runs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from support.fake_tables import TablePublisher
from support.mosquitto import Mosquitto, add_password
from support.net import wait_until
from unolauncher.cli.league import LeagueClient

TABLES = 20
EVENTS_PER_TABLE = 100


def bridge_config(name: str, remote_port: int, local_prefix: str = "", remote_prefix: str = "", auth: str = "") -> str:
    """A venue broker's bridge to the league broker: only state, events and status travel, outwards."""
    remap = f" {local_prefix} {remote_prefix}" if remote_prefix else ""
    pattern = "+/{}" if remote_prefix else "unolauncher/+/{}"
    lines = [
        f"connection {name}",
        f"address 127.0.0.1:{remote_port}",
        f"remote_clientid bridge-{name}",
        "cleansession false",
        "bridge_protocol_version mqttv311",
        *(f"topic {pattern.format(kind)} out 1{remap}" for kind in ("state", "events", "status")),
    ]
    if auth:
        lines.append(auth)
    return "\n".join(lines)


def wait_for_bridge(venue: TablePublisher, observer: LeagueClient, probe_table: str, seen_as: str = "") -> None:
    """Publish a retained status on the venue until the observer on the far side sees it (the bridge is up)."""
    for _ in range(100):  # bounded: ~10 s
        venue.status(probe_table, "online")
        if wait_until(lambda: (seen_as or probe_table) in observer.standings.tables, 0.1):
            return
    raise AssertionError("the bridge never delivered a message")


@contextmanager
def bridged(league_broker: Mosquitto, venue_broker: Mosquitto) -> Iterator[tuple[LeagueClient, TablePublisher]]:
    """An observer on the league broker and a table publisher on the venue broker, once the bridge is up."""
    observer = LeagueClient("127.0.0.1", league_broker.port)
    observer.start()
    venue = TablePublisher(venue_broker.port)
    try:
        assert wait_until(lambda: observer.link.subscribed, 10)
        wait_for_bridge(venue, observer, "probe")
        yield observer, venue
    finally:
        venue.close()
        observer.stop()


def test_an_observer_on_the_league_broker_sees_every_event_of_every_table_gap_free() -> None:
    with Mosquitto() as league_broker:
        venue_broker = Mosquitto(extra_config=bridge_config("venue", league_broker.port))
        with venue_broker, bridged(league_broker, venue_broker) as (observer, venue):
            for t in range(TABLES):
                venue.state(f"t{t:02d}", ["ann", "bob"], {"ann": t, "bob": 0}, rnd=1)
            for seq in range(1, EVENTS_PER_TABLE + 1):  # interleaved, as many live tables would be
                for t in range(TABLES):
                    venue.client.publish(f"unolauncher/t{t:02d}/events", f'{{"type":"play","seq":{seq}}}', qos=1)
            total = TABLES * EVENTS_PER_TABLE
            assert wait_until(lambda: observer.snapshot()["totals"]["events"] >= total, 30), observer.snapshot()[
                "totals"
            ]
            snap = observer.snapshot()
            rows = [row for row in snap["tables"] if row["table"] != "probe"]
            assert len(rows) == TABLES
            for row in rows:
                assert (row["first_seq"], row["last_seq"], row["events"]) == (1, EVENTS_PER_TABLE, EVENTS_PER_TABLE)
                assert (row["gaps"], row["duplicates"], row["reordered"]) == (0, 0, 0), row
                assert row["players"] == ["ann", "bob"]
            assert snap["totals"]["invalid"] == 0


def _passwd(path: Path, users: dict[str, str]) -> None:
    path.write_text("")
    for user, password in users.items():
        add_password(path, user, password)
    path.chmod(0o644)


def test_two_venues_feed_one_league_and_cannot_write_into_each_other(tmp_path: Path) -> None:
    """Each venue's bridge logs in as the venue and may only write under venues/<its name>/ (ACL pattern %u)."""
    pw, acl = tmp_path / "passwd", tmp_path / "acl"
    _passwd(pw, {"paris": "pp", "lyon": "ll", "league": "lg"})
    acl.write_text("pattern write venues/%u/unolauncher/#\n\nuser league\ntopic read venues/+/unolauncher/#\n")
    acl.chmod(0o644)
    # `user root`: mosquitto started as root drops to the mosquitto user, which cannot read pytest's tmp_path.
    central_conf = f"user root\nallow_anonymous false\npassword_file {pw}\nacl_file {acl}"
    with Mosquitto(extra_config=central_conf) as central:
        venues = {}
        observers = []
        try:
            for name, password in (("paris", "pp"), ("lyon", "ll")):
                auth = f"remote_username {name}\nremote_password {password}"
                conf = bridge_config(name, central.port, "unolauncher/", f"venues/{name}/unolauncher/", auth)
                venues[name] = Mosquitto(extra_config=conf)
                venues[name].start()
            observer = LeagueClient(
                "127.0.0.1", central.port, base="venues/+/unolauncher", username="league", password="lg"
            )
            observers.append(observer)
            observer.start()
            assert wait_until(lambda: observer.link.subscribed, 10)
            pubs = {name: TablePublisher(broker.port) for name, broker in venues.items()}
            try:
                for name, pub in pubs.items():
                    wait_for_bridge(pub, observer, "probe", seen_as=f"{name}/probe")
                for name, pub in pubs.items():
                    pub.state("t1", ["ann", "bob"], {"ann": 100 if name == "paris" else 0, "bob": 10})
                    for seq in range(1, 51):
                        pub.event("t1", seq)
                assert wait_until(lambda: observer.snapshot()["totals"]["events"] >= 100, 20)
                rows = {row["table"]: row for row in observer.snapshot()["tables"]}
                assert {"paris/t1", "lyon/t1"} <= set(rows)
                for key in ("paris/t1", "lyon/t1"):
                    assert (rows[key]["events"], rows[key]["gaps"], rows[key]["duplicates"]) == (50, 0, 0)
                assert rows["paris/t1"]["leader"] == "ann" and rows["lyon/t1"]["leader"] == "bob"
                ranking = {r["player"]: r for r in observer.snapshot()["ranking"]}
                assert ranking["ann"]["tables"] == 2 and ranking["ann"]["points"] == 100

                # A client holding paris's credentials tries to write into lyon's tree: refused (MQTT 5 PUBACK 0x87)
                # and never seen by the league.
                rogue = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="rogue", protocol=mqtt.MQTTv5)
                rogue.username_pw_set("paris", "pp")
                acks: list[int] = []
                rogue.on_publish = lambda c, u, mid, reason, props: acks.append(reason.value)
                rogue.connect("127.0.0.1", central.port)
                rogue.loop_start()
                try:
                    info = rogue.publish("venues/lyon/unolauncher/t1/events", '{"type":"play","seq":51}', qos=1)
                    info.wait_for_publish(5)
                    own = rogue.publish("venues/paris/unolauncher/t9/events", '{"type":"play","seq":1}', qos=1)
                    own.wait_for_publish(5)
                    assert wait_until(lambda: len(acks) == 2, 5)
                    assert acks[0] == 0x87, acks  # not authorised
                    assert acks[1] == 0x00, acks
                    assert wait_until(lambda: "paris/t9" in observer.standings.tables, 5)
                    # The paris write arrived after the lyon one, so the refused lyon event would have arrived by now.
                    assert observer.standings.tables["lyon/t1"].seq.count == 50
                finally:
                    rogue.disconnect()
                    rogue.loop_stop()
            finally:
                for pub in pubs.values():
                    pub.close()
        finally:
            for o in observers:
                o.stop()
            for broker in venues.values():
                broker.__exit__(None, None, None)  # stop and remove its temporary directory


def test_uplink_outage_the_venue_broker_queues_for_the_league() -> None:
    """The league broker goes away for 3 s while the venue's tables keep publishing: the venue broker queues the
    bridge's QoS 1 messages (``cleansession false``) and delivers them when the bridge is back — the observer on the
    league broker ends with every event of every table, in order."""
    with Mosquitto() as league_broker:
        # The bridge retries every 5 s, the observer after 1 s then 2 s: the observer is subscribed again before
        # the queued messages arrive (the league broker runs without persistence, so its sessions restart empty).
        conf = bridge_config("venue", league_broker.port) + "\nrestart_timeout 5"
        with Mosquitto(extra_config=conf) as venue_broker, bridged(league_broker, venue_broker) as (observer, venue):
            seq = dict.fromkeys(range(5), 0)

            def publish(rounds: int) -> None:
                for _ in range(rounds):
                    for t in seq:
                        seq[t] += 1
                        venue.client.publish(f"unolauncher/t{t}/events", f'{{"type":"play","seq":{seq[t]}}}', qos=1)

            publish(40)
            assert wait_until(lambda: observer.snapshot()["totals"]["events"] >= 200, 10)
            league_broker.stop()
            assert wait_until(lambda: not observer.link.connected, 5)
            publish(100)  # 500 events while the uplink is down
            time.sleep(1.0)  # pacing the fault: the uplink stays down while the venue broker queues
            league_broker.start()
            assert wait_until(lambda: observer.link.subscribed, 15)
            publish(20)
            total = sum(seq.values())
            assert wait_until(lambda: observer.snapshot()["totals"]["events"] >= total, 30), observer.snapshot()[
                "totals"
            ]
            for t in seq:
                row = observer.standings.tables[f"t{t}"].seq
                assert (row.first, row.last, row.gaps, row.reordered) == (1, seq[t], 0, 0)
