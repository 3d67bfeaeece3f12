"""systemd's notify protocol against a fake NOTIFY_SOCKET (a real AF_UNIX datagram socket)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from unolauncher.daemon.notify import Notifier


def _listen(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    return sock


def test_ready_and_watchdog_datagrams_reach_the_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    with _listen(path) as sock:
        notifier = Notifier.from_environment({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000"})
        assert notifier.enabled
        assert notifier.watchdog_interval() == 10.0
        assert notifier.send("READY=1", "STATUS=ready")
        assert sock.recv(4096) == b"READY=1\nSTATUS=ready"
        assert notifier.send("WATCHDOG=1")
        assert sock.recv(4096) == b"WATCHDOG=1"


def test_abstract_namespace_socket() -> None:
    name = f"unolauncher-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        assert Notifier.from_environment({"NOTIFY_SOCKET": "@" + name}).send("STOPPING=1")
        assert sock.recv(100) == b"STOPPING=1"


def test_outside_systemd_everything_is_a_quiet_no_op() -> None:
    notifier = Notifier.from_environment({})
    assert not notifier.enabled
    assert notifier.watchdog_interval() is None
    assert notifier.send("READY=1") is False


def test_missing_socket_is_not_an_exception(tmp_path: Path) -> None:
    assert Notifier(str(tmp_path / "nobody-listens")).send("READY=1") is False


def test_watchdog_meant_for_another_pid_is_ignored() -> None:
    env = {"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid() + 1)}
    assert Notifier.from_environment(env).watchdog_interval() is None
    env["WATCHDOG_PID"] = str(os.getpid())
    assert Notifier.from_environment(env).watchdog_interval() == 0.5
