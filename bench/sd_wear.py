"""SD-card wear: bytes the daemon writes for its journal, per accepted command and per game, side by side with the
floor any journalled command costs — a bare SQLite WAL commit of two small rows (an event and its outbox row).

    python3 bench/sd_wear.py                   # 3 games, state directory under /var/tmp (a real disk, not tmpfs)
    python3 bench/sd_wear.py --games 5 --dir .

A real ``unolauncher run`` on mosquitto plays full-mode bot games (target score 100), one command at a time, each
waiting for its ``ok``; bytes are the daemon process's ``write_bytes`` from ``/proc/PID/io`` — what it caused to be
written to the storage layer, counted per dirtied 4 KiB page, which is what wears a card (fsync does not add to it;
the file system's own journal blocks are not counted, for the daemon or the baseline). The outbox is drained before
each reading, so the deletions that follow each PUBACK are counted too. The baseline runs in its own process on the
same file system right after, with the same number of commits as the daemon's accepted commands.

Target (issue 13): ≤ 3x the bare commit's bytes per accepted command.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.daemon import DaemonProcess, TableClient  # noqa: E402
from support.mosquitto import Mosquitto  # noqa: E402
from support.net import wait_until  # noqa: E402
from unolauncher.rules.bots import Bot  # noqa: E402
from unolauncher.rules.referee import Referee  # noqa: E402

BARE_COMMIT = """
import sqlite3, sys
def written():
    for line in open("/proc/self/io"):
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA synchronous=FULL")
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, body TEXT)")
db.execute("CREATE TABLE outbox (seq INTEGER PRIMARY KEY)")
start = written()
for seq in range(1, int(sys.argv[2]) + 1):
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO journal VALUES (?, ?)", (seq, "x" * 200))
    db.execute("INSERT INTO outbox VALUES (?)", (seq,))
    db.execute("COMMIT")
print(written() - start)
"""


def write_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError(f"no write_bytes for pid {pid}")


def drained(client: TableClient) -> bool:
    return bool(client.command({"type": "status"})["data"]["outbox"] == 0)


def play_game(client: TableClient, seed: int) -> tuple[int, int]:
    """One bot game to its end; returns (accepted commands, hits)."""
    mirror, bot = Referee(), Bot("random", seed=seed)
    command: dict[str, Any] | None = {
        "type": "new_game",
        "ruleset": "attack",
        "players": ["ann", "bob", "cy"],
        "seed": seed,
        "mode": "full",
        "options": {"target_score": 100},
    }
    accepted = hits = 0
    while command is not None:
        reply = client.command(command)
        if not reply["ok"]:
            raise RuntimeError(f"{command} refused: {reply}")
        mirror.handle(command)
        accepted += 1
        hits += command["type"] == "hit"
        command = bot.next_command(mirror)
    return accepted, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="where the state directory goes")
    args = parser.parse_args()
    per_game: list[float] = []
    per_command: list[float] = []
    totals = {"commands": 0, "hits": 0, "bytes": 0}
    with Mosquitto() as broker, tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        daemon = DaemonProcess(Path(tmp), broker_port=broker.port, overrides={"homeassistant": {"enabled": False}})
        daemon.start()
        try:
            assert daemon.process is not None
            pid = daemon.process.pid
            with TableClient("127.0.0.1", broker.port, daemon.table, name="wear") as client:
                for game in range(args.games):
                    assert wait_until(lambda: drained(client), 30)
                    before = write_bytes(pid)
                    commands, hits = play_game(client, seed=1000 + game)
                    assert wait_until(lambda: drained(client), 30)
                    spent = write_bytes(pid) - before
                    per_game.append(spent)
                    per_command.append(spent / commands)
                    totals["commands"] += commands
                    totals["hits"] += hits
                    totals["bytes"] += spent
            journal_size = (daemon.state_dir / "journal.sqlite3").stat().st_size
            wal = daemon.state_dir / "journal.sqlite3-wal"
            wal_size = wal.stat().st_size if wal.exists() else 0
        finally:
            daemon.stop()
        done = subprocess.run(
            [sys.executable, "-c", BARE_COMMIT, str(Path(tmp) / "bare.sqlite3"), str(totals["commands"])],
            check=True,
            capture_output=True,
            text=True,
        )
        bare = int(done.stdout) / totals["commands"]
    kib = 1024
    daemon_per_command = totals["bytes"] / totals["commands"]
    print(f"SD wear on {args.dir} ({args.games} games, {totals['commands']} accepted commands, {totals['hits']} hits):")
    print(
        f"  daemon:      {daemon_per_command / kib:.1f} KiB per accepted command (median of games "
        f"{statistics.median(per_command) / kib:.1f}), {statistics.median(per_game) / kib / kib:.2f} MiB per game "
        f"(median); journal.sqlite3 {journal_size / kib / kib:.2f} MiB after the games "
        f"({journal_size / args.games / kib:.0f} KiB per game), its WAL {wal_size / kib / kib:.2f} MiB"
    )
    print(f"  bare commit: {bare / kib:.1f} KiB per two-row WAL commit (synchronous=FULL), same file system")
    print(f"  ratio:       {daemon_per_command / bare:.2f}x (target <= 3x)")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    print(f"  ({time.monotonic() - started:.0f} s)")
