"""systemd integration: the unit file, the notify protocol end to end, motor off on stop, the mosquitto config.

The unit's required settings are checked by our own parser on every machine; `systemd-analyze verify` is a test of
its own, behind the binary gate (skipped with a reason without systemd, a failure under CI=true).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from support.binaries import require_binary
from support.daemon import FAST_LAUNCHER, DaemonProcess, TableClient, running_daemon
from support.mosquitto import add_password, require_mosquitto
from support.net import free_port, wait_for_port, wait_until
from support.process import end_process

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "unolauncher.service"
MOSQUITTO_DIR = ROOT / "systemd" / "mosquitto"

pytestmark = pytest.mark.timeout(120)


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """systemd's unit syntax: [Section], Key=Value, repeated keys allowed, # and ; comments."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            sections.setdefault(current, [])
            continue
        assert current is not None, f"line {number}: key outside a section"
        assert "=" in line, f"line {number}: not Key=Value: {line!r}"
        key, value = line.split("=", 1)
        assert key.strip() == key and key.isidentifier(), f"line {number}: bad key {key!r}"
        sections[current].append((key, value.strip()))
    return sections


def values(section: list[tuple[str, str]], key: str) -> list[str]:
    return [v for k, v in section if k == key]


def test_unit_file_has_what_the_table_needs() -> None:
    unit = parse_unit(UNIT.read_text())
    assert set(unit) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    one = {k: v for k, v in service}
    assert one["Type"] == "notify" and one["NotifyAccess"] == "main"
    assert int(one["WatchdogSec"]) >= 10
    assert one["Restart"] == "on-failure"
    assert "unolauncher run" in one["ExecStart"]
    assert one["User"] == "unolauncher" and {"gpio", "dialout"} <= set(one["SupplementaryGroups"].split())
    assert one["StateDirectory"] == "unolauncher"
    assert one["WorkingDirectory"] == "/var/lib/unolauncher"
    assert one["ProtectSystem"] == "strict" and "/var/lib/unolauncher" in one["ReadWritePaths"].split()
    assert one["DevicePolicy"] == "closed"
    allowed = " ".join(values(service, "DeviceAllow"))
    assert "char-gpiochip" in allowed and "char-ttyACM" in allowed
    assert one["KillSignal"] == "SIGTERM"
    # Two malloc arenas, not eight per core: the daemon's idle RSS (docs/performance.md, "Daemon RSS idle").
    assert "MALLOC_ARENA_MAX=2" in values(service, "Environment")
    assert values(unit["Install"], "WantedBy") == ["multi-user.target"]
    # The motor guard's thread asks for SCHED_FIFO: the unit must allow that priority and not forbid real time.
    from unolauncher.launcher.backends.gpio.launcher import GUARD_REALTIME_PRIORITY

    assert int(one["LimitRTPRIO"]) >= GUARD_REALTIME_PRIORITY and one.get("RestrictRealtime", "no") == "no"


def test_unit_file_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = require_binary("systemd-analyze")
    # verify needs an executable ExecStart: point it at this checkout's entry point
    entry = Path(sys.executable).with_name("unolauncher")
    text = UNIT.read_text().replace("/opt/unolauncher/venv/bin/unolauncher", str(entry))
    (tmp_path / "unolauncher.service").write_text(text)
    result = subprocess.run(
        [analyze, "verify", str(tmp_path / "unolauncher.service")], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "unolauncher.service" not in result.stderr, result.stderr  # e.g. "Unknown key ..., ignoring"


def test_notify_ready_watchdog_and_stopping_from_a_real_daemon(tmp_path: Path) -> None:
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(15)
        daemon = DaemonProcess(tmp_path, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000"})
        daemon.start()
        try:
            messages = [sock.recv(4096).decode()]
            assert messages[0].startswith("READY=1\n") and f"MAINPID={daemon.process.pid}" in messages[0]  # type: ignore[union-attr]
            started = time.monotonic()
            while messages[-1] != "WATCHDOG=1":
                messages.append(sock.recv(4096).decode())
            assert time.monotonic() - started < 3, "watchdog pings every half WatchdogSec"
        finally:
            assert daemon.stop() == 0
        tail = []
        sock.settimeout(0.5)
        try:
            while True:
                tail.append(sock.recv(4096).decode())
        except TimeoutError:
            pass
        assert "STOPPING=1" in tail


def test_motor_is_switched_off_by_a_stop_request_mid_run(tmp_path: Path) -> None:
    slow = {"virtual": {**FAST_LAUNCHER["virtual"], "cards_per_s": 2.0, "pulse_ms": 5.0}}
    overrides: dict[str, dict[str, Any]] = {"table": {"lockout": False}, "launcher": slow}
    with running_daemon(tmp_path, "motor", overrides=overrides) as daemon:  # no broker: fine
        virtual = daemon.virtual
        assert daemon.table is not None and virtual is not None
        daemon.table.submit_command(
            {"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": 1, "launcher": {"seed": 5}}
        )
        for _ in range(40):  # press until one fires (the model decides which presses do)
            assert wait_until(daemon.table.idle, 5)
            time.sleep(0.05)  # pacing: past the button's 30 ms debounce
            virtual.press_button()
            if wait_until(lambda: virtual.motor_pin_high, 0.2):
                break
        assert virtual.motor_pin_high, "some press should have started the motor"
        daemon.request_stop()  # what SIGTERM does
        assert not virtual.motor_pin_high, "motor off at once, before anything else stops"
    assert not virtual.motor_pin_high


def _mosquitto_with_shipped_config(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int, int]:
    binary = require_mosquitto()
    passwd = tmp_path / "passwd"
    for user in ("kitchen", "hall", "dashboard"):
        add_password(passwd, user, f"{user}-secret", create=user == "kitchen")
    acl = tmp_path / "unolauncher.acl"
    shutil.copy(MOSQUITTO_DIR / "unolauncher.acl", acl)
    port, ws_port = free_port(), free_port()
    conf = (MOSQUITTO_DIR / "unolauncher.conf").read_text()
    conf = (
        conf.replace("/etc/mosquitto/unolauncher.passwd", str(passwd))
        .replace("/etc/mosquitto/unolauncher.acl", str(acl))
        .replace("persistence true", "persistence false")
        .replace("listener 1883", f"listener {port} 127.0.0.1")
        .replace("listener 9001", f"listener {ws_port}")
    )
    if os.geteuid() == 0:  # as root mosquitto drops to user "mosquitto", which cannot read files in our tmp dir
        conf += "user root\n"
    (tmp_path / "m.conf").write_text(conf)
    log = (tmp_path / "m.log").open("wb")
    process = subprocess.Popen([binary, "-c", str(tmp_path / "m.conf"), "-v"], stdout=log, stderr=subprocess.STDOUT)
    wait_for_port(port)
    wait_for_port(ws_port)
    return process, port, ws_port


def _client(port: int, user: str, topic: str, received: list[str], transport: str = "tcp") -> mqtt.Client:
    """A client subscribed to ``topic``: returns once the broker has acknowledged the subscription."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"acl-{user}-{transport}", transport=transport)  # type: ignore[arg-type]
    if transport == "websockets":
        client.ws_set_options(path="/mqtt")
    client.username_pw_set(user, f"{user}-secret")
    client.on_message = lambda c, u, m: received.append(m.topic)
    subscribed = threading.Event()
    client.on_subscribe = lambda *args: subscribed.set()
    # Subscribe once connected and wait for the SUBACK: the state the checks below need, not a guessed delay.
    client.on_connect = lambda c, u, f, reason, p: c.subscribe(topic, qos=1)
    client.connect("127.0.0.1", port)
    client.loop_start()
    if not subscribed.wait(10):
        client.loop_stop()
        raise AssertionError(f"{user} over {transport}: no SUBACK for {topic}")
    return client


def test_shipped_mosquitto_config_keeps_each_table_to_its_own_topics(tmp_path: Path) -> None:
    process, port, ws_port = _mosquitto_with_shipped_config(tmp_path)
    clients: list[mqtt.Client] = []
    try:
        kitchen_got: list[str] = []
        hall_got: list[str] = []
        phone_got: list[str] = []
        kitchen = _client(port, "kitchen", "unolauncher/#", kitchen_got)
        clients.append(kitchen)
        hall = _client(port, "hall", "unolauncher/hall/#", hall_got)
        clients.append(hall)
        phone = _client(ws_port, "dashboard", "unolauncher/#", phone_got, transport="websockets")
        clients.append(phone)
        # Each forbidden publish below is acknowledged before the allowed one that follows it, and mosquitto
        # queues deliveries to one subscriber in the order it accepted the messages: once the allowed message
        # has arrived, a forbidden one that got through would already be there. No wait for "nothing came".
        kitchen.publish("unolauncher/kitchen/events", "k", qos=1).wait_for_publish(5)
        kitchen.publish("unolauncher/hall/cmd", "forged", qos=1).wait_for_publish(5)  # not its table: dropped
        phone.publish("unolauncher/hall/cmd", "from-phone", qos=1).wait_for_publish(5)
        phone.publish("unolauncher/hall/state", "forged-state", qos=1).wait_for_publish(5)  # phones only send cmd
        hall.publish("unolauncher/hall/events", "h", qos=1).wait_for_publish(5)
        kitchen.publish("unolauncher/kitchen/events", "k2", qos=1).wait_for_publish(5)
        assert wait_until(lambda: "unolauncher/hall/events" in hall_got, 5), hall_got
        assert wait_until(lambda: kitchen_got.count("unolauncher/kitchen/events") == 2, 5), kitchen_got
        assert wait_until(lambda: phone_got.count("unolauncher/kitchen/events") == 2, 5), phone_got
        assert hall_got.count("unolauncher/hall/cmd") == 1, hall_got  # only the phone's
        assert "unolauncher/hall/state" not in hall_got
        assert "unolauncher/hall/events" not in kitchen_got, "kitchen must not read hall's topics"
        assert "unolauncher/hall/events" in phone_got
        refused: list[object] = []
        anonymous = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="acl-anon")
        anonymous.on_connect = lambda c, u, f, reason, p: refused.append(reason.is_failure)
        anonymous.connect("127.0.0.1", port)
        anonymous.loop_start()
        clients.append(anonymous)
        assert wait_until(lambda: refused == [True], 5), "anonymous clients are refused"
        # and a real daemon works through it with its table credentials
        daemon = DaemonProcess(
            tmp_path / "d",
            table="kitchen",
            broker_port=port,
            overrides={"broker": {"username": "kitchen", "password": "kitchen-secret"}},
        )
        with (
            daemon,
            TableClient("127.0.0.1", port, "kitchen", name="phone", auth=("dashboard", "dashboard-secret")) as phone_ui,
        ):
            assert phone_ui.command({"type": "status"})["ok"]  # a phone commands the table through the ACL
            assert wait_until(lambda: phone_ui.status == "online", 5)
    finally:
        for client in clients:
            client.disconnect()
            client.loop_stop()
        end_process(process, 5)
