"""Daemon benchmark: press → event latency over mosquitto, start-up time to READY, resident memory.

    .venv/bin/python bench/daemon.py [--presses 300] [--state-dir-on-tmpfs]

1. **Press → event**: an in-process daemon (the real ``Daemon`` class: virtual launcher, SQLite journal with fsync,
   outbox publisher, paho) connected to mosquitto on loopback; a paho subscriber in a separate process (like a
   phone) on ``events``. Time from ``press_button()`` (the button edge) to the subscriber receiving the ``press``
   event, both read on the shared monotonic clock. Side by side in the same run, alternated one for one with the
   presses (so both see the same machine load): a bare paho QoS 1 publish → receive round trip through the same
   broker to the same kind of subscriber process, a bare fsync'd two-row commit, and the floor pipeline — from a
   hand-off and from a gpiozero edge (:class:`FloorPipeline`).
   With ``--legs`` the same run also times each leg of that path, by wrapping the seams between them (below).
2. **Command → reply by client kind** (issue 16): ``unolauncher run`` as a subprocess, once with its embedded
   amqtt broker and once on mosquitto (TCP and WebSocket listeners). A client process holds four paho clients —
   TCP and WebSocket, each with paho's default socket options (Nagle on, as Home Assistant) and with TCP_NODELAY
   (as a browser) — and, alternating kind by kind in the same loop, times a ``status`` command → its reply and a
   bare QoS 1 publish → receive of the same client through the same broker (it subscribes to its own topic).
   Each sample follows the previous one by 5 ms, as commands from a dashboard can.
3. **Start-up and memory**: ``unolauncher run`` as a subprocess with a fake ``NOTIFY_SOCKET``: time from spawn to
   ``READY=1``; its RSS idle (1 s after READY) and after a few hundred commands, with the embedded broker and on
   mosquitto, next to the RSS of a bare ``python -c "import gpiozero, paho.mqtt.client"`` and of three floors, each
   a process idle for 1 s: the embedded broker started (:data:`BROKER_FLOOR`), that + what any daemon on these parts
   holds before its own code (:data:`INFRASTRUCTURE_FLOOR`), and that + the daemon's modules imported, nothing of
   them started (:data:`DAEMON_MODULES`).

Targets (issue 16): command → reply on the embedded broker, default client ≤ 1.3x a TCP_NODELAY client, and a
TCP_NODELAY client ≤ 2.5x a bare round trip through the same broker; daemon RSS idle with the embedded broker
≤ 1.35x the bare import's. Press → event (issue 4, measured on mosquitto): see docs/performance.md.
"""

from __future__ import annotations

import argparse
import itertools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from support.benchstats import percentile  # noqa: E402
from support.daemon import DaemonProcess, running_daemon  # noqa: E402
from support.mosquitto import Mosquitto  # noqa: E402
from support.net import wait_until  # noqa: E402
from unolauncher.bus.client import set_tcp_nodelay  # noqa: E402


class Stamps:
    """Arrival times of messages by a key, from a paho subscriber thread."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.cond = threading.Condition()

    def put(self, key: str, when: float) -> None:
        with self.cond:
            self.times[key] = when
            self.cond.notify_all()

    def wait(self, key: str, timeout: float = 5.0) -> float:
        with self.cond:
            if not self.cond.wait_for(lambda: key in self.times, timeout):
                raise TimeoutError(key)
            return self.times[key]


class Legs:
    """``--legs``: when each seam of the press → event path is first passed, per press (monotonic clock).

    The seams, in path order: the press is claimed (``PressGate.claim`` returns: the table's published snapshot
    of the referee's next plan is taken), the motor is on if the plan fires and the worker is woken to record the
    press (``PressGate.started``), the table's worker starts applying and journalling (``Table._journal_pending``
    with records waiting), the journal transaction is committed (``Journal.append_batch`` returns), the event is
    handed to paho (``Client.publish`` returns, on the worker), paho writes the event's packet to its socket
    (``Client._sock_send``, on paho's network thread); the last leg ends at the subscriber. Wrapping costs a few
    microseconds per seam.
    """

    NAMES = (
        "edge → claimed",
        "→ motor on, handed over",
        "→ worker journals",
        "→ committed",
        "→ handed to paho",
        "→ packet sent",
        "→ subscriber",
    )

    def __init__(self) -> None:
        self.marks: list[float] = []
        self.samples: list[list[float]] = []

    def install(self) -> None:
        from unolauncher.daemon.press_gate import PressGate
        from unolauncher.daemon.table import Table
        from unolauncher.store.journal import Journal

        marks = self.marks

        def at(cls: Any, name: str, seam: int, before: bool = False, when: Any = None) -> None:
            original = getattr(cls, name)

            def wrapped(obj: Any, *args: Any, **kwargs: Any) -> Any:
                if before and len(marks) == seam and (when is None or when(obj, *args)):
                    marks.append(time.monotonic())
                result = original(obj, *args, **kwargs)
                if not before and len(marks) == seam and (when is None or when(obj, *args)):
                    marks.append(time.monotonic())
                return result

            setattr(cls, name, wrapped)

        at(PressGate, "claim", 1)
        at(PressGate, "started", 2, before=True)
        at(Table, "_journal_pending", 3, before=True, when=lambda obj: bool(obj._unjournalled))
        at(Journal, "append_batch", 4)
        at(mqtt.Client, "publish", 5, when=lambda obj, topic, *rest: topic.endswith("/events"))
        at(mqtt.Client, "_sock_send", 6, before=True, when=lambda obj, buf: b"/events" in bytes(buf[:64]))

    def start(self, t0: float) -> None:
        self.marks[:] = [t0]

    def finish(self, received: float) -> None:
        if len(self.marks) == len(self.NAMES):
            points = [*self.marks, received]
            self.samples.append([b - a for a, b in itertools.pairwise(points)])

    def report(self) -> None:
        print(f"  legs (medians of {len(self.samples)} presses):")
        for name, values in zip(self.NAMES, zip(*self.samples, strict=True), strict=True):
            print(f"    {name:<26} {statistics.median(values) * 1000:.3f} ms")


SUBSCRIBER = r"""
import json, sys, time
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
port, topic = int(sys.argv[1]), sys.argv[2]
count = 0
def on_message(client, userdata, message):
    global count
    now = time.monotonic()
    payload = message.payload
    if topic.endswith("/events"):
        event = json.loads(payload)
        if event["type"] not in ("press", "ignored_press", "lockout", "press_refused"):
            return
        count += 1
        key = f"press:{count}"
    else:
        key = payload.decode()
    sys.stdout.write(f"{key} {now}\n")
    sys.stdout.flush()
client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-sub-" + topic.replace("/", "-"))
client.on_message = on_message
client.on_subscribe = lambda *a: (sys.stdout.write("subscribed 0\n"), sys.stdout.flush())
client.connect("127.0.0.1", port)
client.subscribe(topic, qos=1)
client.loop_forever()
"""


class Subscriber:
    """A paho subscriber in its own process (like a phone): arrival times on the shared monotonic clock."""

    def __init__(self, port: int, topic: str) -> None:
        self.stamps = Stamps()
        self.process = subprocess.Popen(
            [sys.executable, "-c", SUBSCRIBER, str(port), topic], stdout=subprocess.PIPE, text=True
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stamps.wait("subscribed", 10)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            key, when = line.split()
            self.stamps.put(key, float(when))

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(5)


class BarePair:
    """The baseline: a bare paho publisher (threaded loop, as the daemon's) and a subscriber process."""

    def __init__(self, port: int) -> None:
        self.sub = Subscriber(port, "bench/bare")
        self.pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-pub")
        self.pub.connect("127.0.0.1", port)
        self.pub.loop_start()
        self.sent = 0

    def round_trip(self) -> float:
        """One QoS 1 publish → receive, in seconds."""
        self.sent += 1
        t0 = time.monotonic()
        self.pub.publish("bench/bare", str(self.sent), qos=1)
        return self.sub.stamps.wait(str(self.sent)) - t0

    def close(self) -> None:
        self.pub.disconnect()
        self.pub.loop_stop()
        self.sub.close()


def nodelay_on_open(client: mqtt.Client, userdata: object, sock: object) -> None:
    """paho ``on_socket_open``: Nagle off on the client's own socket too, as a phone's WebSocket client has."""
    set_tcp_nodelay(sock)


CLIENT_KINDS = ("tcp default", "tcp nodelay", "ws default", "ws nodelay")

CLIENTS = r"""
import json, socket, sys, threading, time
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from unolauncher.bus.client import set_tcp_nodelay
port, ws_port, table, count = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
kinds = json.loads(sys.argv[5])
BLOCK = 10
clients = {}
for n, kind in enumerate(kinds):
    transport, options = kind.split()
    got, acked = threading.Event(), threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-kind-{n}",
                    transport="websockets" if transport == "ws" else "tcp")
    if transport == "ws":
        c.ws_set_options(path="/mqtt")
    if options == "nodelay":
        c.on_socket_open = lambda cl, u, sock: set_tcp_nodelay(sock)
    c.on_message = lambda cl, u, m, got=got: got.set()
    c.on_subscribe = lambda *a, acked=acked: acked.set()
    c.on_unsubscribe = lambda *a, acked=acked: acked.set()
    c.connect("127.0.0.1", ws_port if transport == "ws" else port)
    c.loop_start()
    acked.clear()
    c.subscribe(f"bench/bare/{n}", 1)
    assert acked.wait(10)
    clients[kind] = (c, got, acked, n)
samples = {kind: {"reply": [], "bare": []} for kind in kinds}
def timed(client, got, topic, payload):
    got.clear()
    t0 = time.monotonic()
    client.publish(topic, payload, qos=1)
    ok = got.wait(2)
    took = time.monotonic() - t0
    time.sleep(0.005)
    return took if ok else None
def subscription(client, acked, change, *args):
    acked.clear()
    change(*args)
    assert acked.wait(10)
    time.sleep(0.005)
i = 0
while i < count:
    # Kind after kind in blocks; only the client whose turn it is subscribes to the replies (one receiver, as
    # in the bare round trip: no fan-out cost on one kind's side only).
    for kind in kinds:
        c, got, acked, n = clients[kind]
        subscription(c, acked, c.subscribe, f"unolauncher/{table}/reply", 1)
        for j in range(i, min(i + BLOCK, count)):
            command = json.dumps({"id": j, "type": "status"})
            for what, topic, payload in (("bare", f"bench/bare/{n}", "x"),
                                         ("reply", f"unolauncher/{table}/cmd", command)):
                took = timed(c, got, topic, payload)
                if took is not None:
                    samples[kind][what].append(took)
        subscription(c, acked, c.unsubscribe, f"unolauncher/{table}/reply")
    i += BLOCK
for c, *_ in clients.values():
    c.disconnect(); c.loop_stop()
print(json.dumps(samples))
"""


def replies_by_client_kind(port: int, ws_port: int, table: str, count: int) -> dict[str, dict[str, list[float]]]:
    """{kind: {"reply": command → reply samples, "bare": publish → receive samples}}, from one client process."""
    import json

    out = subprocess.run(
        [sys.executable, "-c", CLIENTS, str(port), str(ws_port), table, str(count), json.dumps(CLIENT_KINDS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    samples: dict[str, dict[str, list[float]]] = json.loads(out.splitlines()[-1])
    return samples


def report_client_kinds(broker: str, samples: dict[str, dict[str, list[float]]]) -> None:
    ms = 1000
    med = {kind: (statistics.median(v["reply"]), statistics.median(v["bare"])) for kind, v in samples.items()}
    print(f"command -> reply (status) by client kind, {broker} ({len(samples['tcp default']['reply'])} each):")
    for kind, (reply, bare) in med.items():
        p99 = percentile(samples[kind]["reply"], 0.99)
        print(
            f"  {kind:12} reply median {reply * ms:7.3f} ms (p99 {p99 * ms:7.3f}); bare round trip {bare * ms:7.3f} ms;"
            f" reply/bare {reply / bare:5.2f}x"
        )
    for transport in ("tcp", "ws"):
        default, nodelay = med[f"{transport} default"][0], med[f"{transport} nodelay"][0]
        print(f"  {transport}: default client / nodelay client {default / nodelay:.2f}x (target <= 1.3x on embedded)")


def embedded_ws_port(daemon: DaemonProcess) -> int:
    return int(str(daemon.endpoints["ws_url"]).rsplit(":", 1)[1].split("/")[0])


def press_to_event(port: int, count: int, workdir: Path, legs: Legs | None = None) -> dict[str, list[float]]:
    """Press → event samples, each press alternated with one sample of each floor (:data:`FLOORS`), so that all of
    them see the same moments and the same load. Returns the samples by name (``"daemon"`` and the floors)."""
    overrides: dict[str, dict[str, Any]] = {
        "table": {"lockout": False},
        "launcher": {"preset": "gentle"},
        "homeassistant": {"enabled": False},
    }
    unanswered, bounces = 0, None
    samples: dict[str, list[float]] = {"daemon": [], **{name: [] for name in FLOORS}}
    with running_daemon(workdir, "bench", broker_port=port, overrides=overrides) as daemon:
        launcher = daemon.launcher
        assert launcher is not None
        assert daemon.bus is not None and daemon.bus.subscribed.wait(10)
        table, virtual = daemon.table, daemon.virtual
        assert table is not None and virtual is not None
        sub = Subscriber(port, "unolauncher/bench/events")
        table.submit_command({"type": "new_game", "ruleset": "attack", "players": ["a", "b", "c"], "seed": 3})
        bare = BarePair(port)
        commit = BareCommit(workdir, "FULL")
        pipelines: dict[str, FloorPipeline] = {}  # FLOORS[2:], made from the daemon's first press
        index = 1
        try:
            for _ in range(count):
                if not wait_until(lambda: table.idle() and not launcher.status().running, 10, 0.002):
                    raise RuntimeError("the table did not settle after the last press")
                if not pipelines and index > 1:  # the daemon's own first press record and event as its template
                    template = last_press_record(table.journal)
                    pipelines[FLOORS[2]] = FloorPipeline(port, workdir, *template)
                    pipelines[FLOORS[3]] = FloorPipeline(port, workdir, *template, gpiozero_edge=True)
                time.sleep(0.025)
                samples[FLOORS[0]].append(bare.round_trip())
                time.sleep(0.025)
                samples[FLOORS[1]].append(commit.once())
                for name, floor in pipelines.items():
                    time.sleep(0.025)
                    samples[name].append(floor.press())
                time.sleep(0.025)  # >= 75 ms since the last press: longer than the button debounce
                t0 = time.monotonic()
                if legs is not None:
                    legs.start(t0)
                virtual.press_button()
                try:
                    received = sub.stamps.wait(f"press:{index}", 1.0)
                except TimeoutError:
                    unanswered += 1  # taken for contact bounce by the launcher's debounce: no event at all
                    continue
                samples["daemon"].append(received - t0)
                if legs is not None:
                    legs.finish(received)
                index += 1
        finally:
            bare.close()
            commit.close()
            for floor in pipelines.values():
                floor.close()
                if legs is not None:
                    floor.report()
            sub.close()
            bounces = launcher.status().extra.get("bounces")
    if unanswered:
        print(f"({unanswered} presses produced no event; launcher debounce counted {bounces} bounces)")
    return samples


FLOORS = ("bare paho round trip", "bare fsync'd two-row commit", "floor pipeline", "floor pipeline, gpiozero edge")


def last_press_record(journal: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The newest ``pressed`` command and ``press`` event in the daemon's journal (without ``seq``/``ts``)."""
    entries = journal.entries()
    command = next(body for _, kind, _, body in reversed(entries) if kind == "command" and body["type"] == "pressed")
    event = next(body for _, kind, _, body in reversed(entries) if kind == "event" and body["type"] == "press")
    return command, {k: v for k, v in event.items() if k not in ("seq", "ts")}


class FloorPipeline:
    """The floor of this design, not the daemon: the least any daemon that journals before it publishes does between
    a button edge and the event at a subscriber. The caller's thread (the edge) hands the press to a worker thread
    (``queue.Queue``); the worker writes the daemon's own ``pressed`` command and ``press`` event (copies) with the
    strict codec into the journal's schema — command, event and outbox rows in one fsync'd transaction — and hands the
    event to paho (``loop_start`` thread, TCP_NODELAY, QoS 1) → the broker → a subscriber process. No referee, no
    ejection plan, no launcher, no retained state: what is left is the design's cost, the daemon's code is not in it.

    With ``gpiozero_edge`` the press starts one step earlier, where the daemon's does: a falling edge driven on a
    gpiozero mock pin, read by a ``DigitalInputDevice`` (pull-up, no bounce time, as the launcher's button) whose
    ``when_activated`` hands the press over — the least any daemon that reads its button through gpiozero does."""

    def __init__(
        self, port: int, directory: Path, command: dict[str, Any], event: dict[str, Any], gpiozero_edge: bool = False
    ) -> None:
        import queue
        import sqlite3

        from unolauncher import strict_json
        from unolauncher.store.journal import SCHEMA

        name = "floor-edge" if gpiozero_edge else "floor"
        self.topic = f"bench/{name}/events"
        self.dumps = strict_json.dumps
        self.command, self.event = command, event
        self.db = sqlite3.connect(str(directory / f"{name}-pipeline.db"), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)
        self.sub = Subscriber(port, self.topic)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{name}")
        self.client.on_socket_open = nodelay_on_open
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.queue: queue.Queue[int | None] = queue.Queue()
        self.worker = threading.Thread(target=self._work, daemon=True)
        self.worker.start()
        self.seq = 0
        self.marks: list[float] = []  # this press: (edge,) queued, worker started, committed, handed to paho
        self.legs: list[list[float]] = []
        self.button: Any = None
        if gpiozero_edge:
            from gpiozero import DigitalInputDevice
            from gpiozero.pins.mock import MockFactory

            factory = MockFactory()
            self.button = DigitalInputDevice(17, pull_up=True, bounce_time=None, pin_factory=factory)
            self.button.when_activated = self._pressed

    def _pressed(self) -> None:
        self.marks.append(time.monotonic())
        self.queue.put(self.seq)

    def _work(self) -> None:
        while (seq := self.queue.get()) is not None:
            self.marks.append(time.monotonic())
            now = time.time()
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT INTO journal (kind, ts, body) VALUES ('command', ?, ?)", (now, self.dumps(self.command))
            )
            body = self.dumps({**self.event, "seq": seq, "ts": round(now, 3)})
            self.db.execute("INSERT INTO journal (kind, seq, ts, body) VALUES ('event', ?, ?, ?)", (seq, now, body))
            self.db.execute("INSERT INTO outbox (seq) VALUES (?)", (seq,))
            self.db.execute("COMMIT")
            self.marks.append(time.monotonic())
            self.client.publish(self.topic, body, qos=1)
            self.marks.append(time.monotonic())

    def press(self) -> float:
        """One press → event at the subscriber, in seconds."""
        self.seq += 1
        t0 = time.monotonic()
        self.marks[:] = [t0]
        if self.button is not None:
            self.button.pin.drive_low()  # pressed: the switch pulls the line to ground
        else:
            self.queue.put(self.seq)
        received = self.sub.stamps.wait(f"press:{self.seq}")
        if self.button is not None:
            self.button.pin.drive_high()  # released, after the event: not on the path
        if len(self.marks) == len(self.names()):
            self.legs.append([b - a for a, b in itertools.pairwise([*self.marks, received])])
        return received - t0

    def names(self) -> tuple[str, ...]:
        names = ("→ worker journals", "→ committed", "→ handed to paho", "→ subscriber")
        return ("edge → handed over (gpiozero)", *names) if self.button is not None else names

    def report(self) -> None:
        edge = ", gpiozero edge" if self.button is not None else ""
        print(f"  floor pipeline{edge} legs (medians of {len(self.legs)}):")
        for name, values in zip(self.names(), zip(*self.legs, strict=True), strict=True):
            print(f"    {name:<26} {statistics.median(values) * 1000:.3f} ms")

    def close(self) -> None:
        self.queue.put(None)
        self.worker.join(5)
        self.client.disconnect()
        self.client.loop_stop()
        self.sub.close()
        self.db.close()
        if self.button is not None:
            self.button.close()


class BareCommit:
    """The floor of the journal leg: a bare SQLite WAL transaction of two small inserts (like one event and its
    outbox row), no daemon code, on the journal's file system."""

    def __init__(self, directory: Path, synchronous: str) -> None:
        import sqlite3

        self.db = sqlite3.connect(str(directory / f"floor-{synchronous}.db"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={synchronous}")
        self.db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, body TEXT)")
        self.db.execute("CREATE TABLE outbox (seq INTEGER PRIMARY KEY)")
        self.seq = 0

    def once(self) -> float:
        """One transaction, in seconds."""
        self.seq += 1
        t0 = time.monotonic()
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("INSERT INTO journal VALUES (?, ?)", (self.seq, "x" * 200))
        self.db.execute("INSERT INTO outbox VALUES (?)", (self.seq,))
        self.db.execute("COMMIT")
        return time.monotonic() - t0

    def close(self) -> None:
        self.db.close()


def vm_rss_kib(proc_status: str) -> int:
    """The resident set size (KiB) from the text of a ``/proc/<pid>/status``."""
    for line in proc_status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


UNIT_FILE = Path(__file__).resolve().parent.parent / "systemd" / "unolauncher.service"


def unit_environment() -> dict[str, str]:
    """``--unit-env``: the shipped systemd unit's ``Environment=`` settings that change how the process runs (its
    directory settings, absolute paths, left out), for the daemon and the floors that stand for it."""
    env = {}
    for line in UNIT_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("Environment="):
            name, _, value = line.removeprefix("Environment=").partition("=")
            if not value.startswith("/"):
                env[name] = value
    return env


def with_env(extra: dict[str, str]) -> dict[str, str] | None:
    return {**os.environ, **extra} if extra else None


def bare_import_rss() -> int:
    code = "import gpiozero, paho.mqtt.client; print(open('/proc/self/status').read())"
    return vm_rss_kib(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


BROKER_FLOOR = """
import time, gpiozero, paho.mqtt.client, sqlite3
from unolauncher.bus.broker import EmbeddedBroker
broker = EmbeddedBroker(port=0, ws_port=0)
broker.start()
time.sleep(1.0)
print(open('/proc/self/status').read())
broker.stop()
"""


def embedded_broker_floor_rss(env: dict[str, str]) -> int:
    """The floor of a daemon with the embedded broker: the bare import, sqlite3 (the journal) and the embedded
    broker started and idle for 1 s, with no daemon at all."""
    out = subprocess.run(
        [sys.executable, "-c", BROKER_FLOOR], capture_output=True, text=True, check=True, env=with_env(env)
    ).stdout
    return vm_rss_kib(out)


# BROKER_FLOOR plus what any daemon on these parts holds before its own code: the command line and TOML parsers
# (``unolauncher run`` reads both at start), an SQLite database open in WAL mode with a committed row, and a paho
# client connected to the broker with its network thread running. ``{imports}``: nothing, or the daemon's modules.
INFRASTRUCTURE_FLOOR = """
import os, sys, time, argparse, tomllib, gpiozero, paho.mqtt.client, sqlite3
from paho.mqtt.enums import CallbackAPIVersion
from unolauncher.bus.broker import EmbeddedBroker
{imports}
broker = EmbeddedBroker(port=0, ws_port=0)
broker.start()
db = sqlite3.connect(os.path.join(sys.argv[1], "floor.sqlite3"), isolation_level=None)
db.execute("PRAGMA synchronous=FULL")
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, body TEXT)")
db.execute("INSERT INTO events (body) VALUES ('{{}}')")
client = paho.mqtt.client.Client(CallbackAPIVersion.VERSION2)
client.connect("127.0.0.1", broker.port)
client.loop_start()
deadline = time.monotonic() + 10
while not client.is_connected() and time.monotonic() < deadline:
    time.sleep(0.01)
assert client.is_connected(), "the floor's client did not connect"
time.sleep(1.0)
print(open('/proc/self/status').read())
client.loop_stop()
broker.stop()
"""
# What the daemon measured here has imported once started: `unolauncher run`'s modules, and the simulated toy that
# its virtual launcher builds at start (tests/daemon/test_startup_imports.py checks what it must not import).
DAEMON_MODULES = "import unolauncher.cli.run, unolauncher.daemon.app, unolauncher.launcher.backends.virtual.toy"


def infrastructure_floor_rss(workdir: Path, with_daemon_code: bool, env: dict[str, str]) -> int:
    """:data:`INFRASTRUCTURE_FLOOR` idle for 1 s: without the daemon's code (the floor that leaves the daemon's own
    code what is left under a target), or with every module the daemon imports, imported and nothing of it started
    (the idle daemon minus this is what running costs: threads, state, start-up transients)."""
    workdir.mkdir(parents=True, exist_ok=True)
    code = INFRASTRUCTURE_FLOOR.format(imports=DAEMON_MODULES if with_daemon_code else "")
    out = subprocess.run(
        [sys.executable, "-c", code, str(workdir)], capture_output=True, text=True, check=True, env=with_env(env)
    ).stdout
    return vm_rss_kib(out)


class DaemonRun:
    """``run_daemon``'s figures for one broker set-up."""

    def __init__(self, ready: float, rss_idle: int, rss_after: int, replies: dict[str, dict[str, list[float]]]):
        self.ready, self.rss_idle, self.rss_after, self.replies = ready, rss_idle, rss_after, replies


def run_daemon(broker: Mosquitto | None, workdir: Path, replies: int, env: dict[str, str]) -> DaemonRun:
    """``unolauncher run`` on mosquitto (``broker``) or with its embedded broker (None): time to READY, RSS idle 1 s
    after READY, command → reply by client kind, RSS after those commands."""
    workdir.mkdir(parents=True, exist_ok=True)
    notify = workdir / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(notify))
        sock.settimeout(60)
        daemon = DaemonProcess(
            workdir,
            table="benchrss",
            broker_port=broker.port if broker else None,
            overrides={"homeassistant": {"enabled": False}},
            env={"NOTIFY_SOCKET": str(notify), **env},
        )
        t0 = time.perf_counter()
        daemon.start(wait_mqtt=True)
        while not sock.recv(4096).startswith(b"READY=1"):
            pass
        ready = time.perf_counter() - t0
        try:
            assert daemon.process is not None
            status = Path(f"/proc/{daemon.process.pid}/status")
            time.sleep(1.0)
            rss_idle = vm_rss_kib(status.read_text())
            port = broker.port if broker else daemon.mqtt_port
            ws_port = (broker.ws_port or 0) if broker else embedded_ws_port(daemon)
            samples = replies_by_client_kind(port, ws_port, "benchrss", replies)
            rss_after = vm_rss_kib(status.read_text())
        finally:
            daemon.stop()
    return DaemonRun(ready, rss_idle, rss_after, samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=300, help="0: skip press -> event")
    parser.add_argument("--replies", type=int, default=100, help="command -> reply samples per client kind and broker")
    parser.add_argument("--state-dir-on-tmpfs", action="store_true", help="journal on /dev/shm (no real fsync)")
    parser.add_argument(
        "--broker-nodelay",
        action="store_true",
        help="mosquitto with set_tcp_nodelay true (as systemd/mosquitto-cafe.conf); Debian's default leaves it off",
    )
    parser.add_argument("--legs", action="store_true", help="also time each leg of the press -> event path")
    parser.add_argument("--press-only", action="store_true", help="only press -> event (no replies, start-up, RSS)")
    parser.add_argument(
        "--unit-env",
        action="store_true",
        help="run the daemon (and the floors that stand for it) with the systemd unit's Environment= settings",
    )
    args = parser.parse_args()
    legs = Legs() if args.legs else None
    if legs is not None:
        legs.install()
    journal_dir = "/dev/shm" if args.state_dir_on_tmpfs else None
    ms = 1000
    with (
        Mosquitto(websockets=True, extra_config="set_tcp_nodelay true" if args.broker_nodelay else "") as broker,
        tempfile.TemporaryDirectory() as tmp,
        tempfile.TemporaryDirectory(dir=journal_dir) as jd,
    ):
        if args.presses:
            samples = press_to_event(broker.port, args.presses, Path(jd), legs)
            print(
                f"press -> event over mosquitto ({len(samples['daemon'])} presses, journal on "
                f"{'tmpfs' if args.state_dir_on_tmpfs else 'disk'}"
                f"{', broker set_tcp_nodelay' if args.broker_nodelay else ''}), each press alternated with one sample"
                " of each floor:"
            )
            for name, values in samples.items():
                median, p99 = statistics.median(values) * ms, percentile(values, 0.99) * ms
                print(f"  {name + ':':<30} median {median:.3f} ms, p99 {p99:.3f} ms")
            daemon_ms, bare_ms, commit_ms, pipeline_ms, edge_ms = (statistics.median(v) * ms for v in samples.values())
            print(f"  ratio to the bare round trip (median): {daemon_ms / bare_ms:.2f}x")
            print(
                f"  target bare + commit + 0.25 ms = {bare_ms + commit_ms + 0.25:.3f} ms: daemon is "
                f"{daemon_ms - bare_ms - commit_ms:+.3f} ms over bare + commit "
                f"({'met' if daemon_ms <= bare_ms + commit_ms + 0.25 else 'not met'}); the floor pipeline is "
                f"{pipeline_ms - bare_ms - commit_ms:+.3f} ms over it, the daemon "
                f"{daemon_ms - pipeline_ms:+.3f} ms over the floor pipeline ({daemon_ms / pipeline_ms:.2f}x)"
            )
            print(
                f"  from a gpiozero edge: the floor pipeline is {edge_ms - bare_ms - commit_ms:+.3f} ms over bare + "
                f"commit, the daemon {daemon_ms - edge_ms:+.3f} ms over it ({daemon_ms / edge_ms:.2f}x)"
            )
            if legs is not None:
                legs.report()
        if args.press_only:
            return
        env = unit_environment() if args.unit_env else {}
        if env:
            print("daemon and floors with the unit's environment: " + " ".join(f"{k}={v}" for k, v in env.items()))
        runs = {
            "embedded amqtt": run_daemon(None, Path(tmp) / "embedded", args.replies, env),
            "mosquitto" + (" set_tcp_nodelay" if args.broker_nodelay else ""): run_daemon(
                broker, Path(tmp) / "mosquitto", args.replies, env
            ),
        }
        bare_rss = bare_import_rss()
        floor_rss = embedded_broker_floor_rss(env)
        infrastructure_rss = infrastructure_floor_rss(Path(tmp) / "floor", with_daemon_code=False, env=env)
        code_rss = infrastructure_floor_rss(Path(tmp) / "floor-code", with_daemon_code=True, env=env)
    for name, run in runs.items():
        report_client_kinds(name, run.replies)
    for name, run in runs.items():
        print(
            f"daemon with {name}: start -> READY {run.ready:.2f} s; RSS idle {run.rss_idle / 1024:.1f} MiB "
            f"({run.rss_idle / bare_rss:.2f}x the bare import), after {4 * args.replies} commands "
            f"{run.rss_after / 1024:.1f} MiB ({run.rss_after / bare_rss:.2f}x)"
        )
    print(f"bare import gpiozero + paho: RSS {bare_rss / 1024:.1f} MiB (target: embedded idle <= 1.35x)")
    print(
        f"floor: bare import + sqlite3 + the embedded broker started, idle, no daemon: {floor_rss / 1024:.1f} MiB "
        f"({floor_rss / bare_rss:.2f}x the bare import)"
    )
    print(
        f"infrastructure floor: that + argparse and tomllib + an open WAL journal + a connected paho client: "
        f"{infrastructure_rss / 1024:.1f} MiB ({infrastructure_rss / bare_rss:.2f}x); the target leaves the daemon's "
        f"own code {(1.35 * bare_rss - infrastructure_rss) / 1024:+.1f} MiB"
    )
    embedded = runs["embedded amqtt"]
    print(
        f"code floor: the infrastructure floor + every module the daemon imports, nothing started: "
        f"{code_rss / 1024:.1f} MiB ({code_rss / bare_rss:.2f}x; the daemon's code "
        f"{(code_rss - infrastructure_rss) / 1024:+.1f} MiB); the idle daemon with the embedded broker is "
        f"{(embedded.rss_idle - code_rss) / 1024:+.1f} MiB over it"
    )


if __name__ == "__main__":
    main()
