"""A broker that refuses keeps nothing from arriving later: refused events stay in the outbox, the table says once
why and how to fix it, retries with back-off, and once the broker's ACL is fixed (and reloaded with SIGHUP) every
event arrives, in order, once.

Real mosquitto with a password file and an ACL that leaves out the table's ``events`` (MQTT 5: PUBACK reason code
0x87 Not authorized); a real ``unolauncher run``. (mosquitto 2.0 grants every subscription and applies its read ACL
to each message instead, so a SUBACK refusal is checked against the bus itself in ``tests/bus/test_mqtt_bus.py``.)
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from daemon.game import NEW_GAME

from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto, add_password
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee

pytestmark = pytest.mark.timeout(120)

TABLE_TOPICS = ("reply", "state", "status", "launcher", "sensors", "press", "alive", "motor", "refusal", "rules")


def acl(table_may: tuple[str, ...], read_cmd: bool = True) -> str:
    """An ACL for user ``t1`` (the table) that allows exactly ``table_may`` (written) and, with ``read_cmd``, reading
    ``cmd``; the ``watcher`` login may read and write everything of the table."""
    lines = ["user t1", *(f"topic write unolauncher/t1/{name}" for name in table_may)]
    lines.append("topic readwrite unolauncher/t1/probe")  # the daemon's own deafness probe (bus/deafness.py)
    if read_cmd:
        lines.append("topic read unolauncher/t1/cmd")
    return "\n".join([*lines, "user watcher", "topic readwrite unolauncher/#", ""])


def broker_with_acl(tmp_path: Path, rules: str) -> tuple[Mosquitto, Path]:
    passwords, acl_file = tmp_path / "passwd", tmp_path / "acl"
    passwords.write_text("")
    add_password(passwords, "t1", "table-secret")
    add_password(passwords, "watcher", "watch-secret")
    acl_file.write_text(rules)
    for path in (passwords, acl_file):
        path.chmod(0o644)
    # `user root`: mosquitto started as root drops to the mosquitto user, which cannot read pytest's tmp_path.
    config = f"user root\nallow_anonymous false\npassword_file {passwords}\nacl_file {acl_file}"
    return Mosquitto(extra_config=config), acl_file


def table_daemon(tmp_path: Path, port: int) -> DaemonProcess:
    broker = {"username": "t1", "password": "table-secret", "protocol": "5", "reconnect_min": 1, "reconnect_max": 2}
    overrides: dict[str, dict[str, Any]] = {"broker": broker, "homeassistant": {"enabled": False}}
    return DaemonProcess(tmp_path / "daemon", table="t1", broker_port=port, overrides=overrides)


@contextmanager
def refusing_table(tmp_path: Path, rules: str) -> Iterator[tuple[Mosquitto, Path, DaemonProcess, TableClient]]:
    """mosquitto with the ACL ``rules``, the table's daemon on it, and the ``watcher``'s client (MQTT 5):
    (broker, its ACL file, daemon, watcher); all stopped on the way out."""
    broker, acl_file = broker_with_acl(tmp_path, rules)
    with broker:
        daemon = table_daemon(tmp_path, broker.port)
        daemon.start()
        watcher = TableClient(
            "127.0.0.1", broker.port, "t1", mqtt5=True, name="watcher", auth=("watcher", "watch-secret")
        )
        try:
            yield broker, acl_file, daemon, watcher
        finally:
            watcher.close()
            daemon.stop()


def refusals_logged(daemon: DaemonProcess) -> list[str]:
    return [line for line in daemon.log_text().splitlines() if "refused to let the table" in line]


def denied_events(broker: Mosquitto) -> int:
    """How many publishes to ``events`` mosquitto (``-v``) denied the table. Once refused, the table retries by
    sending its oldest refused event alone, so after that each new one is one retry."""
    lines = broker.log_path.read_text(errors="replace").splitlines()
    denied = ("Denied PUBLISH from unolauncher-t1-", "'unolauncher/t1/events'")
    return sum(1 for line in lines if all(part in line for part in denied))


def test_refused_events_stay_in_the_outbox_and_arrive_in_order_once_the_acl_allows_them(tmp_path: Path) -> None:
    with refusing_table(tmp_path, acl(TABLE_TOPICS)) as (broker, acl_file, daemon, watcher):
        mirror, bot = Referee(), Bot("random", seed=5)
        commands = [NEW_GAME]
        mirror.handle(NEW_GAME)
        for _ in range(12):
            command = bot.next_command(mirror)
            assert command is not None
            commands.append(command)
            mirror.handle(command)
        for command in commands:  # replies are allowed: each command is accepted and journalled
            assert watcher.command(command)["ok"]
        status = watcher.command({"type": "status"})["data"]
        journalled = status["seq"]
        assert journalled > 12
        # Several retries with back-off (1, 2, 2 s), each denied by the broker.
        assert wait_until(lambda: denied_events(broker) >= 1, 10), "the broker denied the first event"
        tried = denied_events(broker)
        assert wait_until(lambda: denied_events(broker) >= tried + 3, 30), broker.log_path.read_text()[-2000:]
        status = watcher.command({"type": "status"})["data"]
        assert status["outbox"] == journalled, "a refused event must stay in the outbox"
        assert watcher.events == {}, "the broker refused every event"
        refusals = refusals_logged(daemon)
        assert len(refusals) == 1, f"logged once, not at each retry: {refusals}"
        assert "unolauncher/t1/events (Not authorized)" in refusals[0]
        assert "must be allowed to publish there" in refusals[0]

        # The operator fixes the ACL; mosquitto reloads it on SIGHUP; the table's retries get through.
        acl_file.write_text(acl((*TABLE_TOPICS, "events")))
        assert broker.process is not None
        broker.process.send_signal(signal.SIGHUP)
        assert watcher.wait_for_seq(journalled, timeout=30), daemon.log_text()[-2000:]
        assert wait_until(lambda: watcher.command({"type": "status"})["data"]["outbox"] == 0, 10)
        with watcher.lock:
            arrivals = list(watcher.arrivals)
        assert arrivals == list(range(1, journalled + 1)), "every event, in order, once"
        assert "accepts unolauncher/t1/events again" in daemon.log_text()


def test_a_refused_one_off_publish_is_named_by_its_own_topic(tmp_path: Path) -> None:
    """The ACL leaves out ``press`` (the launcher button's Home Assistant trigger): the refusal the log names is
    ``unolauncher/t1/press``, not ``reply`` (every refused publish outside the outbox was called ``reply``); replies,
    which the ACL allows, keep arriving."""
    rules = acl((*(t for t in TABLE_TOPICS if t != "press"), "events"))
    with refusing_table(tmp_path, rules) as (_, _, daemon, watcher):
        assert watcher.command(dict(NEW_GAME))["ok"]
        assert watcher.command({"type": "press"})["ok"]
        assert wait_until(lambda: refusals_logged(daemon) != [], 10), daemon.log_text()[-2000:]
        assert watcher.command({"type": "status"})["ok"]  # replies still arrive
        refusals = refusals_logged(daemon)
        assert len(refusals) == 1 and "to unolauncher/t1/press (Not authorized)" in refusals[0], refusals
        assert "unolauncher/t1/reply" not in "\n".join(refusals)
