"""Issue #25, free play (``lockout = false``, no round open): a phone adds its entropy to free play as to a round,
without a tap. Real Chromium runs the dashboard against a real daemon: free play's commitment is out before anyone
presses (the daemon opens it itself), the page commits and reveals, and the first press seals the page's
contribution into free play's key; the page says so ("in the mix")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until

from .conftest import TABLE, PhoneFactory

FREE_PLAY: dict[str, dict[str, Any]] = {
    "dashboard": {"enabled": True, "host": "127.0.0.1", "port": 0},
    "homeassistant": {"enabled": False},
    "launcher": {"allow_rigged": False},
    "table": {"lockout": False},
}


def test_a_phone_adds_its_entropy_to_free_play(phones: PhoneFactory, tmp_path: Path) -> None:
    with (
        DaemonProcess(tmp_path, table=TABLE, overrides=FREE_PLAY) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="free") as client,
    ):
        assert client.command({"type": "resend", "from": 1})["ok"]  # opened at start, before this client connected
        assert wait_until(lambda: [e for e in client.ordered_events() if e.get("type") == "ejection_commit"], 10)
        free = next(e for e in client.ordered_events() if e.get("type") == "ejection_commit")
        assert free["reason"] == "free" and not [e for e in client.ordered_events() if e.get("type") == "press"]
        page = phones.open(str(daemon.endpoints["dashboard_url"]))

        def revealed() -> list[dict[str, Any]]:
            return [e for e in client.ordered_events() if e.get("type") == "ejection_entropy_revealed"
                    and e.get("commitment") == free["commitment"]]  # fmt: skip

        assert wait_until(revealed, 20), "the page never committed and revealed its entropy to free play"
        committed = [json.loads(p) for t, p, _ in list(client.messages) if t.endswith("/cmd")]
        mine = next(c for c in committed if c.get("type") == "entropy" and "hash" in c)
        assert mine["commitment"] == free["commitment"]
        reply = client.command({"type": "press"})  # nobody's turn, lockout off: free play's first press
        assert reply["ok"], reply
        assert wait_until(lambda: [e for e in client.ordered_events() if e.get("type") == "press"], 10)
        mixed = [e for e in client.ordered_events() if e.get("type") == "ejection_entropy"]
        assert [(e["commitment"], e["hash"]) for e in mixed] == [(free["commitment"], mine["hash"])], mixed
        own = page.locator(f'li[data-commitment="{free["commitment"]}"] .fairness-own')
        assert wait_until(lambda: own.count() == 1 and own.get_attribute("data-status") == "in the mix", 10), (
            own.all_text_contents()
        )
