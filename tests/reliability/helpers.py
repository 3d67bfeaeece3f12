"""Helpers for the fault and abuse suite: fill a filesystem, keep a table busy with a bot, talk with credentials.

The daemons are real ``unolauncher run`` processes (``support.daemon.DaemonProcess``) on a real mosquitto.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from support.daemon import TableClient
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee


def fill(directory: Path, name: str = "filler") -> Path:
    """Write zeros into ``directory/name`` until the filesystem is full; return the file (delete it to free)."""
    path = directory / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 20, 4096, 1):  # big blocks first, then top up what is left
            block = b"\0" * size
            for _ in range(100_000):  # bounded: far beyond any test filesystem
                try:
                    os.write(fd, block)
                except OSError:
                    break
    finally:
        os.close(fd)
    return path


class GameDriver:
    """Plays complete games on one table as fast as it answers, from a thread, surviving outages and crashes.

    Moves come from a bot on a mirror referee; ``hit`` is sent as a command (the referee's seeded ejection model
    counts the cards), so the mirror stays exact. When a reply does not come (broker away, daemon killed), the
    driver asks the table's ``status`` until it answers and compares the journal position with the mirror's
    to learn whether the command was applied, then goes on — so the mirror never drifts from the daemon.

    Example::

        driver = GameDriver(client, seed=3)
        driver.start()
        ...
        driver.stop()
        assert driver.errors == []
    """

    def __init__(self, client: TableClient, seed: int, reply_timeout: float = 2.0) -> None:
        self.client = client
        self.seed = seed
        self.reply_timeout = reply_timeout
        self.mirror = Referee()
        self.bot = Bot("random", seed=seed)
        self.seq = 0  # journal position the mirror corresponds to
        self.games = 0
        self.applied = 0
        self.timeouts = 0
        self.rtts: list[float] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"driver-{seed}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _next(self) -> dict[str, Any]:
        command = self.bot.next_command(self.mirror) if self.games else None
        if command is None:
            self.games += 1
            return {
                "type": "new_game",
                "ruleset": "attack",
                "players": ["ann", "bob", "cy"],
                "seed": self.seed * 1000 + self.games,
                "mode": "full",
                "options": {"target_score": 100},
            }
        return command

    def _status_seq(self) -> int | None:
        for _ in range(60):  # bounded: ~60 s of a table that does not answer
            if self._stop.is_set() and not self.client.connected.is_set():
                return None
            try:
                reply = self.client.command({"type": "status"}, timeout=1.0)
            except TimeoutError:
                continue
            return int(reply["data"]["seq"])
        return None

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                command = self._next()
                probe = Referee.from_json(self.mirror.to_json())
                produced = probe.handle(command)
                if produced and produced[0].get("type") == "rejected":
                    self.errors.append(f"bot proposed a refused command {command}: {produced[0]}")
                    return
                sent = time.monotonic()
                try:
                    reply = self.client.command(command, timeout=self.reply_timeout)
                except TimeoutError:
                    self.timeouts += 1
                    seq = self._status_seq()
                    if seq is None:
                        return
                    if seq == self.seq:
                        continue  # not applied: the next loop sends it again
                    if seq < self.seq + len(produced):
                        self.errors.append(f"journal at {seq} after {command}, expected {self.seq + len(produced)}")
                        return
                    reply = {"ok": True, "seq": seq}
                else:
                    self.rtts.append(time.monotonic() - sent)
                if not reply.get("ok"):
                    self.errors.append(f"{command} refused: {reply}")
                    return
                self.mirror = probe
                self.seq = int(reply["seq"])
                self.applied += 1
        except Exception as exc:  # reported by the test, not lost in a thread
            self.errors.append(f"driver crashed: {type(exc).__name__}: {exc}")


def status_with_credentials(port: int, table: str, username: str, password: str, timeout: float = 15) -> dict[str, Any]:
    """Log in, wait for the table's retained ``online``, send ``status`` and return the reply (or raise)."""
    with TableClient("127.0.0.1", port, table, name=f"auth-{username}", auth=(username, password)) as client:
        if not wait_until(lambda: client.status == "online", timeout):
            raise TimeoutError(f"table {table} never said online (status: {client.status})")
        return client.command({"type": "status"}, timeout)
