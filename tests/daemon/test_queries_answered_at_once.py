"""A query (``status``, ``moves``) on a quiet table is answered on MQTT's thread at once, without the worker's
hand-off (issue 16: command → reply); whenever the worker could have something to say first, it waits its turn.

What must hold either way: a reply never overtakes the reply to an earlier command, and a status's state and
``seq`` agree as the worker's answer would (nothing applied to the referee is missing from the journal position).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon.test_busy import Recorder, payload
from support.net import wait_until
from unolauncher.daemon.interfaces import Record
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

NEW_GAME = {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 4}


class ThreadRecorder(Recorder):
    """Keeps, with each reply, the name of the thread that sent it."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def reply(self, payload: dict[str, Any], qos: int = 1) -> None:
        self.threads.append(threading.current_thread().name)
        super().reply(payload, qos)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Table, ThreadRecorder]]:
    output = ThreadRecorder()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    table.start()
    try:
        yield table, output
    finally:
        table.stop()


def answered(output: Recorder, command_id: str) -> bool:
    return any(r["id"] == command_id for r in output.replies)


def test_a_query_on_a_quiet_table_is_answered_on_the_calling_thread_before_submit_returns(
    table: tuple[Table, ThreadRecorder],
) -> None:
    tab, output = table
    tab.submit_payload(payload(NEW_GAME, "new"))
    assert wait_until(tab.idle, 5)
    for command, command_id in (({"type": "status"}, "s"), ({"type": "moves", "player": "ann"}, "m")):
        tab.submit_payload(payload(command, command_id))
        assert output.replies[-1]["id"] == command_id and output.replies[-1]["ok"]  # already there
        assert output.threads[-1] == threading.current_thread().name  # not the worker's
    status = output.replies[-2]["data"]
    assert status["seq"] == tab.journal.last_seq and status["state"] == tab.public_state()
    assert output.threads[0] == "table-worker"  # the new_game: a command, always the worker's


def test_a_query_waits_behind_a_command_sent_before_it_and_sees_its_effect(tmp_path: Path) -> None:
    """The worker holds a new_game (its ``prepare`` step is slow, outside the table's lock): a status sent now goes
    into the queue behind it, so the replies come in the order sent and the status shows the new game."""
    release = threading.Event()

    def slow_prepare(command: dict[str, Any]) -> dict[str, Any]:
        release.wait(10)
        return command

    output = ThreadRecorder()
    tab = Table(Journal(tmp_path / "j.sqlite3"), Referee, output, prepare=slow_prepare)
    tab.start()
    try:
        tab.submit_payload(payload(NEW_GAME, "new"))
        assert wait_until(lambda: tab._queued_commands == 0, 5)  # the worker took it and waits in prepare
        tab.submit_payload(payload({"type": "status"}, "s"))
        assert not answered(output, "s")
        release.set()
        assert wait_until(lambda: answered(output, "s"), 5)
        assert [r["id"] for r in output.replies] == ["new", "s"]
        status = output.replies[1]["data"]
        assert status["state"]["players"] == ["ann", "bob"] and status["seq"] == tab.journal.last_seq > 0
        assert output.threads == ["table-worker", "table-worker"]
    finally:
        release.set()
        tab.stop()


def test_a_status_waits_while_a_change_is_applied_but_not_yet_journalled(table: tuple[Table, ThreadRecorder]) -> None:
    """The instant between a hit applied on the launcher's thread and the worker being woken to journal it: a status
    answered then would show the hit with the ``seq`` from before its event. It waits for the worker instead, which
    journals the change first."""
    tab, output = table
    tab.submit_payload(payload(NEW_GAME, "new"))
    assert wait_until(tab.idle, 5)
    seq = tab.journal.last_seq
    with tab.lock:  # as Table._hit_locked leaves it, before on_hit wakes the worker
        tab._unjournalled.append(Record(None, [{"type": "unattributed_hit", "cards": 1}], origin="launcher"))
    tab.submit_payload(payload({"type": "status"}, "s"))
    assert wait_until(lambda: answered(output, "s"), 5)
    assert output.threads[-1] == "table-worker"
    assert output.replies[-1]["data"]["seq"] == tab.journal.last_seq == seq + 1


def test_a_query_waits_while_the_referee_is_to_be_rebuilt(table: tuple[Table, ThreadRecorder]) -> None:
    tab, output = table
    tab.submit_payload(payload(NEW_GAME, "new"))
    assert wait_until(tab.idle, 5)
    with tab.lock:  # as Table._hit_locked leaves it when the referee raised
        tab._rebuild_due = True
    tab.submit_payload(payload({"type": "moves", "player": "ann"}, "m"))
    assert wait_until(lambda: answered(output, "m"), 5)
    assert output.threads[-1] == "table-worker" and output.replies[-1]["ok"]
    assert not tab._rebuild_due  # the worker rebuilt it before answering


def test_a_query_does_not_wait_for_the_tables_lock(table: tuple[Table, ThreadRecorder]) -> None:
    """MQTT's thread never waits for the table: with the lock held elsewhere the query is queued, and answered once
    the lock is free."""
    tab, output = table
    with tab.lock:
        tab.submit_payload(payload({"type": "status"}, "s"))  # returns although the lock is held
        assert not answered(output, "s")
    assert wait_until(lambda: answered(output, "s"), 5)
    assert output.threads == ["table-worker"]


def test_an_escaped_query_takes_the_queue_and_a_bad_one_is_refused_as_before(
    table: tuple[Table, ThreadRecorder],
) -> None:
    """The quick test looks for the type in the text: a query spelled with escapes is answered by the worker, the same
    answer; a query with a bad field is refused in one sentence on either path."""
    tab, output = table
    tab.submit_payload(payload({"type": "status", "extra": 1}, "x"))
    tab.submit_payload(b'{"id": "e", "type": "st\\u0061tus"}')
    assert wait_until(lambda: answered(output, "e") and answered(output, "x"), 5)
    by_id = {r["id"]: r for r in output.replies}
    assert by_id["e"]["ok"] and by_id["e"]["data"]["seq"] == 0
    assert by_id["x"]["ok"] is False and by_id["x"]["code"] == "unknown_field" and by_id["x"]["message"].endswith(".")
    threads = dict(zip([r["id"] for r in output.replies], output.threads, strict=True))
    assert threads == {"e": "table-worker", "x": threading.current_thread().name}
