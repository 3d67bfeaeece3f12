"""The table in Home Assistant's own frontend, photographed by headless Chromium for docs/home-assistant.md.

    .venv/bin/python tests_ha/screenshot.py docs/img/home-assistant.png

A real Home Assistant (the cached install of ``dev.py ha-check``), onboarded, MQTT added through the config flow, a
daemon on its embedded broker with a game of two rounds played by bots; then the browser logs in with the owner's
tokens and photographs the Overview dashboard, which Home Assistant builds from the device's entities.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from support.daemon import TableClient  # noqa: E402
from support.net import free_port  # noqa: E402
from tests_ha.home_assistant import CLIENT_ID, HomeAssistant, ensure_installed, find_python  # noqa: E402
from tests_ha.test_real_home_assistant import daemon, play_rounds  # noqa: E402

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def main(out: Path) -> None:
    python = find_python()
    if python is None:
        sys.exit("no Python >= 3.13 for Home Assistant")
    with tempfile.TemporaryDirectory() as tmp, HomeAssistant(Path(tmp), ensure_installed(python)) as ha:
        ha.onboard()
        port = free_port()
        broker = {"section": {"embedded": True, "port": port, "ws_port": free_port()}, "port": port}
        table_daemon = daemon(Path(tmp) / "kitchen", "kitchen", broker)
        table_daemon.start()
        try:
            ha.add_mqtt(port)
            assert ha.wait_state("sensor.uno_kitchen_phase", lambda s: s == "idle", 120)
            table = TableClient(table_daemon.mqtt_host, table_daemon.mqtt_port, "kitchen", name="screenshot")
            try:
                play_rounds(table, 2)
                table.command({"type": "next_round"})
            finally:
                table.close()
            assert ha.wait_state("sensor.uno_kitchen_phase", lambda s: s == "playing", 60)
            tokens = {
                **ha.tokens,
                "hassUrl": ha.base,
                "clientId": CLIENT_ID,
                "expires": int(time.time() * 1000) + 1_800_000,
            }
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 1400})
                page.goto(ha.base + "/auth/authorize")
                page.evaluate(f"localStorage.setItem('hassTokens', {json.dumps(json.dumps(tokens))})")
                page.goto(ha.base + "/lovelace/0")
                page.wait_for_timeout(8000)  # the frontend loads its chunks and entity states over its websocket
                page.screenshot(path=str(out), full_page=True)
                browser.close()
        finally:
            table_daemon.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img" / "home-assistant.png")
