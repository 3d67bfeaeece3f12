"""A press is attributed to the right player even when the journal is slow (docs/reliability.md, finding "Press
attribution under a slow disk").

The previous press's hit must count for the table's press snapshot as soon as its cards are out, not only once the
worker has journalled it: with a journal that takes 80 ms per write, quick successive presses used to be attributed to
the previous player and end as ``hit_refused``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from support.daemon import running_daemon
from support.net import wait_until
from unolauncher.daemon import app
from unolauncher.store.journal import Journal

SLOW_WRITE_S = 0.08


class SlowJournal(Journal):
    """An SD card having a bad day: every write takes 80 ms."""

    def _write(self, entries: list[tuple[dict[str, Any] | None, list[dict[str, Any]]]]) -> list[list[dict[str, Any]]]:
        time.sleep(SLOW_WRITE_S)
        return super()._write(entries)


def test_rapid_presses_on_a_slow_journal_go_to_the_players_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "Journal", SlowJournal)
    overrides: dict[str, dict[str, Any]] = {"launcher": {"preset": "gentle"}, "homeassistant": {"enabled": False}}
    with running_daemon(tmp_path, "attr", overrides=overrides) as daemon:  # no broker needed
        table, virtual, journal, launcher = daemon.table, daemon.virtual, daemon.journal, daemon.launcher
        assert table is not None and virtual is not None and journal is not None and launcher is not None
        table.submit_command({"type": "new_game", "ruleset": "attack", "players": ["a", "b", "c"], "seed": 4})
        assert wait_until(table.idle, 10)
        presses = 8
        for _ in range(presses):  # as fast as the launcher takes them: right after the previous run and debounce
            assert wait_until(lambda: not launcher.status().running, 5)
            time.sleep(0.04)  # just longer than the 30 ms button debounce
            virtual.press_button()
        assert wait_until(lambda: not launcher.status().running, 5)
        assert wait_until(table.idle, 30)
        events = journal.events(1, 10_000)
        kinds = [e["type"] for e in events]
        # A press can be taken for contact bounce by the launcher's debounce (no event at all): count accepted ones.
        assert kinds.count("press") >= presses - 2, str([k for k in kinds if k not in ("turn", "fired")])
        assert "hit_refused" not in kinds, [e for e in events if e["type"] == "hit_refused"]
        assert kinds.count("hit") == kinds.count("press")
        press_players = [e["player"] for e in events if e["type"] == "press"]
        hit_players = [e["player"] for e in events if e["type"] == "hit"]
        assert press_players == hit_players
        assert len(set(press_players[:3])) == 3, press_players  # each hit ended a turn: a, b, c, a, ...
