"""Drive a real game through a running daemon: bots choose moves, hits come from virtual launcher presses.

A mirror referee in the test process receives the same accepted commands (for a press: the ``hit`` with the
cards the daemon's referee reported), so at any point the mirror's public state is what the daemon's must be.
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

from support.daemon import TableClient
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

# Presses closer together than the launcher's debounce (30 ms) are contact bounce and ignored, as they should be;
# a player's finger is never that fast, a test's can be.
PRESS_GAP_S = 0.04

NEW_GAME: dict[str, Any] = {
    "type": "new_game",
    "ruleset": "attack",
    "players": ["ann", "bob", "cy"],
    "seed": 2026,
    "mode": "full",
}


def start_game(table: TableClient, mirror: Referee, seed: int = 2026) -> None:
    command = {**NEW_GAME, "seed": seed}
    reply = table.command(command)
    assert reply["ok"], reply
    mirror.handle(command)


def hit_event_after(table: TableClient, seq: int) -> dict[str, Any] | None:
    for event in table.ordered_events():
        if event["seq"] > seq and event["type"] == "hit":
            return event
    return None


def play_steps(table: TableClient, mirror: Referee, bot: Bot, steps: int) -> int:
    """Play up to ``steps`` moves; returns how many were presses (hits through the launcher)."""
    presses = 0
    for _ in range(steps):
        command = bot.next_command(mirror)
        if command is None:
            break
        if command["type"] == "hit":
            before = table.last_seq()
            time.sleep(PRESS_GAP_S)
            reply = table.command({"type": "press"})
            assert reply["ok"], reply
            assert wait_until(functools.partial(hit_event_after, table, before), 10), (
                f"the press produced no hit; last events {[e['type'] for e in table.ordered_events()][-8:]}"
            )
            hit = hit_event_after(table, before)
            assert hit is not None
            assert mirror.handle({"type": "hit", "player": hit["player"], "cards": hit["cards"]})[0]["type"] == "hit"
            presses += 1
        else:
            reply = table.command(command)
            assert reply["ok"], (command, reply)
            mirror.handle(command)
    return presses


def public(state: dict[str, Any]) -> dict[str, Any]:
    """The retained state without the daemon's ``seq`` field, for comparison with a mirror referee."""
    return {k: v for k, v in state.items() if k != "seq"}


def _strip(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("seq", "ts")}


def uninterrupted_run(journal_path: Path) -> tuple[Referee, int]:
    """Re-run the journalled commands on a fresh referee, checking each command's journalled events.

    Returns the referee and the number of events; fails if the journal is not what an uninterrupted run writes.
    """
    journal = Journal(journal_path)
    try:
        entries = journal.entries()
    finally:
        journal.close()
    seqs = [seq for _, kind, seq, _ in entries if kind == "event"]
    assert seqs == list(range(1, len(seqs) + 1)), "event seq must be gap-free"
    referee = Referee()
    for index, (_, kind, _, body) in enumerate(entries):
        if kind != "command":
            continue
        expected = referee.handle(body)
        assert expected[0]["type"] != "rejected", body
        written = [b for _, k, _, b in entries[index + 1 : index + 1 + len(expected)] if k == "event"]
        assert [_strip(e) for e in written] == json.loads(json.dumps(expected)), f"events of {body['type']}"
    return referee, len(seqs)
