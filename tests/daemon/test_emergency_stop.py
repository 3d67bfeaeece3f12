"""The emergency stop: ``{"type": "disable"}`` / ``{"type": "enable"}`` (COORDINATION contract, issue 12).

Disabled: motor off at once (from MQTT's own thread, before the command waits in the queue behind anything), every
press refused with ``press_refused`` / ``disabled``, ``enabled: false`` in the retained ``launcher`` status and
``launcher_enabled: false`` in ``sensors``, a ``launcher_disabled`` event (with ``by``); journalled, so a restart
comes back disabled until ``enable``.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from support.daemon import FAST_LAUNCHER, DaemonProcess, TableClient, running_daemon
from support.fault_daemon import FIVE_EVERY_TIME, start_game
from support.net import wait_until
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

from .test_busy import Recorder

SLOW = {**FAST_LAUNCHER, "virtual": {**FAST_LAUNCHER["virtual"], "cards_per_s": 2.0, "pulse_ms": 5.0}}
OVERRIDES: dict[str, dict[str, Any]] = {
    "table": {"lockout": False},
    "launcher": SLOW,
    "homeassistant": {"enabled": False},
}


def test_disable_stops_the_motor_before_it_is_queued_even_behind_a_stuck_worker(tmp_path: Path) -> None:
    overrides = {**OVERRIDES, "launcher": {**SLOW, "preset": "custom", "custom": FIVE_EVERY_TIME}}  # every press fires
    with running_daemon(tmp_path, "estop", overrides=overrides) as daemon:  # no broker needed
        table, virtual, journal, launcher = daemon.table, daemon.virtual, daemon.journal, daemon.launcher
        assert table is not None and journal is not None and virtual is not None and launcher is not None
        assert start_game(table)
        release, writing = threading.Event(), threading.Event()
        write = journal._write

        def stuck_write(entries: Any) -> Any:
            writing.set()
            release.wait()  # the SD card takes its time: the worker is stuck here
            return write(entries)

        journal._write = stuck_write  # type: ignore[method-assign]
        try:
            virtual.press_button()
            assert virtual.motor_pin_high and writing.wait(5)
            table.submit_payload(b'{"id": "e1", "type": "disable", "by": "test"}')  # what paho's thread does
            assert not virtual.motor_pin_high, "off before the command even reached the (stuck) worker"
            assert table.emergency.enabled is False
            assert wait_until(lambda: virtual.pin("button").state, 5)  # released (a timer of the daemon's clock)
            time.sleep(0.05)  # and past the button debounce (30 ms from the release)
            virtual.press_button()
            assert not virtual.motor_pin_high
        finally:
            release.set()
        assert wait_until(table.idle, 10)
        events = journal.events(1, 1000)
        kinds = [e["type"] for e in events]
        assert {"type": "launcher_disabled", "by": "test"}.items() <= events[kinds.index("launcher_disabled")].items()
        refused = [e for e in events if e["type"] == "press_refused"]
        assert refused and refused[-1]["reason"] == "disabled" and "enable it" in refused[-1]["message"]
        fired = [e for e in events if e["type"] == "fired"]
        assert [f["outcome"] for f in fired] == ["stopped"], "the run in progress ended as stopped"
        assert launcher.status().enabled is False


def test_disable_and_enable_over_mqtt_are_journalled_and_survive_a_restart(tmp_path: Path) -> None:
    daemon = DaemonProcess(tmp_path, "estop", overrides=OVERRIDES)
    daemon.start()
    try:
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, "estop") as phone:
            assert wait_until(lambda: phone.launcher is not None and phone.launcher["enabled"] is True, 10)
            reply = phone.command({"type": "disable", "by": "dashboard"})
            assert reply["ok"] and reply["message"] == "The launcher is disabled.", reply
            assert wait_until(lambda: phone.launcher is not None and phone.launcher["enabled"] is False, 10)
            assert wait_until(lambda: sensors(phone).get("launcher_enabled") is False, 10)
            assert phone.command({"type": "press"})["ok"]
            assert wait_until(lambda: kinds(phone).count("press_refused") == 1, 10)
            assert [e["reason"] for e in phone.ordered_events() if e["type"] == "press_refused"] == ["disabled"]
            again = phone.command({"type": "disable"})
            assert again["ok"] and again["message"] == "The launcher is already disabled."
            bad = phone.command({"type": "enable", "by": 7})
            assert not bad["ok"] and bad["code"] == "bad_field" and bad["message"].startswith("by "), bad
            # a new game writes a referee snapshot note, which records the emergency stop as journalled
            assert phone.command({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": 3})["ok"]
            assert kinds(phone).count("launcher_disabled") == 1 and "launcher_enabled" not in kinds(phone)
        daemon.stop()
        daemon.start()  # the journal says disabled: the launcher comes back disabled
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, "estop") as phone:
            status = phone.command({"type": "status"})["data"]["launcher"]
            assert status["enabled"] is False and status["motor_on"] is False
            assert phone.command({"type": "press"})["ok"]
            assert wait_until(lambda: any(e.get("reason") == "disabled" for e in phone.ordered_events()[-3:]), 10)
            reply = phone.command({"type": "enable", "by": "home assistant"})
            assert reply["ok"] and reply["message"] == "The launcher is enabled.", reply
            assert wait_until(lambda: phone.launcher is not None and phone.launcher["enabled"] is True, 10)
            enabled = [e for e in phone.ordered_events() if e["type"] == "launcher_enabled"]
            assert enabled and enabled[-1]["by"] == "home assistant"
        daemon.stop()
        daemon.start()  # enabled after the snapshot note: the restart finds the later event
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, "estop") as phone:
            assert phone.command({"type": "status"})["data"]["launcher"]["enabled"] is True
            seen = phone.last_seq()
            assert phone.command({"type": "press"})["ok"]
            assert wait_until(lambda: "press" in kinds(phone, after=seen), 10), "presses are accepted again"
    finally:
        daemon.stop()


def sensors(client: TableClient) -> dict[str, Any]:
    with client.lock:
        payloads = [p for topic, p, _ in client.messages if topic.endswith("/sensors")]
    return json.loads(payloads[-1]) if payloads else {}


def kinds(client: TableClient, after: int = 0) -> list[str]:
    return [e["type"] for e in client.ordered_events() if e["seq"] > after]


def test_an_empty_or_bad_by_is_refused_in_one_sentence_and_changes_nothing(tmp_path: Path) -> None:
    """``by`` (who pressed the stop) is 1-64 printable characters, as the command's schema says: an empty one is
    refused like any bad field — one sentence naming it — and neither stops the motor nor is journalled."""
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder())
    table.start()
    try:
        for i, by in enumerate(["", "x" * 65, "a\u202eb"]):
            table.submit_payload(json.dumps({"id": i, "type": "disable", "by": by}).encode())
        table.submit_payload(b'{"id": "ok", "type": "disable", "by": "x"}')
        assert wait_until(table.idle, 10)
    finally:
        table.stop()
    replies = table.output.replies  # type: ignore[attr-defined]
    rule = "by must be printable text without control or bidi-override characters, 1 to 64 characters."
    assert [(r["id"], r["ok"], r["code"], r["message"]) for r in replies[:3]] == [
        (i, False, "bad_field", rule) for i in range(3)
    ]
    assert replies[3]["ok"] and replies[3]["id"] == "ok"
    kinds = [e["type"] for e in table.journal.events(1, 100)]
    assert kinds == ["launcher_disabled"], "only the valid disable was journalled"
