"""The table applies a command whole or not at all, and answers every command exactly once, whatever raises.

Faults are injected where the daemon met them: a step after the journal write (where the ``custom`` preset once
raised in the press handler's sync and every later command went unanswered), a referee that raises instead of
refusing, and a command hook (``prepare``) that fails.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from daemon.game import NEW_GAME
from support.net import wait_until
from unolauncher.daemon.table import Table
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.press import PressClaim
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

from .test_busy import Recorder


class Published(Recorder):
    """A recorder that also keeps the retained state it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.states: list[dict[str, Any]] = []

    def state(self, public_state: dict[str, Any]) -> None:
        self.states.append(public_state)


def run(table: Table, *commands: dict[str, Any]) -> list[dict[str, Any]]:
    """Send payloads through the worker's own path and return the replies (one per payload, in order)."""
    assert isinstance(table.output, Recorder)
    table.start()
    for i, command in enumerate(commands):
        table.submit_payload(json.dumps({**command, "id": i}).encode())
    table.stop()
    return table.output.replies


def replayed(journal: Journal) -> dict[str, Any]:
    referee = Referee()
    for command in journal.commands():
        referee.handle(command)
    return referee.to_json()


def test_a_failure_after_the_journal_write_loses_no_reply(tmp_path: Path) -> None:
    class Flaky(Published):  # publishing the retained state fails once, after the command was journalled
        failed = False

        def state(self, public_state: dict[str, Any]) -> None:
            if not self.failed:
                self.failed = True
                raise ValueError("simulated: the bus could not take the state")
            super().state(public_state)

    output = Flaky()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    replies = run(table, dict(NEW_GAME), {"type": "status"}, {"type": "hit"})
    assert [(r["id"], r["ok"]) for r in replies] == [(0, True), (1, True), (2, True)]
    assert replayed(table.journal) == table.referee.to_json()
    assert output.states[-1]["seq"] == table.journal.last_seq


def test_a_referee_that_raises_is_rebuilt_from_the_journal(tmp_path: Path) -> None:
    class Fragile(Referee):
        def handle(self, command: Any) -> list[dict[str, Any]]:
            if command.get("type") == "hit" and command.get("cards") == 5:
                self._s.round = 99  # changes something, then raises: the promise "never raises" broken
                raise RuntimeError("simulated referee bug")
            return super().handle(command)

    table = Table(Journal(tmp_path / "j.sqlite3"), Fragile, Recorder())
    replies = run(table, dict(NEW_GAME), {"type": "hit", "cards": 5}, {"type": "hit", "cards": 1})
    assert [(r["ok"], r["code"]) for r in replies] == [(True, "ok"), (False, "internal_error"), (True, "ok")]
    assert table.referee.to_json() == replayed(table.journal)
    assert table.referee.public_state()["round"] == 1


def test_a_failing_prepare_hook_still_gets_exactly_one_reply(tmp_path: Path) -> None:
    def prepare(command: dict[str, Any]) -> dict[str, Any]:
        if command["type"] == "new_game":
            raise KeyError("simulated")
        return command

    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, Recorder(), prepare=prepare)
    replies = run(table, dict(NEW_GAME), {"type": "undo"})
    assert [(r["id"], r["code"]) for r in replies] == [(0, "internal_error"), (1, "nothing_to_undo")]
    assert table.journal.last_seq == 0


class PausingJournal(Journal):
    """A journal whose next read of the commands (a replay) stops until ``go`` is set: a slow SD card."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.armed = False
        self.reading, self.go = threading.Event(), threading.Event()
        self.reads = 0

    def commands_at(self, upto_pos: int | None = None, after_pos: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        self.reads += 1
        if self.armed:
            self.armed = False
            self.reading.set()
            assert self.go.wait(10), "the test never let the read finish"
        return super().commands_at(upto_pos, after_pos)


def test_a_rebuild_reads_the_journal_outside_the_lock_and_keeps_a_hit_that_lands_meanwhile(tmp_path: Path) -> None:
    """The referee raises on a command: the worker rebuilds it from the journal. The (slow) read happens outside
    ``Table.lock``, so a run's hit on the timer thread is applied meanwhile without waiting for the disk; and the
    rebuilt referee still has that hit (it landed between the read and the swap), as the journal then has it."""

    class Fragile(Referee):
        def handle(self, command: Any) -> list[dict[str, Any]]:
            if command.get("type") == "hit" and command.get("cards") == 5:
                raise RuntimeError("simulated referee bug")
            return super().handle(command)

    journal = PausingJournal(tmp_path / "j.sqlite3")
    table = Table(journal, Fragile, Recorder())
    table.start()
    try:
        table.submit_command(dict(NEW_GAME))
        assert wait_until(table.idle, 10)
        hitter = table.hitter()
        assert hitter is not None
        journal.armed = True
        table.submit_command({"type": "hit", "cards": 5})  # raises: the worker rebuilds, and its read stalls
        assert journal.reading.wait(10)
        hit = threading.Thread(
            target=table.on_hit, args=(hitter, FirePlan(fire=True, cards=2, run_ms=400), FireResult(2, 300, "ok"))
        )
        hit.start()
        hit.join(5)
        still_waiting = hit.is_alive()
        journal.go.set()
        hit.join(10)
        assert not still_waiting, "the hit waited for the journal read: the rebuild read it under Table.lock"
        assert wait_until(table.idle, 10)
    finally:
        journal.go.set()
        table.stop()
    assert [r["code"] for r in table.output.replies] == ["ok", "internal_error"]  # type: ignore[attr-defined]
    hits = [c for c in journal.commands() if c["type"] == "hit"]
    assert hits == [{"type": "hit", "player": hitter, "cards": 2}]
    assert table.referee.to_json() == replayed(journal), "the rebuilt referee lost the hit that landed meanwhile"
    assert table.hitter() != hitter


def test_a_hit_the_referee_raises_on_leaves_the_rebuild_to_the_worker(tmp_path: Path) -> None:
    """A run's hit is applied on the launcher's timer thread, which must never wait for the disk: when the referee
    raises on it, the hit is recorded as refused and the worker rebuilds the referee from the journal on its next
    turn. Until then no press is planned from the referee that raised."""

    class Fragile(Referee):
        def handle(self, command: Any) -> list[dict[str, Any]]:
            if command.get("type") == "hit" and command.get("cards") == 3:
                raise RuntimeError("simulated referee bug")
            return super().handle(command)

    journal = PausingJournal(tmp_path / "j.sqlite3")
    table = Table(journal, Fragile, Recorder())
    assert table.apply(dict(NEW_GAME))[0]
    hitter = table.hitter()
    assert hitter is not None and isinstance(table.press.claim(lockout=True), PressClaim)
    reads = journal.reads
    table.on_hit(hitter, FirePlan(fire=True, cards=3, run_ms=400), FireResult(3, 300, "ok"))  # (the worker is off)
    assert journal.reads == reads, "the timer thread read the journal"
    assert table.press.claim(lockout=True) == "ignored", "a press was planned from the referee that raised"
    table.start()
    try:
        assert wait_until(table.idle, 10)
    finally:
        table.stop()
    assert journal.reads > reads, "the worker rebuilt the referee from the journal"
    assert table.referee.to_json() == replayed(journal)
    refused = [e for e in journal.events(1, 100) if e["type"] == "hit_refused"]
    assert [(e["player"], e["cards"], e["code"]) for e in refused] == [(hitter, 3, "internal_error")]
    assert isinstance(table.press.claim(lockout=True), PressClaim), "presses are planned again once rebuilt"
