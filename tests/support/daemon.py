"""Run ``unolauncher run`` as a real subprocess in tests, and talk to it over MQTT like a phone would.

Example::

    with DaemonProcess(tmp_path, broker_port=mosquitto.port) as daemon:  # or embedded=True (the default)
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as table:
            assert table.command({"type": "status"})["ok"]
        daemon.kill()  # SIGKILL: no clean-up at all
        daemon.start()  # same state dir: the journal is replayed

``running_daemon`` is the same daemon in the test's own process, for tests that reach into it (a virtual clock, the
virtual launcher's pins, the table's worker).

``DaemonProcess`` writes a TOML config (fast virtual launcher, free ports) and waits for the daemon's
``<state_dir>/endpoints.json`` with its own pid and ``ready: true``, which the daemon writes after READY.
``TableClient`` subscribes to ``unolauncher/<table>/#``, keeps every event (deduplicated by ``seq``, with the
arrival order and duplicates recorded, and any copy of a ``seq`` that differs from the first in ``conflicts``),
the latest retained state, and answers ``command()`` with the reply
carrying the command's ``id``.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from support.net import free_port, wait_until
from support.process import end_process
from unolauncher.bus.client import stop_loop

if TYPE_CHECKING:
    from unolauncher.clock import Clock
    from unolauncher.daemon.app import Daemon

# A virtual launcher fast enough for tests: a 4-card run takes ~50 ms instead of ~1 s. ``allow_rigged``: most tests
# bring their own seed or deal to make a game reproducible; the fairness tests turn it off to play honest games.
FAST_LAUNCHER: dict[str, Any] = {
    "backend": "virtual",
    "allow_rigged": True,
    "magazine": 500,
    "retract_ms": 0,
    "settle_ms": 5,
    "jam_timeout_s": 0.5,
    "virtual": {"cards_per_s": 100.0, "spin_up_ms": 5, "press_ms": 5, "pulse_ms": 2.0},
}


def to_toml(config: dict[str, dict[str, Any]]) -> str:
    """A tiny TOML writer for test configs: sections of scalars, plus one level of sub-tables (deeper ones inline)."""

    def scalar(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return repr(value)
        if isinstance(value, str):
            return json.dumps(value)
        if isinstance(value, list):
            return "[" + ", ".join(scalar(v) for v in value) + "]"
        if isinstance(value, dict):  # inside a sub-table: an inline table (e.g. a custom preset's cards)
            return "{" + ", ".join(f"{json.dumps(str(k))} = {scalar(v)}" for k, v in value.items()) + "}"
        raise TypeError(f"cannot write {value!r} as TOML")

    lines: list[str] = []
    for section, values in config.items():
        lines.append(f"[{section}]")
        tables = {k: v for k, v in values.items() if isinstance(v, dict)}
        lines += [f"{k} = {scalar(v)}" for k, v in values.items() if k not in tables]
        for name, table in tables.items():
            lines.append(f"[{section}.{name}]")
            lines += [f"{k} = {scalar(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def daemon_config(
    state_dir: Path, table: str, broker: dict[str, Any], overrides: dict[str, dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """A test daemon's config sections: fast virtual launcher, no dashboard, ``overrides`` merged section by section."""
    config: dict[str, dict[str, Any]] = {
        "table": {"id": table, "state_dir": str(state_dir)},
        "broker": broker,
        "launcher": dict(FAST_LAUNCHER),
        "dashboard": {"enabled": False},
    }
    for section, values in (overrides or {}).items():
        config.setdefault(section, {}).update(values)
    return config


@contextmanager
def running_daemon(
    workdir: Path,
    table: str = "t1",
    broker_port: int | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
    clock: Clock | None = None,
) -> Iterator[Daemon]:
    """A started :class:`Daemon` in this process (state in ``workdir/state``), stopped motor-first on exit.

    ``broker_port`` set: the broker on 127.0.0.1 there; otherwise a free port where no broker listens, for tests
    that need none (the daemon retries in the background). ``clock`` replaces its :class:`RealClock` before start.

    Example::

        with running_daemon(tmp_path, "t1", overrides={"table": {"lockout": False}}) as daemon:
            daemon.virtual.press_button()
    """
    from unolauncher.daemon.app import Daemon  # only the tests that run a daemon here pay for its imports
    from unolauncher.daemon.config import parse_config

    broker = {"host": "127.0.0.1", "port": broker_port or free_port(), "reconnect_max": 1}
    daemon = Daemon(parse_config(daemon_config(workdir / "state", table, broker, overrides)), say=lambda text: None)
    if clock is not None:
        daemon.clock = clock
    daemon.start()
    try:
        yield daemon
    finally:
        daemon.request_stop()
        daemon.shutdown()


class DaemonProcess:
    """One ``unolauncher run`` subprocess with its own state directory and config file.

    ``broker_port`` set: use that external broker (mosquitto) on 127.0.0.1; otherwise the embedded broker on free
    ports. ``overrides`` are merged into the config sections (e.g. ``{"table": {"lockout": False}}``).
    """

    def __init__(
        self,
        workdir: Path,
        table: str = "t1",
        broker_port: int | None = None,
        overrides: dict[str, dict[str, Any]] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.table = table
        self.state_dir = workdir / "state"
        self.config_path = workdir / "config.toml"
        self.log_path = workdir / "daemon.log"
        self.env = env or {}
        broker: dict[str, Any] = (
            {"embedded": False, "host": "127.0.0.1", "port": broker_port, "reconnect_max": 1}
            if broker_port
            else {"embedded": True, "port": 0, "ws_port": 0}
        )
        self.config = daemon_config(self.state_dir, table, broker, overrides)
        self.process: subprocess.Popen[bytes] | None = None
        self.endpoints: dict[str, Any] = {}

    @property
    def mqtt_host(self) -> str:
        return str(self.endpoints["mqtt_host"])

    @property
    def mqtt_port(self) -> int:
        return int(self.endpoints["mqtt_port"])

    def command_line(self) -> list[str]:
        return [sys.executable, "-m", "unolauncher", "run", "--config", str(self.config_path)]

    def start(self, timeout: float = 30.0, wait_mqtt: bool = True) -> None:
        """Start the daemon and wait until it is READY and (``wait_mqtt``) subscribed to ``cmd`` on the broker.

        Both are read from the endpoints file the daemon writes with its pid.
        """
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(to_toml(self.config))
        log = self.log_path.open("ab")
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.process = subprocess.Popen(self.command_line(), stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        endpoints = self.state_dir / "endpoints.json"

        def ready() -> bool:
            if self.process is None or self.process.poll() is not None:
                return True  # died: stop waiting, reported below
            try:
                data = json.loads(endpoints.read_text())
            except (OSError, ValueError):
                return False
            if (
                data.get("pid") == self.process.pid
                and data.get("ready")
                and (data.get("mqtt_connected") or not wait_mqtt)
            ):
                self.endpoints = data
                return True
            return False

        wait_until(ready, timeout)
        if self.process.poll() is not None or not self.endpoints or self.endpoints.get("pid") != self.process.pid:
            # A daemon still starting is stopped, not left behind: orphans of such timeouts kept running (and
            # retrying their broker) for the rest of a flake hunt, on a machine already too loaded to start one.
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            raise RuntimeError(f"the daemon did not become ready; log:\n{self.log_text()[-3000:]}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss_mb(self) -> float:
        """The running daemon's resident memory in MB (Linux ``/proc``)."""
        assert self.process is not None, "the daemon is not running"
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError(f"no VmRSS for pid {self.process.pid}")

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM and wait; returns the exit code (None if it was not running)."""
        if self.process is None:
            return None
        code = end_process(self.process, timeout)
        self.process = None
        return code

    def kill(self) -> None:
        """SIGKILL: a crash (no signal handler, no clean-up, no ``offline``). Not a power cut: the kernel still
        writes everything the daemon wrote; ``support.cutfs`` loses what was not fsynced."""
        if self.process is not None:
            end_process(self.process, 10, signal.SIGKILL)
        self.process = None

    def __enter__(self) -> DaemonProcess:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class TableClient:
    """An MQTT client watching one table: events by ``seq``, replies by ``id``, retained state and status."""

    _ids = itertools.count(1)

    def __init__(
        self,
        host: str,
        port: int,
        table: str = "t1",
        transport: str = "tcp",
        mqtt5: bool = False,
        name: str = "",
        auth: tuple[str, str] | None = None,
        bind_address: str = "",  # a source address: 127.0.0.2 and the like are a second host on lo
    ) -> None:
        self.base = f"unolauncher/{table}"
        self.lock = threading.Lock()
        self.events: dict[int, dict[str, Any]] = {}  # seq -> event (first copy)
        self.arrivals: list[int] = []  # seq of every event message in arrival order, duplicates included
        self.conflicts: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (first copy, later different copy)
        self.replies: dict[Any, dict[str, Any]] = {}
        self.reply_count = 0
        self.state: dict[str, Any] | None = None
        self.status: str | None = None
        self.launcher: dict[str, Any] | None = None
        self.messages: list[tuple[str, bytes, bool]] = []  # every (topic, payload, retained) outside events/reply
        # Set once the broker has answered this connection's SUBSCRIBE (not at CONNACK): a command sent before then
        # could have its reply, or an event, published before the subscription was in place, and lost to this client.
        self.connected = threading.Event()
        self._subscribing: int | None = None  # the mid of the connection's SUBSCRIBE, until its SUBACK
        self._acked: set[int] = set()  # mids of the SUBACKs of subscribe(topic)
        self.extra_topics: list[str] = []
        client_id = f"test-{name or 'client'}-{os.getpid()}-{next(self._ids)}"
        protocol = MQTTProtocolVersion.MQTTv5 if mqtt5 else MQTTProtocolVersion.MQTTv311
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=protocol,
            transport="websockets" if transport == "websockets" else "tcp",
        )
        if transport == "websockets":
            self.client.ws_set_options(path="/mqtt")
        if auth is not None:
            self.client.username_pw_set(*auth)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        # paho annotates these as int but sleeps on them as floats: sub-second retries keep outage tests short.
        self.client.reconnect_delay_set(0.1, 0.5)  # type: ignore[arg-type]
        self.client.connect(host, port, keepalive=30, bind_address=bind_address)
        self.client.loop_start()
        if not self.connected.wait(10):
            raise TimeoutError(f"could not connect to {host}:{port}")

    def subscribe(self, topic: str) -> None:
        """Add ``topic`` (kept over reconnects) and wait for the broker's SUBACK: what is published after this returns
        reaches the client."""
        self.extra_topics.append(topic)
        _, mid = self.client.subscribe(topic, qos=1)
        if not wait_until(lambda: mid in self._acked, 10):
            raise TimeoutError(f"no SUBACK for {topic}")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            return  # refused (bad credentials, ACL): the constructor times out with the address in the message
        _, self._subscribing = client.subscribe([(f"{self.base}/#", 1), *[(t, 1) for t in self.extra_topics]])

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        # Answered, granted or not (an ACL may refuse a topic): the broker has taken the SUBSCRIBE in.
        if mid == self._subscribing:
            self.connected.set()
        self._acked.add(mid)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            topic, payload = message.topic, bytes(message.payload)
            with self.lock:
                if topic == f"{self.base}/events":
                    event = json.loads(payload)
                    self.arrivals.append(event["seq"])
                    first = self.events.setdefault(event["seq"], event)
                    if first != event:  # the protocol's rule: every copy of a seq is the same event
                        self.conflicts.append((first, event))
                elif topic == f"{self.base}/reply":
                    body = json.loads(payload)
                    self.reply_count += 1
                    self.replies[body.get("id")] = body
                elif topic == f"{self.base}/state":
                    self.state = json.loads(payload)
                elif topic == f"{self.base}/status":
                    self.status = payload.decode()
                elif topic == f"{self.base}/launcher":
                    self.launcher = json.loads(payload)
                self.messages.append((topic, payload, bool(message.retain)))
        except Exception as exc:  # a test client must not die silently either
            print("TableClient could not handle", message.topic, exc, file=sys.stderr)

    # -- commands -------------------------------------------------------------------------------------------------

    def messages_on(self, sub: str) -> list[bytes]:
        """The payloads seen on ``unolauncher/<table>/<sub>`` (outside events and reply), oldest first."""
        with self.lock:
            return [payload for topic, payload, _ in self.messages if topic == f"{self.base}/{sub}"]

    def send(self, payload: bytes | str) -> None:
        self.client.publish(f"{self.base}/cmd", payload, qos=1)

    def command(self, command: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send a command with a fresh id and wait for its reply."""
        command_id = f"c{next(self._ids)}"
        self.send(json.dumps({**command, "id": command_id}))
        if not wait_until(lambda: command_id in self.replies, timeout):
            raise TimeoutError(f"no reply to {command} within {timeout} s")
        with self.lock:
            return self.replies[command_id]

    # -- observations ---------------------------------------------------------------------------------------------

    def last_seq(self) -> int:
        with self.lock:
            return max(self.events, default=0)

    def wait_for_seq(self, seq: int, timeout: float = 10.0) -> bool:
        return wait_until(lambda: self.last_seq() >= seq, timeout)

    def resend_missing(self, last_seq: int, timeout: float = 10.0) -> bool:
        """Ask the table to ``resend`` from the first of events 1..``last_seq`` not seen (e.g. published while this
        client was reconnecting), as the dashboard does; True once all of them are here."""
        with self.lock:
            missing = sorted(set(range(1, last_seq + 1)) - set(self.events))
        if not missing:
            return True
        reply = self.command({"type": "resend", "from": missing[0]})
        assert reply["ok"], reply
        return wait_until(lambda: set(range(1, last_seq + 1)) <= set(self.events), timeout)

    def ordered_events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [self.events[s] for s in sorted(self.events)]

    def close(self) -> None:
        self.client.disconnect()
        stop_loop(self.client)  # not loop_stop(): paho's race with its own thread's end (bus/client.py)

    def __enter__(self) -> TableClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
