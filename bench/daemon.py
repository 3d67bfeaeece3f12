"""Daemon benchmark: press → event latency over mosquitto, start-up time to READY, resident memory.

    .venv/bin/python bench/daemon.py [--presses 300] [--state-dir-on-tmpfs]

1. **Press → event**: an in-process daemon (the real ``Daemon`` class: virtual launcher, SQLite journal with fsync,
   outbox publisher, paho) connected to mosquitto on loopback; a paho subscriber in a separate process (like a
   phone) on ``events``. Time from ``press_button()`` (the button edge) to the subscriber receiving the ``press``
   event, both read on the shared monotonic clock. Side by side in the same run: a bare paho QoS 1 publish →
   receive round trip through the same broker to the same kind of subscriber process.
2. **Start-up**: ``unolauncher run`` as a subprocess with a fake ``NOTIFY_SOCKET``: time from spawn to ``READY=1``,
   then its RSS after the presses of part 1 would have warmed it (a few hundred commands), next to the RSS of a
   bare ``python -c "import gpiozero, paho.mqtt.client"``.

Targets (issue 4): latency median ≤ 2x the bare round trip; daemon RSS ≤ 1.5x the bare import's.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from support.benchstats import percentile  # noqa: E402
from support.daemon import FAST_LAUNCHER, DaemonProcess, TableClient  # noqa: E402
from support.mosquitto import Mosquitto  # noqa: E402
from unolauncher.bus.mqtt import set_tcp_nodelay  # noqa: E402


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


def bare_round_trip(port: int, count: int) -> list[float]:
    sub = Subscriber(port, "bench/bare")
    pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-pub")
    pub.connect("127.0.0.1", port)
    pub.loop_start()
    samples = []
    for i in range(count):
        t0 = time.monotonic()
        pub.publish("bench/bare", str(i), qos=1)
        samples.append(sub.stamps.wait(str(i)) - t0)
        time.sleep(0.005)
    pub.disconnect()
    pub.loop_stop()
    sub.close()
    return samples



def nodelay_on_open(client: mqtt.Client, userdata: object, sock: object) -> None:
    """paho ``on_socket_open``: Nagle off on the client's own socket too, as a phone's WebSocket client has."""
    set_tcp_nodelay(sock)


def command_to_reply(port: int, table: str, count: int) -> list[float]:
    """``status`` command → its reply, from a client with Nagle off (as a phone's WebSocket client has)."""
    got = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-cmd")
    client.on_message = lambda c, u, m: got.set()
    client.on_socket_open = nodelay_on_open
    client.connect("127.0.0.1", port)
    client.subscribe(f"unolauncher/{table}/reply", qos=1)
    client.loop_start()
    time.sleep(0.2)
    samples = []
    for i in range(count):
        got.clear()
        t0 = time.monotonic()
        client.publish(f"unolauncher/{table}/cmd", f'{{"id": {i}, "type": "status"}}', qos=1)
        if got.wait(2):
            samples.append(time.monotonic() - t0)
        time.sleep(0.005)
    client.disconnect()
    client.loop_stop()
    return samples


def press_to_event(port: int, count: int, state_dir: Path, journal_sync: str) -> tuple[list[float], list[float]]:
    from unolauncher.daemon.app import Daemon
    from unolauncher.daemon.config import parse_config

    config = parse_config(
        {
            "table": {"id": "bench", "state_dir": str(state_dir), "lockout": False, "journal_sync": journal_sync},
            "broker": {"host": "127.0.0.1", "port": port},
            "launcher": {**FAST_LAUNCHER, "preset": "gentle"},
            "dashboard": {"enabled": False},
            "homeassistant": {"enabled": False},
        }
    )
    daemon = Daemon(config, say=lambda text: None)
    daemon.start()
    assert daemon.bus is not None and daemon.bus.subscribed.wait(10)
    assert daemon.table is not None and daemon.virtual is not None

    sub = Subscriber(port, "unolauncher/bench/events")
    daemon.table.submit_command({"type": "new_game", "ruleset": "attack", "players": ["a", "b", "c"], "seed": 3})
    samples = []
    index, unanswered = 1, 0
    try:
        for _ in range(count):
            while not daemon.table.idle() or daemon.launcher.status().running:
                time.sleep(0.002)
            time.sleep(0.05)  # longer than the button debounce
            t0 = time.monotonic()
            daemon.virtual.press_button()
            try:
                samples.append(sub.stamps.wait(f"press:{index}", 1.0) - t0)
            except TimeoutError:
                unanswered += 1  # taken for contact bounce by the launcher's debounce: no event at all
                continue
            index += 1
        replies = command_to_reply(port, "bench", min(count, 200))
    finally:
        sub.close()
        bounces = daemon.launcher.status().extra.get("bounces")
        daemon.request_stop()
        daemon.shutdown()
    if unanswered:
        print(f"({unanswered} presses produced no event; launcher debounce counted {bounces} bounces)")
    return samples, replies


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def bare_import_rss() -> int:
    code = "import gpiozero, paho.mqtt.client; print(open('/proc/self/status').read())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return next(int(line.split()[1]) for line in out.splitlines() if line.startswith("VmRSS:"))


def startup_and_memory(port: int, workdir: Path, commands: int) -> tuple[float, int]:
    workdir.mkdir(parents=True, exist_ok=True)
    notify = workdir / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(notify))
        sock.settimeout(60)
        daemon = DaemonProcess(workdir, table="benchrss", broker_port=port, env={"NOTIFY_SOCKET": str(notify)})
        t0 = time.perf_counter()
        daemon.start(wait_mqtt=False)
        while not sock.recv(4096).startswith(b"READY=1"):
            pass
        ready = time.perf_counter() - t0
        try:
            with TableClient("127.0.0.1", port, "benchrss", name="rss") as client:
                assert client.command({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": 1})["ok"]
                for _ in range(commands):
                    client.command({"type": "status"})
            assert daemon.process is not None
            rss = rss_kib(daemon.process.pid)
        finally:
            daemon.stop()
    return ready, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--state-dir-on-tmpfs", action="store_true", help="journal on /dev/shm (no real fsync)")
    parser.add_argument(
        "--broker-nodelay",
        action="store_true",
        help="mosquitto with set_tcp_nodelay true (as systemd/mosquitto-cafe.conf): its own Nagle otherwise adds "
        "~40 ms to command -> reply on the phone's side",
    )
    parser.add_argument("--journal-sync", choices=["full", "normal"], default="full", help="table.journal_sync")
    args = parser.parse_args()
    journal_dir = "/dev/shm" if args.state_dir_on_tmpfs else None
    with (
        Mosquitto(extra_config="set_tcp_nodelay true" if args.broker_nodelay else "") as broker,
        tempfile.TemporaryDirectory() as tmp,
        tempfile.TemporaryDirectory(dir=journal_dir) as jd,
    ):
        bare = bare_round_trip(broker.port, args.presses)
        press, replies = press_to_event(broker.port, args.presses, Path(jd) / "state", args.journal_sync)
        ready, rss = startup_and_memory(broker.port, Path(tmp) / "rss", 300)
        bare_rss = bare_import_rss()
    ms = 1000
    print(
        f"press -> event over mosquitto ({args.presses} presses, journal on "
        f"{'tmpfs' if args.state_dir_on_tmpfs else 'disk'}, synchronous={args.journal_sync}"
        f"{', broker set_tcp_nodelay' if args.broker_nodelay else ''}):"
    )
    print(f"  daemon:     median {statistics.median(press) * ms:.3f} ms, p99 {percentile(press, 0.99) * ms:.3f} ms")
    print(f"  bare paho:  median {statistics.median(bare) * ms:.3f} ms, p99 {percentile(bare, 0.99) * ms:.3f} ms")
    print(f"  ratio (median): {statistics.median(press) / statistics.median(bare):.2f}x (target <= 2x)")
    print(
        f"command -> reply (status, {len(replies)} commands): median {statistics.median(replies) * ms:.3f} ms, "
        f"p99 {percentile(replies, 0.99) * ms:.3f} ms"
    )
    print(f"start -> READY: {ready:.2f} s")
    print(
        f"RSS: daemon {rss / 1024:.1f} MiB after 300 commands; bare import gpiozero+paho {bare_rss / 1024:.1f} MiB; "
        f"ratio {rss / bare_rss:.2f}x (target <= 1.5x)"
    )


if __name__ == "__main__":
    main()
