"""Ports and waiting helpers for tests that talk to real sockets on loopback."""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Callable

# Below Linux's ephemeral range (32768-60999 by default): a port the kernel hands out for bind(0) is one it may give
# any outgoing connection a moment later as its source port, and a test that starts a server on it later (a daemon
# retrying a broker that is not up yet, then mosquitto started on that port) found it taken: "nothing listening".
_PORTS = range(20000, 32768)
_handed_out: set[int] = set()  # this process's ports so far (a few hundred per suite: the range holds 12,768)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now, outside the kernel's ephemeral range."""
    for port in random.sample(_PORTS, 200):
        if port in _handed_out:  # two calls before either port is bound must not get the same one
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            _handed_out.add(port)
            return port
    raise RuntimeError("no free TCP port in 20000-32767 on 127.0.0.1")


def wait_for_port(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> None:
    """Block until something accepts TCP connections on ``port`` (or raise TimeoutError)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listening on {host}:{port} after {timeout} s")


def wait_until(predicate: Callable[[], object], timeout: float = 10.0, interval: float = 0.01) -> bool:
    """Poll ``predicate`` until it is truthy or ``timeout`` passes; return whether it became truthy.

    Any truthiness will do (``wait_until(lambda: rec.results, 5)`` waits for a non-empty list)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())
