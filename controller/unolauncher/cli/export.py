"""``unolauncher export``: one game's events from a table's journal, as JSON Lines for a third party's ``verify``.

A game's events run from its ``game_started`` up to the next game's (the reveal of a round that a new game replaced
comes just before that game's ``game_started``, so it stays with the game it belongs to). The lines are the
events exactly as journalled and published (``seq`` and ``ts`` included), one compact JSON object each.

    unolauncher export --state-dir /var/lib/unolauncher              # the last game, to stdout
    unolauncher export --state-dir .state --game 2 --output game2.jsonl
    unolauncher verify --events game2.jsonl                            # anyone, anywhere

Exit status: 0 written; 2 no such journal or game, or the output cannot be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from unolauncher.cli.output import write_stdout
from unolauncher.cli.verify import VerifyInputError, journal_events, pruned_before


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", required=True, help="the table's state directory (holds journal.sqlite3)")
    parser.add_argument("--game", type=int, help="which game, counting from 1 in the journal (default: the last)")
    parser.add_argument("--output", help="write here instead of stdout")


def run(args: argparse.Namespace) -> int:
    pruned = None
    try:
        events = [event for _, event in journal_events(Path(args.state_dir))]
        pruned = pruned_before(Path(args.state_dir))
        chosen = game_events(events, args.game)
    except VerifyInputError as exc:
        print(f"unolauncher export: {exc}", file=sys.stderr)
        if pruned is not None:
            print(f"unolauncher export: {pruned}", file=sys.stderr)
        return 2
    if pruned is not None:  # game numbers count from the oldest game that remains
        print(f"unolauncher export: {pruned}", file=sys.stderr)
    try:
        text = "".join(json.dumps(e, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n" for e in chosen)
    except (RecursionError, ValueError):  # a damaged row nested too deeply (or with a number JSON has no text for)
        print("unolauncher export: an event of that game cannot be written as JSON", file=sys.stderr)
        return 2
    if args.output is None:
        return write_stdout(text, "unolauncher export")
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"unolauncher export: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"exported game {args.game or 'last'}: {len(chosen)} event(s) to {args.output}", file=sys.stderr)
    return 0


def game_events(events: list[dict[str, Any]], game: int | None) -> list[dict[str, Any]]:
    """The events of game ``game`` (1-based; ``None`` = the last one) out of a journal's events in order."""
    starts = [i for i, event in enumerate(events) if event.get("type") == "game_started"]
    if not starts:
        raise VerifyInputError("the journal holds no game yet")
    number = len(starts) if game is None else game
    if not 1 <= number <= len(starts):
        raise VerifyInputError(f"there is no game {game}: the journal holds games 1 to {len(starts)}")
    begin = starts[number - 1]
    end = starts[number] if number < len(starts) else len(events)
    return events[begin:end]
