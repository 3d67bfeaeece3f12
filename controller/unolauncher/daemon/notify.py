"""systemd's notify protocol (``Type=notify``, ``WatchdogSec``) without libsystemd.

systemd passes ``NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace) and, with ``WatchdogSec``,
``WATCHDOG_USEC``; the service sends datagrams such as ``READY=1``, ``WATCHDOG=1``, ``STOPPING=1``. Outside
systemd ``NOTIFY_SOCKET`` is unset and every call is a no-op.

Example::

    >>> notifier = Notifier.from_environment({})  # the daemon passes nothing: os.environ
    >>> notifier.send("READY=1", "STATUS=table1 ready")  # outside systemd: nothing to tell, nothing sent
    False
    >>> notifier.watchdog_interval() is None  # seconds between WATCHDOG=1 pings when systemd asks for them
    True
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    """Sends notify datagrams to ``address`` (``None`` = not under systemd)."""

    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        # A leading "@" names a socket in the abstract namespace, spelled with a NUL byte on the wire.
        self.address = "\0" + address[1:] if address and address.startswith("@") else address
        self.watchdog_usec = watchdog_usec

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> Notifier:
        env = os.environ if env is None else env
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        # WATCHDOG_PID, when set, says which process the watchdog is meant for (not a child we forked).
        watchdog = int(usec) if usec.isdigit() and (not pid or pid == str(os.getpid())) else None
        return cls(env.get("NOTIFY_SOCKET") or None, watchdog)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def watchdog_interval(self) -> float | None:
        """Ping every half of ``WatchdogSec`` (systemd's own recommendation), or ``None`` without a watchdog."""
        return self.watchdog_usec / 2_000_000 if self.watchdog_usec else None

    def send(self, *fields: str) -> bool:
        """Send ``fields`` as one datagram; False (never an exception) when there is nobody to tell."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall("\n".join(fields).encode())
            return True
        except OSError:
            return False
