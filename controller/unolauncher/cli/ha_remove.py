"""``unolauncher ha-remove``: take a table off Home Assistant by deleting its retained discovery on the broker.

Home Assistant removes an entity when its retained discovery config is replaced by an empty retained payload (a
device message: all its components). This command reads the retained discovery configs under the prefix, picks the
ones of unolauncher's device ``unolauncher_<table>`` (device messages, per-component ones, and those of older
versions), and publishes an empty retained payload on each.

Example::

    $ unolauncher ha-remove --config /etc/unolauncher/config.toml             # the configured table
    $ unolauncher ha-remove --config /etc/unolauncher/config.toml --table den  # a table since renamed
    $ unolauncher ha-remove --config /etc/unolauncher/config.toml --list      # tables announced on the broker

A running daemon announces its own table again when it reconnects or Home Assistant restarts: stop it (or set
``homeassistant.enabled = false``) first when removing the configured table. Exit codes: 0 done (also when there
was nothing to remove), 2 configuration or broker problem.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import threading
import time
from pathlib import Path
from typing import Any

from unolauncher.daemon.config import ConfigError, load_config

QUIET_S = 0.5  # retained messages arrive right after the subscription; this long without one means all are in


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="TOML configuration (default: /etc/unolauncher/config.toml)")
    parser.add_argument(
        "--table", action="append", help="table id whose discovery to remove (repeatable; default: table.id)"
    )
    parser.add_argument("--list", action="store_true", help="only list the unolauncher tables announced on the broker")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for each broker answer (default: 10)")


def device_ids(payload: Any) -> list[str]:
    """The device identifiers a discovery payload names (long or abbreviated keys), or ``[]``."""
    if not isinstance(payload, dict):
        return []
    device = payload.get("device", payload.get("dev"))
    if not isinstance(device, dict):
        return []
    ids = device.get("identifiers", device.get("ids", []))
    ids = [ids] if isinstance(ids, str) else ids
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def retained_configs(client: Any, prefix: str, wait: float) -> dict[str, Any]:
    """Every retained discovery config under ``prefix`` (topic -> parsed payload; unparsable ones are skipped)."""
    found: dict[str, Any] = {}
    subscribed = threading.Event()
    last = [time.monotonic()]

    def on_message(_client: Any, _userdata: Any, message: Any) -> None:
        last[0] = time.monotonic()
        if message.retain and message.payload:
            try:
                found[message.topic] = json.loads(message.payload)
            except ValueError:
                pass

    client.on_message = on_message
    client.on_subscribe = lambda *args: subscribed.set()
    client.subscribe([(f"{prefix}/+/+/config", 1), (f"{prefix}/+/+/+/config", 1)])
    if not subscribed.wait(wait):
        raise ConnectionError(f"the broker did not confirm the subscription to {prefix}/ within {wait:g} s")
    last[0] = time.monotonic()
    while time.monotonic() - last[0] < QUIET_S:
        time.sleep(0.05)
    return dict(found)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"unolauncher ha-remove: {exc}", file=sys.stderr)
        return 2
    from unolauncher.bus.client import make_client, stop_loop
    from unolauncher.bus.discovery import node_id
    from unolauncher.daemon.mqtt_settings import bus_settings

    b = config.broker
    if b.use_embedded:  # the daemon's own broker: reachable only while the daemon runs
        host, port, mqtt5 = ("127.0.0.1" if b.listen in ("0.0.0.0", "") else b.listen), b.port, False
    else:
        assert b.host is not None
        host, port, mqtt5 = b.host, b.port, b.protocol in ("auto", "5")
    prefix = config.homeassistant.prefix
    try:
        settings = bus_settings(config, host, port, mqtt5)
        # A fresh client id each run: a broker may still be closing the previous run's session under the same id.
        client = make_client(settings, f"unolauncher-ha-remove-{os.getpid()}-{secrets.token_hex(3)}")
        connected = threading.Event()
        client.on_connect = lambda c, u, f, reason, p: connected.set() if not reason.is_failure else None
        client.connect(host, port, keepalive=30)
        client.loop_start()
    except (ConfigError, OSError, ValueError) as exc:
        print(f"unolauncher ha-remove: cannot reach the broker at {host}:{port}: {exc}", file=sys.stderr)
        return 2
    try:
        if not connected.wait(args.wait):
            print(f"unolauncher ha-remove: the broker at {host}:{port} did not accept the connection", file=sys.stderr)
            return 2
        configs = retained_configs(client, prefix, args.wait)
        by_node: dict[str, list[str]] = {}
        for topic, payload in sorted(configs.items()):
            for ident in device_ids(payload):
                if ident.startswith("unolauncher_"):
                    by_node.setdefault(ident, []).append(topic)
        if args.list:
            for node, topics in sorted(by_node.items()):
                print(f"{node}: {len(topics)} discovery topic(s)")
            if not by_node:
                print(f"No unolauncher table is announced under {prefix}/ on {host}:{port}.")
            return 0
        for table in args.table or [config.table.id]:
            topics = by_node.get(node_id(table), [])
            if not topics:
                print(f"No Home Assistant discovery of table {table} under {prefix}/ on {host}:{port}.")
                continue
            for topic in topics:
                info = client.publish(topic, "", qos=1, retain=True)
                info.wait_for_publish(args.wait)
                if not info.is_published():
                    raise ConnectionError(f"the broker did not acknowledge clearing {topic}")
            print(f"Removed table {table} from Home Assistant: {len(topics)} discovery topic(s) cleared.")
            for topic in topics:
                print(f"  {topic}")
        return 0
    except (ConnectionError, RuntimeError, ValueError) as exc:
        print(f"unolauncher ha-remove: {exc}", file=sys.stderr)
        return 2
    finally:
        client.disconnect()
        stop_loop(client)
