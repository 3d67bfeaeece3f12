"""The shipped mosquitto configuration (``systemd/mosquitto/``) keeps tables apart.

The test runs mosquitto with the shipped ACL file verbatim and the shipped authentication settings (only the file
paths and the listener are the test's), two real table daemons logged in with their own credentials, and a client
holding one table's password that tries to command, spoof and spy on the other table.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from reliability.helpers import status_with_credentials
from support.daemon import DaemonProcess
from support.mosquitto import Mosquitto, add_password
from support.net import wait_until

pytestmark = pytest.mark.timeout(120)

SHIPPED = Path(__file__).resolve().parents[2] / "systemd" / "mosquitto"
NOT_AUTHORISED = 0x87
USERS = {"t1": "pw-one", "t2": "pw-two", "dashboard": "pw-dash"}


def shipped_auth_config(tmp_path: Path) -> str:
    """The shipped unolauncher.conf's access settings, with the password and ACL files moved to ``tmp_path``."""
    conf = (SHIPPED / "unolauncher.conf").read_text()
    settings = dict(
        line.split(None, 1) for line in conf.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
    assert settings.get("allow_anonymous") == "false", "the shipped broker must refuse anonymous clients"
    assert "acl_file" in settings and "password_file" in settings
    acl = tmp_path / "unolauncher.acl"
    shutil.copy(SHIPPED / "unolauncher.acl", acl)
    pw = tmp_path / "unolauncher.passwd"
    pw.write_text("")
    for user, password in USERS.items():
        add_password(pw, user, password)
    for path in (acl, pw):
        path.chmod(0o644)
    # `user root`: mosquitto started as root drops to the mosquitto user, which cannot read pytest's tmp_path.
    return f"user root\nallow_anonymous false\npassword_file {pw}\nacl_file {acl}"


class Rogue:
    """An MQTT 5 client that records PUBACK and SUBACK reason codes (the broker says why it refused)."""

    def __init__(self, port: int, username: str | None, password: str | None) -> None:
        self.pubacks: dict[int, int] = {}
        self.subacks: list[int] = []
        self.connack: int | None = None
        self.received: list[str] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"rogue-{username}", protocol=mqtt.MQTTv5)
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.client.on_publish = lambda c, u, mid, reason, props: self.pubacks.__setitem__(mid, reason.value)
        self.client.on_subscribe = lambda c, u, mid, reasons, props: self.subacks.extend(r.value for r in reasons)
        self.client.on_message = lambda c, u, msg: self.received.append(msg.topic)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connack = reason.value

    def publish(self, topic: str, payload: str, retain: bool = False) -> int:
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        assert wait_until(lambda: info.mid in self.pubacks, 5), f"no PUBACK for {topic}"
        return self.pubacks[info.mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_shipped_acl_refuses_another_tables_cmd_and_spoofing(tmp_path: Path) -> None:
    with Mosquitto(extra_config=shipped_auth_config(tmp_path)) as broker:
        daemons = []
        try:
            for table in ("t1", "t2"):
                daemon = DaemonProcess(
                    tmp_path / table,
                    table=table,
                    broker_port=broker.port,
                    overrides={"broker": {"username": table, "password": USERS[table]}},
                )
                daemon.start()
                daemons.append(daemon)
            before = status_with_credentials(broker.port, "t2", "dashboard", USERS["dashboard"])
            assert before["ok"]

            rogue = Rogue(broker.port, "t1", USERS["t1"])  # a stolen or misconfigured table-1 login
            try:
                assert wait_until(lambda: rogue.connack == 0, 5)
                new_game = {"id": "evil", "type": "new_game", "ruleset": "attack", "players": ["x", "y"]}
                assert rogue.publish("unolauncher/t2/cmd", json.dumps(new_game)) == NOT_AUTHORISED
                assert rogue.publish("unolauncher/t2/events", '{"type": "play", "seq": 999}') == NOT_AUTHORISED
                assert rogue.publish("unolauncher/t2/state", '{"players": []}', retain=True) == NOT_AUTHORISED
                assert rogue.publish("unolauncher/t2/status", "offline", retain=True) == NOT_AUTHORISED
                assert rogue.publish("homeassistant/sensor/unolauncher_t2/x/config", "{}") == NOT_AUTHORISED
                assert rogue.publish("unolauncher/t1/cmd", json.dumps({"type": "status"})) == 0  # its own: allowed
                # mosquitto grants a subscription and applies the read ACL to each message it would deliver, so
                # the proof is that nothing of table 2 (retained status/state, replies) ever arrives.
                rogue.client.subscribe([("unolauncher/t2/#", 1), ("unolauncher/#", 1)])
                assert wait_until(lambda: len(rogue.subacks) == 2, 5)
                status_with_credentials(broker.port, "t2", "dashboard", USERS["dashboard"])  # table 2 talks
                assert rogue.publish("unolauncher/t1/cmd", json.dumps({"type": "status"})) == 0
                assert wait_until(lambda: any(t.startswith("unolauncher/t1/") for t in rogue.received), 5)
                leaked = [t for t in rogue.received if t.startswith("unolauncher/t2/")]
                assert leaked == [], f"table 1's login read table 2's {leaked}"
            finally:
                rogue.close()

            anonymous = Rogue(broker.port, None, None)
            try:
                assert wait_until(lambda: anonymous.connack is not None, 5)
                assert anonymous.connack != 0, "anonymous clients must be refused"
            finally:
                anonymous.close()

            time.sleep(0.5)  # anything that slipped through would have reached table 2 by now
            after = status_with_credentials(broker.port, "t2", "dashboard", USERS["dashboard"])
            assert after["ok"] and after["data"]["seq"] == before["data"]["seq"] == 0
            assert after["data"]["state"]["players"] == []
            assert "evil" not in daemons[1].log_text()
            for daemon in daemons:
                assert daemon.alive()
        finally:
            for daemon in daemons:
                daemon.stop()
