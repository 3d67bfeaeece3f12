"""Fixtures for the dashboard's browser tests: a real broker, a table behind it, the page server, headless Chromium.

Chromium is Debian's (``/usr/bin/chromium``) driven by Playwright for Python; never ``playwright install``.
Without Chromium or Playwright the browser tests skip with the reason (a failure under ``CI=true``).
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.mosquitto import Mosquitto
from unolauncher.web.server import DashboardServer

from .standin import StandInTable

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
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


def chromium_path() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        if os.path.exists(candidate):
            return candidate
    found = shutil.which("chromium")
    return found


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright (Python) is not installed (pip install playwright; no browser download needed)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def broker() -> Iterator[Mosquitto]:
    with Mosquitto(websockets=True) as mosquitto:
        yield mosquitto


@pytest.fixture(scope="module")
def table(broker: Mosquitto) -> Iterator[StandInTable]:
    with StandInTable(broker.port, TABLE) as stand_in:
        yield stand_in


@pytest.fixture(scope="module")
def dashboard(broker: Mosquitto, table: StandInTable) -> Iterator[DashboardServer]:
    config = {"mqtt_url": f"ws://{{host}}:{broker.ws_port}/mqtt", "table": TABLE, "launcher": "virtual"}
    with DashboardServer("127.0.0.1", 0, config) as server:
        yield server


class PhoneFactory:
    """Opens pages at a phone viewport, each in its own browser context (own cache and localStorage)."""

    def __init__(self, browser: Any, artifacts: Path) -> None:
        self.browser = browser
        self.artifacts = artifacts
        self.contexts: list[Any] = []
        self.errors: list[str] = []
        self.allowed: list[str] = []

    def allow(self, fragment: str) -> None:
        """A console error containing ``fragment`` is expected in this test (e.g. refused WebSockets in an outage)."""
        self.allowed.append(fragment)

    def open(self, url: str, context: Any = None) -> Any:
        if context is None:
            context = self.browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True, is_mobile=True)
            self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: self.errors.append(f"console: {msg.text}") if msg.type == "error" else None)
        page.goto(url)
        return page

    def shot(self, page: Any, name: str) -> Path:
        path = self.artifacts / f"dashboard-{name}.png"
        page.screenshot(path=str(path))
        return path

    def close(self) -> None:
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
    players: list[str], hands: dict[str, list[str]], starter: str, script: list[int] | None = None,
    dealer: str | None = None,
) -> dict[str, Any]:
    """A ``full``-mode ``new_game`` with chosen hands; the rest of the Attack deck goes into the launcher."""
    from unolauncher.rules.cards import RULESETS

    rest = Counter(RULESETS["attack"].deck)
    for card in [starter, *(c for hand in hands.values() for c in hand)]:
        rest[card] -= 1
        assert rest[card] >= 0, f"too many {card}"
    stock = sorted(rest.elements())
    command: dict[str, Any] = {
        "type": "new_game", "ruleset": "attack", "mode": "full", "players": players, "seed": 7,
        "deal": {"dealer": dealer or players[-1], "hands": hands, "starter": starter, "stock": stock},
    }
    if script is not None:
        command["launcher"] = {"script": script}
    return command


GameFactory = Callable[..., dict[str, Any]]


@pytest.fixture
def rigged() -> GameFactory:
    return rigged_attack_game
