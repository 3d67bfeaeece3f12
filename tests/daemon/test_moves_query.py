"""The ``moves`` query: a player's legal moves in the reply (what the dashboard greys out), never journalled."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rules.rigs import rig

from daemon.test_busy import Recorder, payload
from support.net import wait_until
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

HANDS = {"ann": ["red 1", "blue 7", "wild"], "bob": ["blue 1", "blue 2"], "cy": ["green 1", "green 2"]}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Table, Recorder, Journal]]:
    output = Recorder()
    journal = Journal(tmp_path / "j.sqlite3")
    table = Table(journal, Referee, output)
    table.start()
    try:
        yield table, output, journal
    finally:
        table.stop()


def ask(table: Table, output: Recorder, command: dict[str, Any], command_id: str) -> dict[str, Any]:
    table.submit_payload(payload(command, command_id))
    assert wait_until(lambda: any(r["id"] == command_id for r in output.replies), 5)
    return next(r for r in output.replies if r["id"] == command_id)


def test_moves_answers_with_the_referees_legal_moves_and_journals_nothing(
    table: tuple[Table, Recorder, Journal],
) -> None:
    tab, output, journal = table
    assert ask(tab, output, rig("classic", HANDS, "red 5"), "new")["ok"]
    mirror = Referee()
    mirror.handle(rig("classic", HANDS, "red 5"))
    seq, commands = journal.last_seq, len(list(journal.commands()))

    answer = ask(tab, output, {"type": "moves", "player": "ann"}, "q1")
    assert answer["ok"] and answer["code"] == "ok"
    data = answer["data"]
    assert data["player"] == "ann" and data["seq"] == seq
    assert data["moves"] == mirror.legal_moves("ann")
    assert data["cards"] == ["red 1", "wild"]  # red in force: the blue 7 does not match (MK-05)
    assert {"type": "draw", "player": "ann"} in data["moves"]
    bob = ask(tab, output, {"type": "moves", "player": "bob"}, "q2")["data"]
    assert bob["moves"] == mirror.legal_moves("bob") and bob["cards"] == []  # not bob's turn: he may only call UNO
    assert bob["moves"] == [{"type": "uno", "player": "bob"}]

    # After a state change the answer follows it: ann drew, so she may play the drawn card only if it matches, or pass.
    assert ask(tab, output, {"type": "draw", "player": "ann"}, "d")["ok"]
    mirror.handle({"type": "draw", "player": "ann"})
    after = ask(tab, output, {"type": "moves", "player": "ann"}, "q3")["data"]
    assert after["moves"] == mirror.legal_moves("ann") and after["seq"] == journal.last_seq > seq
    kinds = [move["type"] for move in after["moves"]]
    assert "pass" in kinds and "draw" not in kinds
    # Queries are not commands of the game: nothing of them reaches the journal.
    assert len(list(journal.commands())) == commands + 1


@pytest.mark.parametrize(
    ("command", "code", "words"),
    [
        ({"type": "moves", "player": "zed"}, "unknown_player", 'There is no player called "zed" at this table'),
        ({"type": "moves"}, "missing_field", 'moves needs "player"'),
        ({"type": "moves", "player": 7}, "bad_field", "player"),
        ({"type": "moves", "player": "ann", "card": "red 1"}, "unknown_field", "moves has no field"),
    ],
)
def test_a_bad_moves_query_is_refused_in_one_sentence_and_changes_nothing(
    table: tuple[Table, Recorder, Journal], command: dict[str, Any], code: str, words: str
) -> None:
    tab, output, journal = table
    assert ask(tab, output, rig("classic", HANDS, "red 5"), "new")["ok"]
    seq, state = journal.last_seq, tab.snapshot()
    answer = ask(tab, output, command, "bad")
    assert answer["ok"] is False and answer["code"] == code, answer
    assert words in answer["message"] and answer["message"].count(". ") == 0 and answer["message"].endswith(".")
    assert "data" not in answer
    assert journal.last_seq == seq and tab.snapshot() == state


def test_moves_before_any_game_says_there_is_nobody(table: tuple[Table, Recorder, Journal]) -> None:
    tab, output, _ = table
    answer = ask(tab, output, {"type": "moves", "player": "ann"}, "early")
    assert answer["ok"] is False and answer["code"] == "unknown_player"
    assert "no game has been started" in answer["message"]
