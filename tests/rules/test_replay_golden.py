"""`unolauncher replay`: golden files of complete games give byte-identical output (regenerate with make_golden)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from unolauncher.cli.replay import replay_lines

from .make_golden import GAMES, GOLDEN

NAMES = [*GAMES, "table-attack"]


@pytest.mark.parametrize("name", NAMES)
def test_replay_of_a_golden_game_is_byte_identical(name: str) -> None:
    lines = (GOLDEN / f"{name}.jsonl").read_bytes().splitlines()
    expected = (GOLDEN / f"{name}.out").read_text()
    assert "\n".join(replay_lines(lines, with_state=True)) + "\n" == expected


def test_golden_games_are_complete_and_contain_bad_lines() -> None:
    for name in GAMES:
        assert '"type":"game_over"' in (GOLDEN / f"{name}.out").read_text(), name
    assert '"type":"round_ended"' in (GOLDEN / "table-attack.out").read_text()
    assert '"type":"error"' in (GOLDEN / "classic-2p.out").read_text()
    assert '"type":"rejected"' in (GOLDEN / "classic-2p.out").read_text()


def test_the_cli_replays_a_file_and_stdin_identically(tmp_path: Path) -> None:
    source = GOLDEN / "mario-kart-3p.jsonl"
    expected = (GOLDEN / "mario-kart-3p.out").read_bytes()
    cmd = [sys.executable, "-m", "unolauncher", "replay"]
    from_file = subprocess.run([*cmd, str(source), "--state"], capture_output=True, timeout=60)
    assert from_file.returncode == 0 and from_file.stdout == expected
    from_stdin = subprocess.run([*cmd, "-", "--state"], input=source.read_bytes(), capture_output=True, timeout=60)
    assert from_stdin.returncode == 0 and from_stdin.stdout == expected
    missing = subprocess.run([*cmd, str(tmp_path / "nope.jsonl")], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_unparsable_lines_name_their_line_number_and_replay_goes_on() -> None:
    lines = [
        b'{"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1}',
        b"{oops",
        b"\xff\xfe",
        b"",
        b"NaN",
        b'{"type": "undo"}',
    ]
    out = list(replay_lines(lines))
    errors = [line for line in out if '"type":"error"' in line]
    assert len(errors) == 3
    assert '"line":2' in errors[0] and "line 2: not valid JSON" in errors[0]
    assert '"line":3' in errors[1] and "UTF-8" in errors[1]
    assert '"line":5' in errors[2]
    undone, reveal = json.loads(out[-2]), json.loads(out[-1])
    assert undone["type"] == "undone" and undone["command"]["type"] == "new_game"
    assert reveal["type"] == "ejection_reveal" and reveal["reason"] == "undone"  # the round it took back


def test_the_lines_that_broke_replay_are_error_lines_and_replay_goes_on() -> None:
    """Issue #18: `NaN` in an accepted command and a 600-deep field crashed replay of a journal."""
    deep = "[" * 600 + "]" * 600
    lines = [
        '{"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1, "x": NaN}',
        '{"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 1}',
        '{"type": "draw", "player": "a", "x": ' + deep + "}",
        '{"type": "draw", "player": "a", "x": [[1]]}',
        '{"type": "undo"}',
    ]
    out = [json.loads(line) for line in replay_lines(lines, with_state=True)]
    assert [o.get("line") for o in out if o.get("type") == "error"] == [1, 3]
    assert "NaN is not allowed" in out[0]["message"]
    assert [o["code"] for o in out if o.get("type") == "rejected"] == ["unknown_field"]
    assert out[-1]["phase"] == "idle"  # the undo took the new game back: the refused lines changed nothing
