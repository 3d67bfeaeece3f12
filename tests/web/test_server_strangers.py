"""#33 item 6 and #27: the dashboard's HTTP server against a stranger, on a real daemon.

Header floods are refused after a few KB (16 connections x 99 headers of 64 KB once held +100 MB for 10 s); a
kept-alive connection cannot hold its slot for ever; a table's phones behind one address (NAT) all get in; and
``/config.json`` never sends the page to the broker under a ``Host`` that is not this machine's name.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.daemon import DaemonProcess
from support.net import wait_until
from unolauncher.web.server import MAX_HEAD_BYTES, MAX_HEADERS, DashboardServer

pytestmark = pytest.mark.timeout(120)

BIG_HEADER = b"X-Pad-%d: " + b"a" * 64_000 + b"\r\n"
RSS_BOUND_MB = 25


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    overrides = {"dashboard": {"enabled": True, "host": "127.0.0.1", "port": 0}}
    with DaemonProcess(tmp_path_factory.mktemp("httpd"), overrides=overrides) as running:
        yield running


def port_of(daemon: DaemonProcess) -> int:
    return int(str(daemon.endpoints["dashboard_url"]).rstrip("/").rsplit(":", 1)[1])


def status_line(sock: socket.socket) -> bytes:
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            return head
        head += chunk
    return head.split(b"\r\n", 1)[0]


def test_huge_headers_are_refused_after_a_few_kb(daemon: DaemonProcess) -> None:
    port = port_of(daemon)
    rss_before = daemon.rss_mb()
    socks = []
    try:
        for _ in range(16):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            socks.append(sock)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            try:
                for i in range(99):
                    sock.sendall(BIG_HEADER % i)
            except OSError:
                pass  # the server answered and closed after MAX_HEAD_BYTES: the rest is refused
        rss_during = daemon.rss_mb()
        answers = [status_line(sock) for sock in socks]
    finally:
        for sock in socks:
            sock.close()
    assert all(b" 431 " in a or b" 414 " in a or a == b"" for a in answers), answers[:3]
    assert any(b" 431 " in a for a in answers), answers[:3]
    print(f"\n16 x 99 headers of 64 KB: RSS {rss_before:.0f} -> {rss_during:.0f} MB (head cap {MAX_HEAD_BYTES} B)")
    assert rss_during - rss_before < RSS_BOUND_MB


def test_too_many_headers_are_refused(daemon: DaemonProcess) -> None:
    headers = b"".join(b"X-%d: 1\r\n" % i for i in range(MAX_HEADERS + 1))
    with socket.create_connection(("127.0.0.1", port_of(daemon)), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
        assert b" 431 " in status_line(sock)


def test_a_table_of_phones_behind_one_address_all_get_the_page(daemon: DaemonProcess) -> None:
    """8 phones behind one NAT, 6 connections each as a browser opens them: all 48 served at once."""
    port = port_of(daemon)
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(48)]
    try:
        for sock in socks:
            sock.sendall(b"GET /config.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # kept alive: all open at once
        assert all(b" 200 " in status_line(sock) for sock in socks)
    finally:
        for sock in socks:
            sock.close()


@pytest.mark.parametrize(
    ("host", "expected"),
    [("evil.example:8080", "127.0.0.1"), ("raspberrypi.local:8080", "raspberrypi.local"), ("127.0.0.1", "127.0.0.1")],
)
def test_config_json_names_the_broker_by_this_machines_name(daemon: DaemonProcess, host: str, expected: str) -> None:
    def fetch() -> bytes:
        with socket.create_connection(("127.0.0.1", port_of(daemon)), timeout=10) as sock:
            sock.sendall(b"GET /config.json HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            return data

    # A test before may have just closed 48 connections: the server frees their slots as it sees them close.
    answers: list[bytes] = []

    def served() -> bool:
        answers.append(fetch())
        return b"\r\n\r\n" in answers[-1]

    assert wait_until(served, 10)
    config = json.loads(answers[-1].split(b"\r\n\r\n", 1)[1])
    assert config["mqtt_url"].startswith(f"ws://{expected}:"), config["mqtt_url"]


def test_keep_alive_cannot_hold_a_slot_for_ever(tmp_path: Path) -> None:
    """A GET every 0.5 s on one connection: answered, and closed once the connection is older than its limit."""
    with DashboardServer("127.0.0.1", 0, {"mqtt_url": "ws://{host}:9001/mqtt"}, max_connection_s=2.0) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            started = time.monotonic()
            served = 0
            while time.monotonic() - started < 30:  # bounded; ends when the server closes
                try:
                    sock.sendall(b"GET /config.json HTTP/1.1\r\nHost: x\r\n\r\n")
                    data = sock.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                served += 1
                time.sleep(0.5)  # pacing the client: a GET every 0.5 s
            assert served >= 2 and time.monotonic() - started < 10, (served, time.monotonic() - started)
        assert wait_until(lambda: server.slots.open == 0, 5)
