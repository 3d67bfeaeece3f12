"""``unolauncher verify``: the fairness audit. Recompute every press under every revealed launcher commitment.

Each round's launcher outcomes are committed before its first press (``round_started`` carries
``sha256(secret)``; the daemon draws the secret) and the secret comes out when the round ends (``round_ended``), or
when it is replaced, undone or ends free play (``ejection_reveal``). With the events in hand anyone can check that
the secret matches the commitment and that every ``press`` is exactly what the ejection model gives for that
secret, the players' entropy and the press's number and player. What that proves — and what it cannot — is in
``docs/ejection.md``.

    unolauncher verify --state-dir /var/lib/unolauncher     # every commitment in a table's journal
    unolauncher verify --events game.jsonl                  # an `unolauncher export` file (or '-' for stdin)

Exit status: 0 every revealed commitment matches (commitments still open are listed, not failed); 1 a mismatch
(each one named: which round, which line or seq, which press), or a rigged round without ``--allow-rigged``;
2 unusable input.

Example::

    $ unolauncher verify --state-dir .state
    verified 3 commitment(s), 57 press(es): every outcome matches its commitment
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from unolauncher.cli.output import write_stdout
from unolauncher.errors import UnolauncherError
from unolauncher.rules.ejection_audit import audit

JOURNAL_FILE = "journal.sqlite3"  # as the daemon names it (daemon/app.py)


class VerifyInputError(UnolauncherError, ValueError):
    """The audit cannot start: one sentence says which input is unusable."""


def configure(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--state-dir", help="a table's state directory: check its journal")
    source.add_argument("--events", help="JSON Lines of a table's events, e.g. from `unolauncher export` ('-' = stdin)")
    parser.add_argument(
        "--allow-rigged", action="store_true", help="accept rounds whose secret came from a chosen seed (tests, demos)"
    )
    parser.add_argument(
        "--strict", action="store_true",
        help="fail on warnings too: withheld entropy, entropy mixed in without commit-then-reveal",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    try:
        source = journal_events(Path(args.state_dir), rigs=True) if args.state_dir else read_events(args.events)
        events = list(source)
        report = audit(events)
        lines = report.lines(args.allow_rigged, args.strict)
        pruned = pruned_before(Path(args.state_dir)) if args.state_dir else None
        lines = lines if pruned is None else [pruned, *lines]
    except VerifyInputError as exc:
        print(f"unolauncher verify: {exc}", file=sys.stderr)
        return 2
    except RecursionError:  # an event nested too deeply for the audit (json.loads takes ~1,000 levels)
        print("unolauncher verify: an event is nested too deeply to be checked", file=sys.stderr)
        return 2
    written = write_stdout("".join(line + "\n" for line in lines), "unolauncher verify")
    if written:
        return written
    return 0 if report.ok(args.allow_rigged, args.strict) else 1


def journal_events(state_dir: Path, rigs: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every event in a state directory's journal, in ``seq`` order, as ("seq N", event). Read-only: a running
    daemon is not disturbed. ``rigs``: a round whose command rigged it (no daemon secret, a launcher script, a chosen
    full-mode deal) gets ``_journal_rig`` (why) on its opening event, so that the audit finds a deleted ``rigged``."""
    path = state_dir / JOURNAL_FILE
    if not path.is_file():
        raise VerifyInputError(f"{state_dir} holds no journal ({JOURNAL_FILE})")
    kinds = "('event', 'command')" if rigs else "('event')"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = db.execute(f"SELECT kind, seq, body FROM journal WHERE kind IN {kinds} ORDER BY pos").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise VerifyInputError(f"the journal {path} cannot be read ({exc})") from None
    rig = RigTracker()
    for kind, seq, body in rows:
        try:
            row = json.loads(body)
        except (ValueError, TypeError, RecursionError):  # also a row that is not text, or nested too deeply
            what = f"event seq {seq}" if kind == "event" else "command row"
            raise VerifyInputError(f"the journal's {what} is not JSON that can be read") from None
        if not isinstance(row, dict):
            continue
        if kind == "command":
            rig.command(row)
        elif rig.reason is not None and row.get("type") in ("round_started", "ejection_commit"):
            yield f"seq {seq}", {**row, "_journal_rig": rig.reason}
        else:
            yield f"seq {seq}", row


def pruned_before(state_dir: Path) -> str | None:
    """One line naming what retention pruned from a state directory's journal (``None`` if it starts at seq 1):
    what ``verify`` and ``export`` checked or wrote is what remains."""
    try:
        db = sqlite3.connect(f"file:{state_dir / JOURNAL_FILE}?mode=ro", uri=True)
        try:
            first = db.execute("SELECT MIN(seq) FROM journal").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return None  # journal_events has said what is wrong with the file
    if not isinstance(first, int) or first <= 1:
        return None
    return (
        f"pruned: events seq 1 to {first - 1} (older finished games) left the journal by retention "
        f"(table.journal_budget_mb / journal_keep_days); it starts at seq {first}, and only what remains is checked"
    )


class RigTracker:
    """Why the journal's last round-opening command rigged its round (``reason``), or ``None``."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.game: str | None = None  # what rigged the whole game (every commitment it opens)
        self.mode = "full"

    def command(self, command: dict[str, Any]) -> None:
        kind = command.get("type")
        deal = command.get("deal")
        chosen = isinstance(deal, dict) and "hands" in deal
        if kind == "new_game":
            self.mode = str(command.get("mode", "full"))
            launcher = command.get("launcher")
            script = launcher.get("script") if isinstance(launcher, dict) else None
            self.game = "no secret drawn by the daemon" if "secret" not in command else (
                "a launcher script" if script else None
            )  # fmt: skip
            self.reason = self.game or ("a chosen deal" if chosen and self.mode != "table" else None)
        elif kind == "next_round":
            self.reason = self.game or ("a chosen deal" if chosen and self.mode != "table" else None)
        elif kind in ("undo", "pressed", "free_play"):
            self.reason = self.game


def read_events(path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The events of a JSON Lines file (``-``: stdin) as ("line N", event)."""
    if path == "-":
        yield from _parse_lines(sys.stdin, "stdin")
        return
    try:
        with open(path, encoding="utf-8") as handle:
            yield from _parse_lines(handle, path)
    except FileNotFoundError:
        raise VerifyInputError(f"events file {path} does not exist") from None
    except UnicodeDecodeError:
        raise VerifyInputError(f"events file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise VerifyInputError(f"events file {path} cannot be read: {exc.strerror}") from None


def _parse_lines(handle: TextIO, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            raise VerifyInputError(f"{name} line {number} is not valid JSON") from None
        except RecursionError:
            raise VerifyInputError(f"{name} line {number} is nested too deeply") from None
        if not isinstance(event, dict):
            raise VerifyInputError(f"{name} line {number} must be a JSON object")
        yield f"line {number}", event
