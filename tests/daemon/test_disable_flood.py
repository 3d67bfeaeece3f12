"""#33 item 4: a flood of valid ``disable`` commands (the emergency stop, never refused as ``busy``) stays bounded.

Each ``disable`` stops the motor where it arrives; one queued right behind another queued disable is answered at once
at QoS 0 instead of queued (EmergencyStop.merge). 60,000 disables once took the daemon from 33 to 122-132 MB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from daemon.test_busy import Recorder, payload
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

pytestmark = pytest.mark.timeout(600)

FLOOD = 60_000
RSS_BOUND_MB = 20  # generous: the unbounded queue grew ~90 MB; the merged flood measured +1-3 MB here


def test_merged_disables_never_hide_a_later_enable_or_disable(tmp_path: Path) -> None:
    """disable, disable, enable, disable with the worker held: the second is merged, the last is not; the journal's
    last word is the last command's."""
    output = Recorder()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    table.start()
    try:
        with table.lock:
            table.submit_payload(payload({"type": "status"}, "hold"))  # the worker takes it and waits for the lock
            assert wait_until(lambda: table._queued_commands == 0, 5)
            for i, kind in enumerate(["disable", "disable", "enable", "disable", "disable"]):
                table.submit_payload(payload({"type": kind}, f"{kind}{i}"))
            assert table.emergency.merged == 2 and not table.emergency.enabled
        assert wait_until(table.idle, 10)
        assert [r["id"] for r in output.replies if r.get("id") != "hold"] == [
            "disable1",
            "disable4",
            "disable0",
            "enable2",
            "disable3",
        ]  # the merged ones at once, the rest in order
        assert all(r["ok"] for r in output.replies), output.replies
        events = [e["type"] for e in table.journal.events(1, 100) if e["type"].startswith("launcher_")]
        assert events == ["launcher_disabled", "launcher_enabled", "launcher_disabled"]
        assert not table.emergency.enabled and table.emergency.journalled is False
    finally:
        table.stop()


def test_60000_disables_keep_the_daemon_small_and_answering(tmp_path: Path) -> None:
    """On mosquitto, so that the RSS is the daemon's own: amqtt (the embedded broker, in the daemon's process) takes
    minutes for 60,000 messages on a loaded 2-core machine and keeps its own per-message tasks meanwhile."""
    broker = "mosquitto"
    mosquitto = Mosquitto()
    mosquitto.start()
    try:
        daemon = DaemonProcess(tmp_path / "d", broker_port=mosquitto.port)
        with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port, name="flooder") as flooder:
            rss_before = daemon.rss_mb()
            disable = json.dumps({"type": "disable", "by": "flood"})
            for _ in range(FLOOD):  # bounded
                flooder.client.publish("unolauncher/t1/cmd", disable, qos=0)
            # The broker hands the daemon one client's messages in order: once this is answered, every disable
            # before it has been handled (on a loaded 2-core machine that takes minutes; the wait is for the state).
            status = flooder.command({"type": "status"}, timeout=200)
            rss_after = daemon.rss_mb()
            assert status["ok"] and status["data"]["launcher"]["enabled"] is False, status
            assert flooder.command({"type": "enable"}, timeout=30)["ok"]
            assert flooder.command({"type": "disable"}, timeout=30)["message"] == "The launcher is disabled."
            replies = flooder.reply_count
        print(f"\n{broker}: {FLOOD} disables, {replies} replies, RSS {rss_before:.0f} -> {rss_after:.0f} MB")
        assert rss_after - rss_before < RSS_BOUND_MB, f"RSS {rss_before:.0f} -> {rss_after:.0f} MB"
    finally:
        mosquitto.stop()
