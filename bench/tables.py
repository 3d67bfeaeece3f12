#!/usr/bin/env python3
"""Many tables on one broker: N table daemons, one mosquitto on loopback, one observer of every table's events.

For each N in ``--tables`` this benchmark

1. starts one mosquitto (``--broker tuned`` = ``systemd/mosquitto-cafe.conf`` settings, ``default`` = stock limits);
2. starts N ``unolauncher run`` daemons (separate processes, virtual launcher, own journal on disk);
3. starts one **observer** process subscribed to ``unolauncher/+/events`` (QoS 1), which checks every table's
   ``seq`` (lost, duplicated, reordered) and measures each event's latency from its journal time stamp ``ts``
   (set when the daemon journals it, before the fsync) to its arrival (wall clocks of one machine; ``ts`` has
   1 ms resolution);
4. starts one **driver** process: per table a bot plays complete games (UNO Attack, 4 players, target score 100,
   full mode) by sending each command on ``cmd`` and waiting for its ``reply``, at most ``--rate`` commands per
   second per table. The bot picks its moves on a local mirror referee (same seed, same commands → same game);
   hits are ``hit`` commands (the referee's seeded ejection model decides the cards, no 1 s virtual motor run);
5. after ``--seconds`` stops the bots, asks every table for its journal position (``status`` command) and waits
   until the observer has every event up to it. **Lost** = journalled events never received; must be 0.

Run::

    .venv/bin/python bench/tables.py --tables 1,10,50,200 --seconds 20
    .venv/bin/python bench/tables.py --tables 10 --rate 0          # unpaced: as fast as the tables answer
    .venv/bin/python bench/tables.py --tables 50 --seconds 30 --outage 10 --broker default   # league view away 10 s
    .venv/bin/python bench/tables.py --tables 50 --nodelay-shim    # what TCP_NODELAY in the daemon would buy

Figures go to docs/performance.md ("Many tables"). Each daemon is a full Python process (~30-40 MB): on a 2-core
machine the N daemons, not mosquitto, are what saturates first; mosquitto's own CPU share is printed to show how
much headroom the broker has (at a real venue each daemon runs on its own Pi).
"""

from __future__ import annotations

import argparse
import heapq
import json
import multiprocessing as mp
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "controller"))
sys.path.insert(0, str(ROOT / "tests"))  # support.benchstats

from support.benchstats import percentile  # noqa: E402
from support.net import free_port, wait_for_port  # noqa: E402
from unolauncher.bus.client import set_tcp_nodelay  # noqa: E402
from unolauncher.league import SeqTracker  # noqa: E402
from unolauncher.rules.referee import Referee  # noqa: E402

COLORS = ("red", "yellow", "green", "blue")
PLAYERS = ("ann", "bob", "cy", "dee")

# Broker settings compared by --broker. "tuned" mirrors systemd/mosquitto-cafe.conf.
BROKER_SETTINGS = {
    "default": [],
    "tuned": [
        "max_queued_messages 10000",
        "max_inflight_messages 100",
        "set_tcp_nodelay true",
        "max_keepalive 120",
    ],
}


# ---------------------------------------------------------------------------------------------------------------
# bots: complete games, chosen on a mirror referee
# ---------------------------------------------------------------------------------------------------------------


def _candidates(ref: Referee, rng: random.Random) -> list[dict[str, Any]]:
    """Commands worth trying now, best first; the referee refuses the illegal ones without changing anything."""
    st = ref.public_state()
    if st["phase"] == "between":
        return [{"type": "next_round"}]
    if st["phase"] != "playing":
        return []
    players = st["players"]
    pending = st["pending"]
    if pending:
        p = pending.get("player")
        out: list[dict[str, Any]] = [{"type": "choose", "player": p, "color": c} for c in COLORS]
        for t in players:
            if t != p:
                out.append({"type": "choose", "player": p, "target": t})
                out += [{"type": "choose", "player": p, "color": c, "target": t} for c in COLORS]
        return [*out, {"type": "accept", "player": p}, {"type": "challenge", "player": p}]
    if st["owed"]:
        return [{"type": "hit"}]
    cur = st["current"]
    hand = ref.hand(cur) or []
    rng.shuffle(hand)
    others = [t for t in players if t != cur]
    out = [{"type": "uno", "player": cur}] if len(hand) == 2 else []
    for card in hand:
        if card.startswith("wild"):
            out += [
                {"type": "play", "player": cur, "card": card, "color": c, "target": rng.choice(others)} for c in COLORS
            ]
        else:
            out += [
                {"type": "play", "player": cur, "card": card, "target": rng.choice(others)},
                {"type": "play", "player": cur, "card": card},
            ]
    return [*out, {"type": "hit"}, {"type": "draw", "player": cur}, {"type": "pass", "player": cur}]


class GameBot:
    """Yields the accepted commands of successive complete games for one table (deterministic per seed).

    Example::

        bot = GameBot(seed=7)
        first = bot.next_command()  # a new_game
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.ref = Referee()
        self.games = 0
        self.expected_events = 0

    def _new_game(self) -> dict[str, Any]:
        self.games += 1
        return {
            "type": "new_game",
            "ruleset": "attack",
            "players": list(PLAYERS),
            "seed": self.seed * 1000 + self.games,
            "mode": "full",
            "options": {"target_score": 100},
        }

    def next_command(self) -> dict[str, Any]:
        """The next accepted command; a finished (or stuck) game is followed by a new one."""
        if self.games:
            for cmd in _candidates(self.ref, self.rng):
                events = self.ref.handle(cmd)
                if not (events and events[0].get("type") == "rejected"):
                    self.expected_events += len(events)
                    return cmd
        cmd = self._new_game()
        events = self.ref.handle(cmd)
        if events and events[0].get("type") == "rejected":
            raise RuntimeError(f"the referee refused the bot's new_game: {events[0].get('message')}")
        self.expected_events += len(events)
        return cmd


# ---------------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def mqtt_client(name: str, clean: bool = True) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name, protocol=mqtt.MQTTv311, clean_session=clean)
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    return client


# ---------------------------------------------------------------------------------------------------------------
# observer process
# ---------------------------------------------------------------------------------------------------------------


def observer_main(port: int, conn: Any, stop: Any, persistent: bool = False) -> None:
    """Subscribe to every table's events; report seq checks, latencies and a per-second arrival count.

    ``persistent``: a persistent session (clean session off), so the broker queues events while the observer is
    away ("pause" ... "resume"), as a league view with a fixed client id would have.
    """
    trackers: dict[str, SeqTracker] = defaultdict(SeqTracker)
    latencies: list[float] = []
    per_second: dict[int, int] = defaultdict(int)
    online: set[str] = set()
    invalid = [0]
    lock = threading.Lock()

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.time()
        try:
            parts = msg.topic.split("/")
            if parts[2] == "status":
                with lock:
                    (online.add if msg.payload == b"online" else online.discard)(parts[1])
                return
            event = json.loads(msg.payload)
            with lock:
                trackers[parts[1]].add(int(event["seq"]))
                latencies.append(now - float(event["ts"]))
                per_second[int(now)] += 1
        except Exception:
            invalid[0] += 1

    def connect() -> mqtt.Client:
        client = mqtt_client("bench-observer", clean=not persistent)
        client.on_message = on_message
        client.on_connect = lambda c, u, f, r, p: c.subscribe(
            [("unolauncher/+/events", 1), ("unolauncher/+/status", 1)]
        )
        client.connect("127.0.0.1", port)
        set_tcp_nodelay(client.socket())  # the bench's clients send many small packets: no Nagle
        client.loop_start()
        return client

    client = connect()
    conn.send("ready")
    while not stop.is_set():
        if conn.poll(0.1):
            request = conn.recv()
            with lock:
                if request == "online":
                    conn.send(len(online))
                elif request == "pause":
                    client.disconnect()
                    client.loop_stop()
                    conn.send("paused")
                elif request == "resume":
                    client = connect()
                    conn.send("resumed")
                elif request == "last":
                    conn.send({t: tr.last for t, tr in trackers.items()})
                elif request == "result":
                    conn.send(
                        {
                            "tables": {t: tr.to_json() for t, tr in trackers.items()},
                            "latencies": latencies,
                            "per_second": dict(per_second),
                            "invalid": invalid[0],
                        }
                    )
                    break
    client.disconnect()
    client.loop_stop()


# ---------------------------------------------------------------------------------------------------------------
# driver process
# ---------------------------------------------------------------------------------------------------------------


def driver_main(port: int, tables: list[str], rate: float, seconds: float, conn: Any) -> None:
    """Play games on every table: one command in flight per table, at most ``rate`` per second per table."""
    bots = {t: GameBot(seed=i + 1) for i, t in enumerate(tables)}
    lock = threading.Condition()
    due: list[tuple[float, str]] = [(time.monotonic() + random.random() * 0.2, t) for t in tables]
    heapq.heapify(due)
    sent_at: dict[str, float] = {}
    rtts: list[float] = []
    counts = {"sent": 0, "ok": 0, "refused": 0}
    refusals: list[str] = []
    last_seq: dict[str, int] = {}
    status_seq: dict[str, int] = {}
    period = 1.0 / rate if rate > 0 else 0.0

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.monotonic()
        table = msg.topic.split("/")[1]
        try:
            reply = json.loads(msg.payload)
        except ValueError:
            return
        with lock:
            if str(reply.get("id", "")).startswith("status"):
                status_seq[table] = int((reply.get("data") or {}).get("seq", -1))
                lock.notify_all()
                return
            start = sent_at.pop(table, None)
            if start is None:
                return
            rtts.append(now - start)
            if reply.get("ok"):
                counts["ok"] += 1
                last_seq[table] = int(reply.get("seq", 0))
            else:
                counts["refused"] += 1
                if len(refusals) < 5:
                    refusals.append(f"{table}: {reply.get('code')} {reply.get('message')}")
            heapq.heappush(due, (max(now, start + period), table))
            lock.notify_all()

    client = mqtt_client("bench-driver")
    client.on_message = on_message
    client.connect("127.0.0.1", port)
    set_tcp_nodelay(client.socket())  # the bench's clients send many small packets: no Nagle
    client.subscribe("unolauncher/+/reply", qos=1)
    client.loop_start()
    time.sleep(0.3)
    end = time.monotonic() + seconds
    started = time.time()
    ids = 0
    with lock:
        while time.monotonic() < end:
            if not due:
                lock.wait(0.05)
                continue
            when, table = due[0]
            wait = when - time.monotonic()
            if wait > 0:
                lock.wait(min(wait, 0.05))
                continue
            heapq.heappop(due)
            ids += 1
            command = {**bots[table].next_command(), "id": ids}
            sent_at[table] = time.monotonic()
            counts["sent"] += 1
            client.publish(f"unolauncher/{table}/cmd", json.dumps(command), qos=1)
        stopped = time.time()
        # Let the last commands answer, then ask every table where its journal is.
        deadline = time.monotonic() + 15
        while sent_at and time.monotonic() < deadline:
            lock.wait(0.05)
    for t in tables:
        client.publish(f"unolauncher/{t}/cmd", json.dumps({"type": "status", "id": f"status-{t}"}), qos=1)
    with lock:
        deadline = time.monotonic() + 30
        while len(status_seq) < len(tables) and time.monotonic() < deadline:
            lock.wait(0.1)
    client.disconnect()
    client.loop_stop()
    conn.send(
        {
            "counts": counts,
            "refusals": refusals,
            "rtts": rtts,
            "unanswered": len(sent_at),
            "status_seq": status_seq,
            "games": sum(b.games for b in bots.values()),
            "window": [started, stopped],
        }
    )


# ---------------------------------------------------------------------------------------------------------------
# one level
# ---------------------------------------------------------------------------------------------------------------


# Experiment (--nodelay-shim): paho-mqtt 2.2 leaves Nagle's algorithm on, so a daemon that writes a PUBACK and then
# a reply (or several small publishes) waits for the broker's delayed ACK, ~40 ms on Linux. This shim, put on the
# daemons' PYTHONPATH, sets TCP_NODELAY on every socket made by socket.create_connection (which paho uses), to
# show what the fix in the daemon's bus would buy. It changes nothing else.
NODELAY_SHIM = """import socket
_create_connection = socket.create_connection


def create_connection(*args, **kwargs):
    sock = _create_connection(*args, **kwargs)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    return sock


socket.create_connection = create_connection
"""


def daemon_config(table: str, state_dir: Path, port: int) -> str:
    return (
        f'[table]\nid = "{table}"\nstate_dir = "{state_dir}"\n\n'
        f'[broker]\nembedded = false\nhost = "127.0.0.1"\nport = {port}\n\n'
        '[launcher]\nbackend = "virtual"\nallow_rigged = true\n\n'  # the bots seed their games
        "[dashboard]\nenabled = false\n\n[homeassistant]\nenabled = false\n"
    )


def run_level(n: int, args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"bench-tables-{n}-"))
    port = free_port()
    conf = work / "mosquitto.conf"
    conf.write_text(
        "\n".join(
            ["per_listener_settings false", "allow_anonymous true", "persistence false", f"listener {port} 127.0.0.1"]
            + BROKER_SETTINGS[args.broker]
        )
        + "\n"
    )
    broker = subprocess.Popen(
        [shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=(work / "mosquitto.log").open("wb"),
    )
    daemons: list[subprocess.Popen[bytes]] = []
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    obs_conn, obs_child = ctx.Pipe()
    observer = ctx.Process(target=observer_main, args=(port, obs_child, stop, args.outage > 0), daemon=True)
    try:
        wait_for_port(port)
        observer.start()
        assert obs_conn.recv() == "ready"
        tables = [f"t{i:03d}" for i in range(n)]
        env = dict(os.environ)
        if args.nodelay_shim:
            (work / "shim").mkdir()
            (work / "shim" / "sitecustomize.py").write_text(NODELAY_SHIM)
            env["PYTHONPATH"] = str(work / "shim")
        started = time.monotonic()
        for t in tables:
            state = work / t
            state.mkdir()
            cfg = state / "config.toml"
            cfg.write_text(daemon_config(t, state, port))
            log = (state / "daemon.log").open("wb")
            daemons.append(
                subprocess.Popen(
                    [sys.executable, "-m", "unolauncher", "run", "--config", str(cfg)],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=state,
                    env=env,
                )
            )
        online = 0
        deadline = time.monotonic() + 30 + n * 1.0
        while time.monotonic() < deadline:
            obs_conn.send("online")
            online = obs_conn.recv()
            dead = [i for i, p in enumerate(daemons) if p.poll() is not None]
            if dead:
                log_tail = (work / tables[dead[0]] / "daemon.log").read_text(errors="replace")[-800:]
                raise RuntimeError(f"{len(dead)} daemon(s) exited during start-up; the first one's log:\n{log_tail}")
            if online >= n:
                break
            time.sleep(0.2)
        if online < n:
            raise RuntimeError(f"only {online}/{n} tables came online within the start-up limit")
        startup = time.monotonic() - started
        cpu0 = {"broker": cpu_seconds(broker.pid), "daemons": sum(cpu_seconds(p.pid) for p in daemons)}
        t0 = time.monotonic()
        drv_conn, drv_child = ctx.Pipe()
        driver = ctx.Process(target=driver_main, args=(port, tables, args.rate, args.seconds, drv_child), daemon=True)
        driver.start()
        if args.outage > 0:
            # The league view goes away mid-run and comes back: the broker must hold what it missed.
            time.sleep(args.seconds / 3)
            obs_conn.send("pause")
            assert obs_conn.recv() == "paused"
            time.sleep(args.outage)
            obs_conn.send("resume")
            assert obs_conn.recv() == "resumed"
        drv = drv_conn.recv()
        driver.join(10)
        elapsed = time.monotonic() - t0
        cpu1 = {"broker": cpu_seconds(broker.pid), "daemons": sum(cpu_seconds(p.pid) for p in daemons)}
        rss = [rss_mb(p.pid) for p in daemons]
        # Wait until the observer holds every journalled event (bounded).
        want = drv["status_seq"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            obs_conn.send("last")
            last = obs_conn.recv()
            if all(last.get(t, 0) >= s for t, s in want.items()):
                break
            time.sleep(0.2)
        obs_conn.send("result")
        obs = obs_conn.recv()
    finally:
        stop.set()
        for p in daemons:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in daemons:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        broker.terminate()
        broker.wait(10)
        if observer.is_alive():
            observer.terminate()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    lost = duplicates = reordered = 0
    for t, journal_seq in want.items():
        row = obs["tables"].get(t)
        if row is None:
            lost += journal_seq
            continue
        # The observer subscribed before any table existed, so every seq from 1 must have arrived.
        received_unique = row["events"] - row["duplicates"]
        lost += max(0, journal_seq - received_unique)
        duplicates += row["duplicates"]
        reordered += row["reordered"]
    w0, w1 = drv["window"]
    in_window = [c for s, c in obs["per_second"].items() if w0 + 2 <= s < w1 - 1]
    lat_ms = [x * 1000 for x in obs["latencies"]]
    rtt_ms = [x * 1000 for x in drv["rtts"]]
    return {
        "tables": n,
        "broker": args.broker,
        "nodelay_shim": args.nodelay_shim,
        "observer_outage_s": args.outage,
        "rate_per_table": args.rate,
        "seconds": round(w1 - w0, 1),
        "startup_s": round(startup, 1),
        "commands": drv["counts"]["ok"],
        "refused": drv["counts"]["refused"],
        "refusals": drv["refusals"],
        "unanswered": drv["unanswered"],
        "games_started": drv["games"],
        "events": sum(r["events"] for r in obs["tables"].values()),
        "events_per_s_mean": round(sum(in_window) / len(in_window), 1) if in_window else None,
        "events_per_s_median": statistics.median(in_window) if in_window else None,
        "latency_ms_median": round(percentile(lat_ms, 0.5), 2),
        "latency_ms_p99": round(percentile(lat_ms, 0.99), 2),
        "cmd_rtt_ms_median": round(percentile(rtt_ms, 0.5), 2),
        "cmd_rtt_ms_p99": round(percentile(rtt_ms, 0.99), 2),
        "lost": lost,
        "duplicated": duplicates,
        "reordered": reordered,
        "observer_invalid": obs["invalid"],
        "broker_cpu_pct": round(100 * (cpu1["broker"] - cpu0["broker"]) / elapsed, 1),
        "daemons_cpu_pct": round(100 * (cpu1["daemons"] - cpu0["daemons"]) / elapsed, 1),
        "daemon_rss_mb_median": round(statistics.median(rss), 1) if rss else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="1,10,50,200", help="comma-separated table counts (default 1,10,50,200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="driving time per level")
    parser.add_argument("--rate", type=float, default=5.0, help="commands per second per table (0 = unpaced)")
    parser.add_argument("--broker", choices=sorted(BROKER_SETTINGS), default="tuned")
    parser.add_argument(
        "--nodelay-shim", action="store_true", help="experiment: TCP_NODELAY on the daemons' sockets (see NODELAY_SHIM)"
    )
    parser.add_argument(
        "--outage",
        type=float,
        default=0.0,
        help="the observer (persistent session) goes away this many seconds mid-run: shows max_queued_messages",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line per level")
    parser.add_argument("--keep", action="store_true", help="keep the working directories (logs, journals)")
    args = parser.parse_args(argv)
    results = []
    for n in (int(x) for x in args.tables.split(",")):
        shim = ", TCP_NODELAY shim" if args.nodelay_shim else ""
        pace = f"{args.rate:g} cmd/s per table" if args.rate > 0 else "unpaced"
        print(f"--- {n} table(s), broker {args.broker}{shim}, {pace}, {args.seconds:g} s", flush=True)
        try:
            res = run_level(n, args)
        except (RuntimeError, TimeoutError) as exc:
            print(f"stopped at {n} tables: {exc}", flush=True)
            break
        results.append(res)
        print(json.dumps(res) if args.json else "\n".join(f"  {k}: {v}" for k, v in res.items()), flush=True)
    if results:
        print(
            "\n| tables | events/s (mean) | latency median / p99 ms | cmd RTT median / p99 ms | lost | dup | "
            "reordered | broker CPU | daemons CPU | start-up s |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in results:
            print(
                f"| {r['tables']} | {r['events_per_s_mean']} | {r['latency_ms_median']} / {r['latency_ms_p99']} | "
                f"{r['cmd_rtt_ms_median']} / {r['cmd_rtt_ms_p99']} | {r['lost']} | {r['duplicated']} | "
                f"{r['reordered']} | {r['broker_cpu_pct']}% | {r['daemons_cpu_pct']}% | {r['startup_s']} |"
            )
    return 0 if results and all(r["lost"] == r["duplicated"] == r["reordered"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
