"""Announcing the table to Home Assistant (MQTT discovery), compared with the record of the last announcement.

Thread: **paho's network thread** — after every (re)connect, and on Home Assistant's birth message, which may come
during a reconnect: the announcer's own lock keeps two announcements from interleaving. A renamed table's old device
is deleted and a change of ``homeassistant.discovery`` migrates the entities (see
:func:`unolauncher.bus.discovery.publish_plan`); ``<state_dir>/ha_discovery.json`` records what was announced.

Example (not a doctest: needs a connected bus)::

    announcer = Announcer(config, topics, state_dir, bus, options=lambda: discovery_options)
    announcer.publish()
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from unolauncher.bus import discovery
from unolauncher.bus.mqtt import TableBus
from unolauncher.bus.topics import Topics
from unolauncher.daemon.config import Config

DISCOVERY_RECORD_FILE = "ha_discovery.json"  # what was announced to Home Assistant last (bus.discovery.publish_plan)


def dashboard_link(config: Config, port: int) -> str:
    """The dashboard's address as Home Assistant (another machine) reaches it: the host name on the local network
    when it listens on every interface (``homeassistant.configuration_url`` overrides it).

    >>> from unolauncher.daemon.config import load_config
    >>> config = load_config(None)
    >>> config.dashboard.host = "::1"
    >>> dashboard_link(config, 8080)
    'http://[::1]:8080/'
    """
    host = config.dashboard.host
    if host in ("0.0.0.0", "::", ""):
        host = f"{socket.gethostname()}.local"  # mDNS, as Raspberry Pi OS announces itself
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def board_info(root: Path = Path("/proc/device-tree")) -> dict[str, str]:
    """The board's ``hw_version`` (its model) and ``serial_number`` for the device page, where the device tree has
    them (a Raspberry Pi does; a PC has neither, and gets neither).

    >>> board_info(Path("/nonexistent"))
    {}
    """
    found: dict[str, str] = {}
    for key, name in (("hw_version", "model"), ("serial_number", "serial-number")):
        try:
            value = (root / name).read_bytes().rstrip(b"\0").decode("ascii", "replace").strip()
        except OSError:
            continue
        if value:
            found[key] = value
    return found


class Announcer:
    """Publishes the discovery messages of ``options()`` (see the module docstring for the thread)."""

    def __init__(
        self,
        config: Config,
        topics: Topics,
        state_dir: Path,
        bus: TableBus,
        options: Callable[[], discovery.DiscoveryOptions],
    ) -> None:
        self.config = config
        self.topics = topics
        self.record_path = state_dir / DISCOVERY_RECORD_FILE
        self.bus = bus
        self.options = options
        self._lock = threading.Lock()  # paho's thread announces; HA's birth may come during a reconnect

    def publish(self, birth: bool = False) -> None:
        """Announce the table (when Home Assistant is enabled), migrating from the last announcement.

        The one-shot messages of a change (``migrate_discovery`` requests and deletions) are kept in the record as
        ``pending`` and sent again with the next Home Assistant birth message (``birth=True``), then forgotten: a
        Home Assistant that was not connected when they went out (the embedded broker restarts with the daemon,
        ~10 s before Home Assistant is back) still removes a renamed table's old device.
        """
        ha = self.config.homeassistant
        if not ha.enabled:
            return
        node = discovery.node_id(self.topics.table_id)
        messages = discovery.discovery_messages(self.topics, self.options())
        path = self.record_path
        with self._lock:
            try:
                previous = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                previous = None  # none yet (or unreadable): assume an older version announced the table
            plan = discovery.publish_plan(previous, messages, node, ha.discovery, ha.prefix)
            configs = {topic for topic, _ in messages}
            # Without a record the legacy topics' clean-up is a guess (a fresh install has none): not worth resending.
            one_shots = [[t, p, r] for t, p, r in plan if t not in configs] if previous is not None else []
            pending = (previous or {}).get("pending", []) if isinstance(previous, dict) else []
            if birth and pending and not one_shots:
                plan = discovery.replay_plan(pending, messages)
            for topic, payload, retain in plan:
                if retain:  # a config or its deletion: only the newest per topic matters
                    self.bus.publish_latest(topic, payload)
                else:  # a migrate_discovery request: a message of its own, in order
                    self.bus.publish(topic, payload)
            current = discovery.record(messages, node, ha.discovery)
            if one_shots or (pending and not birth):
                current["pending"] = one_shots or pending
            if current != previous:
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_text(json.dumps(current, indent=1) + "\n", encoding="utf-8")
                tmp.replace(path)
