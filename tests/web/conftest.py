"""Fixtures for the dashboard's browser tests: ``unolauncher run`` (virtual launcher, embedded broker, dashboard),
a test MQTT client on its table, and headless Chromium at a phone viewport.

Chromium is Debian's (``/usr/bin/chromium``) driven by Playwright for Python; never ``playwright install``.
Without Chromium or Playwright the browser tests skip with the reason (a failure under ``CI=true``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.binaries import require_binary
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PHONE = {"width": 390, "height": 844}
TABLE = "webtest"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = require_binary("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright (Python) is not installed (pip install playwright; no browser download needed)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class TableHandle:
    """The test's own MQTT client on the daemon's table (a phone without a screen).

    ``command()`` waits for the reply; ``replies`` holds every reply seen in arrival order (the pages' too);
    ``commands`` every command published on ``cmd`` (what the pages sent); ``state`` the latest retained state.
    """

    def __init__(self, daemon: DaemonProcess) -> None:
        self.daemon = daemon
        self.client = TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="webtest")

    @property
    def base(self) -> str:
        return self.client.base

    def command(self, command: dict[str, Any]) -> dict[str, Any]:
        reply = self.client.command(command)
        # The state of an accepted command is published before its reply; wait until it is here too.
        if reply.get("ok") and isinstance(reply.get("seq"), int):
            wait_until(lambda: (self.client.state or {}).get("seq", -1) >= reply["seq"], 5)
        return reply

    @property
    def state(self) -> dict[str, Any]:
        assert self.client.state is not None, "no retained state yet"
        return self.client.state

    @property
    def replies(self) -> list[dict[str, Any]]:
        with self.client.lock:
            return list(self.client.replies.values())

    @property
    def commands(self) -> list[dict[str, Any]]:
        with self.client.lock:
            return [json.loads(p) for t, p, _ in self.client.messages if t == self.base + "/cmd"]

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.client.ordered_events() if e.get("type") == kind]

    @property
    def seq(self) -> int:
        return self.client.last_seq()

    def close(self) -> None:
        self.client.close()


def daemon_with_dashboard(workdir: Path, broker_port: int | None = None, ws_port: int | None = None) -> DaemonProcess:
    """``unolauncher run`` with the virtual launcher and the dashboard on a free port (embedded broker by default)."""
    overrides: dict[str, dict[str, Any]] = {
        "dashboard": {"enabled": True, "host": "127.0.0.1", "port": 0},
        "homeassistant": {"enabled": False},
    }
    if ws_port is not None:
        overrides["broker"] = {"ws_url": f"ws://{{host}}:{ws_port}/mqtt"}
    return DaemonProcess(workdir, table=TABLE, broker_port=broker_port, overrides=overrides)


@dataclass
class Stack:
    """A daemon with the dashboard and a test client on its table; ``broker`` is the mosquitto under it, if any."""

    daemon: DaemonProcess
    table: TableHandle
    broker: Mosquitto | None = None

    @property
    def url(self) -> str:
        return str(self.daemon.endpoints["dashboard_url"])


@contextmanager
def stack_on_mosquitto(workdir: Path) -> Iterator[Stack]:
    """``unolauncher run`` with the dashboard on a mosquitto of its own (which a test may stop and start)."""
    with (
        Mosquitto(websockets=True) as broker,
        daemon_with_dashboard(workdir, broker.port, broker.ws_port) as daemon,
    ):
        table = TableHandle(daemon)
        try:
            yield Stack(daemon, table, broker)
        finally:
            table.close()


@pytest.fixture(scope="session")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    """One daemon (embedded amqtt broker) for the dashboard tests; each test starts its own game."""
    with daemon_with_dashboard(tmp_path_factory.mktemp("webdaemon")) as running:
        yield running


@pytest.fixture(scope="session")
def table(daemon: DaemonProcess) -> Iterator[TableHandle]:
    handle = TableHandle(daemon)
    yield handle
    handle.close()


@pytest.fixture(scope="session")
def dashboard_url(daemon: DaemonProcess) -> str:
    return str(daemon.endpoints["dashboard_url"])


DEAD_SOCKET = "WebSocket is already in CLOSING or CLOSED state"


class PhoneFactory:
    """Opens pages at a phone viewport, each in its own browser context (own cache and localStorage)."""

    def __init__(self, browser: Any, artifacts: Path) -> None:
        self.browser = browser
        self.artifacts = artifacts
        self.contexts: list[Any] = []
        # (text, the WebSocket count of the page that logged it, that page's life so far)
        self._errors: list[tuple[str, list[int], list[str]]] = []
        self.allowed: list[str] = []
        self.closing = False

    def allow(self, fragment: str) -> None:
        """A console error containing ``fragment`` is expected in this test (e.g. refused WebSockets in an outage)."""
        self.allowed.append(fragment)

    def open(self, url: str, context: Any = None) -> Any:
        if context is None:
            context = self.browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True, is_mobile=True)
            self.contexts.append(context)
        page = context.new_page()
        sockets = [0]  # WebSockets this page opened: more than one means MQTT.js lost its connection and reconnected
        # The page's life in brief (loads, WebSockets opened and closed, warnings), appended to any error it logs:
        # a flake seen once under load must be explainable from the report alone.
        started = time.monotonic()
        life: list[str] = []

        def note(what: str) -> None:
            life.append(f"{time.monotonic() - started:.2f}s {what}")

        def opened(ws: Any) -> None:
            sockets[0] += 1
            note(f"WebSocket {sockets[0]} opened")
            ws.on("close", lambda _ws, n=sockets[0]: note(f"WebSocket {n} closed"))

        page.on("websocket", opened)
        page.on("framenavigated", lambda frame: note(f"loaded {frame.url}") if frame == page.main_frame else None)
        page.on("pageerror", lambda exc: self._error(f"page error: {exc}", sockets, life))
        page.on(
            "console",
            lambda msg: (
                self._error(f"console: {msg.text}", sockets, life)
                if msg.type == "error"
                else note(f"console {msg.type}: {msg.text[:200]}")
                if msg.type == "warning"
                else None
            ),
        )
        page.goto(url)
        return page

    @property
    def errors(self) -> list[str]:
        """What the pages logged as errors while in use, each with the page's WebSocket count and life. A
        "WebSocket is already in CLOSING or CLOSED state" line is no longer excused after a reconnect: the page's
        socket writes nothing once closing (js/link.js, openSocket; tests/web/test_closing_socket.py)."""
        return [
            f"{text} (page opened {sockets[0]} WebSocket(s); its life: {'; '.join(life)})"
            for text, sockets, life in self._errors
        ]

    def shot(self, page: Any, name: str) -> Path:
        path = self.artifacts / f"dashboard-{name}.png"
        page.screenshot(path=str(path))
        return path

    def _error(self, text: str, sockets: list[int], life: list[str]) -> None:
        # Only what the page logs while in use: what Chromium logs while the test closes the pages is teardown.
        if not self.closing:
            life.append(f"(error logged: {text[:80]})")
            self._errors.append((text, sockets, life))

    def close(self) -> None:
        self.closing = True
        for context in self.contexts:
            context.close()


@pytest.fixture
def phones(browser: Any, artifacts_dir: Path) -> Iterator[PhoneFactory]:
    factory = PhoneFactory(browser, artifacts_dir)
    yield factory
    factory.close()
    # A script error on the page is a bug even if the assertions passed.
    unexpected = [e for e in factory.errors if not any(fragment in e for fragment in factory.allowed)]
    assert unexpected == [], unexpected


def rigged_attack_game(
    players: list[str], hands: dict[str, list[str]], starter: str, seed: int = 7, dealer: str | None = None
) -> dict[str, Any]:
    """A ``full``-mode ``new_game`` with chosen hands; the rest of the Attack deck goes into the launcher."""
    from unolauncher.rules.cards import RULESETS

    rest = Counter(RULESETS["attack"].deck)
    for card in [starter, *(c for hand in hands.values() for c in hand)]:
        rest[card] -= 1
        assert rest[card] >= 0, f"too many {card}"
    return {
        "type": "new_game",
        "ruleset": "attack",
        "mode": "full",
        "players": players,
        "seed": seed,
        "deal": {"dealer": dealer or players[-1], "hands": hands, "starter": starter, "stock": sorted(rest.elements())},
    }


GameFactory = Callable[..., dict[str, Any]]


@pytest.fixture
def rigged() -> GameFactory:
    return rigged_attack_game


def wait_for_catalogue(page: Any) -> None:
    """Wait until the page has the daemon's rule catalogue (retained ``rules`` topic): the presets the fairness
    check recomputes presses with, the card actions the picker asks a target from (the page keeps no copy)."""
    page.wait_for_function("() => document.body.dataset.presets === 'ready'", timeout=15_000)


def wait_for_state(page: Any, seq: int) -> None:
    """Wait until the page holds a state at least as new as journal position ``seq`` (``body[data-seq]``)."""
    page.wait_for_function("(seq) => Number(document.body.dataset.seq) >= seq", arg=seq, timeout=15_000)
