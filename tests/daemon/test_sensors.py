"""The retained ``sensors`` JSON Home Assistant reads: the outbox backlog refreshed when the table is idle, and the
next game's ejection preset (the ``preset`` command), kept across a restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.net import wait_until
from unolauncher.daemon.table import Table
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

PRESETS = ("classic", "gentle", "brutal", "sequence")


class SensorRecorder:
    """A :class:`TableOutput` that keeps the replies and every sensors payload."""

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.published: list[dict[str, Any]] = []

    def reply(self, payload: dict[str, Any], qos: int = 1) -> None:
        self.replies.append(payload)

    def backlog(self) -> int:
        return 0

    def sensors(self, values: dict[str, Any]) -> None:
        self.published.append(json.loads(json.dumps(values)))

    def events_journalled(self) -> None: ...

    def motor(self, on: bool) -> None: ...

    def state(self, public_state: dict[str, Any]) -> None: ...

    def launcher_status(self, status: dict[str, Any]) -> None: ...

    def press(self, press: dict[str, Any]) -> None: ...

    def resend(self, events: list[dict[str, Any]]) -> None: ...


def payload(command: dict[str, Any]) -> bytes:
    return json.dumps(command).encode()


def test_outbox_backlog_is_published_when_the_table_is_idle(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    output = SensorRecorder()
    table = Table(journal, Referee, output, presets=PRESETS, diagnostics_s=0.05)
    table.start()
    try:
        table.submit_payload(payload({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1}))
        assert wait_until(table.idle, 5)
        # Nothing delivers the events here (no broker): once idle, the table reports them waiting.
        waiting = journal.outbox_size()
        assert waiting > 0
        assert wait_until(lambda: output.published and output.published[-1]["outbox"] == waiting, 5)
        journal.mark_delivered(range(1, journal.last_seq + 1))  # the broker acknowledged them
        assert wait_until(lambda: output.published[-1]["outbox"] == 0, 5)
        count = len(output.published)
        assert not wait_until(lambda: len(output.published) > count, 0.3)  # unchanged: nothing republished
    finally:
        table.stop()
        journal.close()


def test_preset_command_sets_the_next_game_preset_and_survives_a_restart(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    output = SensorRecorder()
    table = Table(journal, Referee, output, presets=PRESETS)
    table.start()
    try:
        table.submit_payload(payload({"type": "preset", "preset": "brutal", "id": 1}))
        table.submit_payload(payload({"type": "preset", "preset": "custom", "id": 2}))  # not offered: refused
        table.submit_payload(payload({"type": "preset", "id": 3}))
        assert wait_until(lambda: len(output.replies) == 3, 5)
        assert [(r["id"], r["ok"], r["code"]) for r in output.replies] == [
            (1, True, "ok"),
            (2, False, "bad_field"),
            (3, False, "bad_field"),
        ]
        assert "brutal" in output.replies[0]["message"] and "gentle" in output.replies[1]["message"]
        assert table.preset.name == "brutal" and output.published[-1]["next_preset"] == "brutal"
    finally:
        table.stop()
    restarted = Table(journal, Referee, SensorRecorder(), presets=PRESETS)
    restarted.restore()
    assert restarted.preset.name == "brutal"
    journal.close()


def test_the_next_game_preset_survives_journal_retention(tmp_path: Path) -> None:
    """``table.journal_keep_days`` cuts whole old games from the journal, and the preset note with them: a choice
    that still holds is written again, so it outlives the retention horizon."""
    journal = Journal(tmp_path / "j.sqlite3")
    table = Table(journal, Referee, SensorRecorder(), presets=PRESETS)
    table.start()
    try:
        for command in (
            {"type": "preset", "preset": "gentle", "id": 1},
            {"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1, "id": 2},
            {"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 2, "id": 3},
        ):
            table.submit_payload(payload(command))
        assert wait_until(table.idle, 5)
    finally:
        table.stop()
    journal.mark_delivered(range(1, journal.last_seq + 1))  # the broker has them all: nothing holds the cut back
    pruned = Table(journal, Referee, SensorRecorder(), presets=PRESETS, keep_days=1e-9)  # a horizon of microseconds
    pruned.restore()
    assert journal.entries()[0][3]["seed"] == 2  # the first game and the original note are gone
    assert pruned.preset.name == "gentle"
    again = Table(journal, Referee, SensorRecorder(), presets=PRESETS, keep_days=1e-9)
    again.restore()
    assert again.preset.name == "gentle"
    journal.close()
