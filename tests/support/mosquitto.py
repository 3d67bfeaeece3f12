"""A real mosquitto broker on a free loopback port, started and stopped by tests.

Example::

    with Mosquitto(websockets=True) as broker:
        client.connect("127.0.0.1", broker.port)
        ...
        broker.stop()
        broker.start()  # same ports, same config: an outage and recovery
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from support.binaries import require_binary
from support.net import free_port, wait_for_port
from support.process import end_process


def require_mosquitto() -> str:
    """The mosquitto path, or skip the test with a clear reason (a failure under CI=true)."""
    return require_binary("mosquitto")


def add_password(passwords: Path, user: str, password: str, create: bool = False) -> None:
    """Add (or change) ``user`` in a mosquitto password file with ``mosquitto_passwd`` (through the binary gate).

    Example::

        add_password(tmp_path / "passwd", "kitchen", "kitchen-secret", create=True)
    """
    flags = ["-c"] if create else []
    subprocess.run(
        [require_binary("mosquitto_passwd"), *flags, "-b", str(passwords), user, password],
        check=True,
        capture_output=True,
    )


class Mosquitto:
    """One mosquitto process with its own config in a temporary directory."""

    def __init__(
        self,
        websockets: bool = False,
        extra_config: str = "",
        port: int | None = None,
        ws_port: int | None = None,
    ) -> None:
        self.binary = require_mosquitto()
        self.port = port or free_port()
        self.ws_port = (ws_port or free_port()) if websockets else None
        self.dir = Path(tempfile.mkdtemp(prefix="mosq-"))
        self.extra_config = extra_config
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.dir / "mosquitto.log"

    def config_text(self) -> str:
        lines = [
            "per_listener_settings false",
            "allow_anonymous true",
            "persistence false",
            "max_queued_messages 100000",
            "max_inflight_messages 0",
            f"listener {self.port} 127.0.0.1",
        ]
        if self.ws_port:
            lines += [f"listener {self.ws_port}", "protocol websockets"]
        if self.extra_config:
            lines.append(self.extra_config)
        return "\n".join(lines) + "\n"

    def start(self) -> None:
        conf = self.dir / "mosquitto.conf"
        conf.write_text(self.config_text())
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [self.binary, "-c", str(conf), "-v"], stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ)
        )
        try:
            wait_for_port(self.port)
        except TimeoutError:
            if self.process.poll() is not None:  # it exited: say why (a port taken, a bad config line)
                tail = self.log_path.read_text(errors="replace")[-600:]
                raise RuntimeError(f"mosquitto exited with {self.process.returncode}: {tail}") from None
            raise
        if self.ws_port:
            wait_for_port(self.ws_port)

    def stop(self) -> None:
        if self.process:
            end_process(self.process, 5)
        self.process = None

    def kill(self) -> None:
        if self.process:
            end_process(self.process, 5, signal.SIGKILL)
        self.process = None

    def __enter__(self) -> Mosquitto:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
