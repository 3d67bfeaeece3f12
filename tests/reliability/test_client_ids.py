"""#33 item 3: on mosquitto with the shipped configuration, the phones' ``dashboard`` login cannot kick the daemon.

mosquitto 2.0 gives a client id to whoever connects with it last, whatever its login (it has no per-login client
ids short of the dynamic-security plugin), and the daemon's id used to be the documented ``unolauncher-<table>``:
a phone's login connecting with it and the daemon kicked each other off every second. The daemon's id is now new
and random at every start, and mosquitto tells no client the others' ids; this attack uses the documented id, and
the table stays online and answers every query.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from reliability.test_acl import USERS, shipped_auth_config
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.bus.client import stop_loop

pytestmark = pytest.mark.timeout(120)

QUERIES = 18


def test_the_dashboard_login_cannot_take_the_daemons_id(tmp_path: Path) -> None:
    with Mosquitto(extra_config=shipped_auth_config(tmp_path)) as broker:
        daemon = DaemonProcess(
            tmp_path / "d",
            table="t1",
            broker_port=broker.port,
            overrides={"broker": {"username": "t1", "password": USERS["t1"]}},
        )
        with (
            daemon,
            TableClient("127.0.0.1", broker.port, "t1", name="phone", auth=("dashboard", USERS["dashboard"])) as phone,
        ):
            assert wait_until(lambda: phone.status == "online", 5)
            connects: list[Any] = []
            intruder = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="unolauncher-t1")  # the documented id
            intruder.username_pw_set("dashboard", USERS["dashboard"])
            intruder.on_connect = lambda c, u, f, reason, p: connects.append(reason)
            intruder.reconnect_delay_set(1, 1)  # kicked off by the daemon, it comes straight back
            intruder.connect("127.0.0.1", broker.port)
            intruder.loop_start()
            try:
                assert wait_until(lambda: connects, 5)
                answered = 0
                for _ in range(QUERIES):
                    try:
                        answered += phone.command({"type": "status"}, timeout=3)["ok"]
                    except TimeoutError:
                        pass
                    time.sleep(0.3)  # spread over ~6 s, the intruder reconnecting every second if it was kicked
            finally:
                intruder.disconnect()
                stop_loop(intruder)
            flips = phone.messages_on("status").count(b"offline")
            assert (answered, flips) == (QUERIES, 0), f"{answered}/{QUERIES} answered, {flips} offline flips"
            assert len(connects) == 1, "the intruder was kicked off: someone else used its id"
