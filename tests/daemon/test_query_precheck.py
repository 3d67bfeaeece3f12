"""Every query in ``QUERIES`` takes the fast path (answered on the calling thread of a quiet table): the byte
pre-check of ``Table._answered_now`` is made from ``QUERIES``, so a new query cannot silently lose it (issue #31)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from daemon.test_busy import payload
from daemon.test_queries_answered_at_once import NEW_GAME, ThreadRecorder
from support.net import wait_until
from unolauncher.daemon.commands import DAEMON_FIELDS, QUERIES, QUERY_MARKERS
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

# One valid command per query: a query added to QUERIES without one here fails the first test.
EXAMPLES: dict[str, dict[str, Any]] = {"status": {}, "moves": {"player": "ann"}, "rules": {}}


def test_every_query_has_an_example_and_a_marker() -> None:
    assert set(EXAMPLES) == QUERIES and set(DAEMON_FIELDS) >= QUERIES
    assert {marker.decode().strip('"') for marker in QUERY_MARKERS} == QUERIES


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_every_query_is_answered_on_the_calling_thread(tmp_path: Path, query: str) -> None:
    output = ThreadRecorder()
    table = Table(Journal(tmp_path / "j.sqlite3"), Referee, output)
    table.start()
    try:
        table.submit_payload(payload(NEW_GAME, "new"))
        assert wait_until(table.idle, 5)
        table.submit_payload(payload({"type": query, **EXAMPLES[query]}, "q"))
        assert output.replies[-1]["id"] == "q" and output.replies[-1]["ok"], output.replies[-1]  # already there
        assert output.threads[-1] == threading.current_thread().name  # not the worker's
        if query == "rules":
            assert output.replies[-1]["data"]["actions"]["trade-hands"]["target"] is True
    finally:
        table.stop()
