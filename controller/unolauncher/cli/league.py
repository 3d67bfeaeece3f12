"""``unolauncher league``: live standings of every table on one broker.

Subscribes to ``<base>/+/state``, ``<base>/+/events`` and ``<base>/+/status`` and shows one row per table
(players, scores, round, winner, online/offline, last ``seq`` and gaps seen) plus a player ranking across
tables, redrawn in the terminal, or as JSON lines with ``--json``. Payloads that break PROTOCOL.md are counted
and ignored. ``--once`` prints one snapshot and exits, once the retained messages have arrived (the wire stays
quiet for ``--settle`` seconds) or after ``--timeout`` seconds.

Example::

    $ unolauncher league --host broker.local --username league --password-file /etc/unolauncher/league.pw
    $ unolauncher league --json --once --timeout 5 | jq '.tables[] | {table, leader, gaps}'
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TextIO

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from unolauncher.bus.client import stop_loop
from unolauncher.errors import ConfigError
from unolauncher.league import Standings, render_text

ENV_PASSWORD = "UNOLAUNCHER_MQTT_PASSWORD"

P = ParamSpec("P")


def configure(parser: argparse.ArgumentParser) -> None:
    conn = parser.add_argument_group("broker")
    conn.add_argument("--host", default="localhost", help="broker host name or address (default: localhost)")
    conn.add_argument("--port", type=int, default=None, help="broker port (default: 1883, 8883 with --tls)")
    conn.add_argument("--username", default=None, help="MQTT user name")
    conn.add_argument(
        "--password", default=None, help=f"MQTT password (prefer --password-file or the {ENV_PASSWORD} variable)"
    )
    conn.add_argument("--password-file", default=None, help="file whose first line is the MQTT password")
    conn.add_argument("--tls", action="store_true", help="connect with TLS")
    conn.add_argument("--cafile", default=None, help="CA certificate bundle for --tls (default: system CAs)")
    conn.add_argument("--certfile", default=None, help="client certificate for --tls")
    conn.add_argument("--keyfile", default=None, help="client key for --tls")
    conn.add_argument("--tls-insecure", action="store_true", help="do not check the broker's host name (testing)")
    conn.add_argument("--websockets", action="store_true", help="connect over WebSockets instead of TCP")
    conn.add_argument("--ws-path", default="/mqtt", help="WebSocket path (default: /mqtt)")
    conn.add_argument(
        "--client-id",
        default="",
        help="MQTT client id; with one the broker keeps a persistent session and queues events while the view is "
        "away (default: a fresh id and a clean session)",
    )
    conn.add_argument("--keepalive", type=int, default=30, help="MQTT keep-alive in seconds (default: 30)")
    parser.add_argument(
        "--base",
        default="unolauncher",
        help="base topic of the tables (default: unolauncher); '+' levels span venues, e.g. venues/+/unolauncher",
    )
    out = parser.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print JSON lines (one snapshot per change) instead")
    out.add_argument("--once", action="store_true", help="print one snapshot and exit")
    out.add_argument("--timeout", type=float, default=5.0, help="with --once: give up after this many seconds")
    out.add_argument(
        "--settle",
        type=float,
        default=0.5,
        help="with --once: print as soon as no message arrived for this long after subscribing (0: wait --timeout)",
    )
    out.add_argument("--interval", type=float, default=1.0, help="refresh period of the live view in seconds")
    out.add_argument("--max-rows", type=int, default=None, help="show at most this many tables/players")


def _password(args: argparse.Namespace) -> str | None:
    if args.password_file:
        try:
            with open(args.password_file, encoding="utf-8") as fh:
                return fh.readline().rstrip("\r\n")
        except OSError as exc:
            raise ConfigError(f"--password-file {args.password_file!r} cannot be read: {exc.strerror}") from None
    if args.password is not None:
        return str(args.password)
    return os.environ.get(ENV_PASSWORD)


def _check(args: argparse.Namespace) -> None:
    if args.port is not None and not 0 < args.port < 65536:
        raise ConfigError(f"--port {args.port} is not a TCP port (1-65535)")
    levels = args.base.rstrip("/").split("/")
    if not args.base or "#" in args.base or any(not lv or ("+" in lv and lv != "+") for lv in levels):
        raise ConfigError(f"--base {args.base!r} must be a topic whose levels are names or a whole '+'")
    if args.timeout <= 0 or args.settle < 0 or args.interval <= 0:
        raise ConfigError("--timeout and --interval must be positive and --settle not negative")
    for name in ("cafile", "certfile", "keyfile"):
        path = getattr(args, name)
        if path and not os.path.isfile(path):
            raise ConfigError(f"--{name} {path!r} does not exist")
        if path and not args.tls:
            raise ConfigError(f"--{name} needs --tls")
    if args.max_rows is not None and args.max_rows < 1:
        raise ConfigError("--max-rows must be at least 1")


@dataclass
class Connection:
    """What the terminal shows about the link to the broker."""

    connected: bool = False
    subscribed: bool = False
    refused: str | None = None  # the broker said no (credentials, ACL): a reason code text
    error: str | None = None  # the last network problem
    last_message: float = field(default_factory=time.monotonic)


def _guarded(callback: Callable[Concatenate[LeagueClient, P], None]) -> Callable[Concatenate[LeagueClient, P], None]:
    """A paho callback that never lets an exception reach paho's loop (NOTES.md: it kills the network thread);
    the exception is counted as an invalid message instead."""

    @wraps(callback)
    def wrapper(self: LeagueClient, /, *args: P.args, **kwargs: P.kwargs) -> None:
        try:
            callback(self, *args, **kwargs)
        except Exception as exc:
            self._note_error(exc)

    return wrapper


class LeagueClient:
    """An MQTT subscriber feeding a :class:`Standings`; every callback is guarded so nothing kills paho's loop.

    Example (not a doctest: needs an MQTT broker)::

        lc = LeagueClient(host="127.0.0.1", port=1883)
        lc.start()
        ...
        print(lc.snapshot()["totals"])
        lc.stop()
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        base: str = "unolauncher",
        username: str | None = None,
        password: str | None = None,
        client_id: str = "",
        keepalive: int = 30,
        transport: str = "tcp",
        ws_path: str = "/mqtt",
        tls: dict[str, Any] | None = None,
    ) -> None:
        self.host, self.port, self.keepalive = host, port, keepalive
        self.standings = Standings(base=base)
        self.link = Connection()
        self.lock = threading.Lock()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=mqtt.MQTTv311,
            # A fixed id asks for a persistent session: events published while the view is away are queued for it
            # (up to the broker's max_queued_messages) instead of showing up as gaps.
            clean_session=not client_id,
            transport="websockets" if transport == "websockets" else "tcp",
            reconnect_on_failure=True,
        )
        if transport == "websockets":
            self.client.ws_set_options(path=ws_path)
        if username is not None:
            self.client.username_pw_set(username, password)
        if tls is not None:
            self.client.tls_set(ca_certs=tls.get("cafile"), certfile=tls.get("certfile"), keyfile=tls.get("keyfile"))
            if tls.get("insecure"):
                self.client.tls_insecure_set(True)
        # Back-off between reconnection attempts: 1 s doubling to 30 s (a refused login must not hammer the broker).
        self.client.reconnect_delay_set(min_delay=1, max_delay=30)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    # -- paho callbacks (network thread) -------------------------------------------------------------------------

    @_guarded
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        with self.lock:
            if reason.is_failure:
                self.link.connected = False
                self.link.refused = str(reason)
                return
            self.link.connected, self.link.refused, self.link.error = True, None, None
        base = self.standings.base
        client.subscribe([(f"{base}/+/{kind}", 1) for kind in ("state", "events", "status")])

    @_guarded
    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        with self.lock:
            self.link.connected = False
            self.link.error = f"cannot reach the broker at {self.host}:{self.port}"

    @_guarded
    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        with self.lock:
            self.link.connected = self.link.subscribed = False
            if reason.is_failure and self.link.refused is None:
                self.link.error = f"disconnected: {reason}"

    @_guarded
    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        with self.lock:
            refused = [str(r) for r in reasons if r.is_failure]
            if refused:
                self.link.error = f"the broker refused the subscription: {', '.join(refused)}"
            self.link.subscribed = True
            self.link.last_message = time.monotonic()

    @_guarded
    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            topic = msg.topic
        except UnicodeDecodeError:
            topic = "<not UTF-8>"
        with self.lock:
            self.standings.feed(topic, bytes(msg.payload))
            self.link.last_message = time.monotonic()

    def _note_error(self, exc: BaseException) -> None:
        # Bookkeeping only; must not raise itself.
        try:
            self.standings.invalid += 1
            self.standings.last_error = f"{type(exc).__name__}: {exc}"[:200]
        except Exception:
            pass

    # -- control (main thread) ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background; paho's thread retries with back-off until :meth:`stop`."""
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        try:
            self.client.disconnect()
        finally:
            stop_loop(self.client)

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            snap = self.standings.snapshot()
            snap["broker"] = {
                "host": self.host,
                "port": self.port,
                "connected": self.link.connected,
                "refused": self.link.refused,
                "error": self.link.error,
            }
            return snap


def client_from_args(args: argparse.Namespace) -> LeagueClient:
    tls = None
    if args.tls:
        tls = {"cafile": args.cafile, "certfile": args.certfile, "keyfile": args.keyfile, "insecure": args.tls_insecure}
    port = args.port if args.port is not None else (8883 if args.tls else 1883)
    return LeagueClient(
        host=args.host,
        port=port,
        base=args.base,
        username=args.username,
        password=_password(args),
        client_id=args.client_id,
        keepalive=args.keepalive,
        transport="websockets" if args.websockets else "tcp",
        ws_path=args.ws_path,
        tls=tls,
    )


def _once(lc: LeagueClient, args: argparse.Namespace, out: TextIO) -> int:
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        with lc.lock:
            link = dataclasses.replace(lc.link)
        if link.refused:
            print(
                f"unolauncher league: the broker at {lc.host}:{lc.port} refused the connection: {link.refused}",
                file=sys.stderr,
            )
            return 1
        if link.subscribed and args.settle > 0 and time.monotonic() - link.last_message >= args.settle:
            break
        time.sleep(0.02)
    with lc.lock:
        link = dataclasses.replace(lc.link)
    if not link.subscribed:
        reason = link.error or "no answer"
        print(
            f"unolauncher league: no connection to the broker at {lc.host}:{lc.port} within {args.timeout:g} s "
            f"({reason})",
            file=sys.stderr,
        )
        return 1
    snap = lc.snapshot()
    out.write((json.dumps(snap, sort_keys=True) if args.json else render_text(snap, max_rows=args.max_rows)) + "\n")
    out.flush()
    return 0


def _status_line(snap: dict[str, Any]) -> str:
    broker = snap["broker"]
    where = f"{broker['host']}:{broker['port']}"
    if broker["refused"]:
        return f"broker {where} refused the connection: {broker['refused']} (retrying with back-off)"
    if not broker["connected"]:
        return f"not connected to {where}: {broker['error'] or 'connecting'} (retrying with back-off)"
    return f"connected to {where} — {time.strftime('%H:%M:%S')} — Ctrl-C to quit"


def _live(lc: LeagueClient, args: argparse.Namespace, out: TextIO) -> int:
    tty = out.isatty()
    last_printed: str | None = None
    while True:
        snap = lc.snapshot()
        if args.json:
            line = json.dumps(snap, sort_keys=True)
            if line != last_printed:
                out.write(line + "\n")
                out.flush()
                last_printed = line
        else:
            rows = shutil.get_terminal_size((120, 40))
            body = render_text(snap, width=rows.columns, max_rows=args.max_rows or max(5, (rows.lines - 8) // 2))
            if tty:
                # home + clear: a plain redraw, no curses needed
                out.write(f"\x1b[H\x1b[2J{_status_line(snap)}\n\n{body}\n")
            elif body != last_printed:  # piped into a file: a new block only when the standings changed
                out.write(f"{_status_line(snap)}\n\n{body}\n\n")
            out.flush()
            last_printed = body
        time.sleep(args.interval)


def run(args: argparse.Namespace) -> int:
    try:
        _check(args)
        lc = client_from_args(args)
    except (ConfigError, ValueError, OSError) as exc:
        print(f"unolauncher league: {exc}", file=sys.stderr)
        return 2
    lc.start()
    try:
        return _once(lc, args, sys.stdout) if args.once else _live(lc, args, sys.stdout)
    finally:
        lc.stop()
