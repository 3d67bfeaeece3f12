"""Issue #33 item 11: ``verify --events`` (meant for other people's files), ``verify``/``export --state-dir`` on a
damaged journal, and ``verify``/``export``/``replay`` writing to a full stdout give exit status 2 and one clear line,
never a traceback (``verify`` keeps 1 for "mismatch"). Real processes, a journal a real daemon wrote."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.daemon import DaemonProcess, TableClient

DEEP = "[" * 100_000 + "]" * 100_000  # json.loads gives up (RecursionError) at about 1,000 levels
GAME = {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "mode": "table",
        "deal": {"dealer": "bob", "starter": "red 5", "hands": {"ann": 7, "bob": 7}}}  # fmt: skip


def unolauncher(*args: str, stdout: Any = subprocess.PIPE, stdin: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "unolauncher", *args], stdout=stdout, stderr=subprocess.PIPE,
                          input=stdin, text=True, timeout=120, check=False)  # fmt: skip
    return done.returncode, done.stdout or "", done.stderr


def one_clear_line(err: str) -> bool:
    return "Traceback" not in err and len(err.strip().splitlines()) == 1 and err.startswith("unolauncher ")


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state directory whose journal a real daemon wrote: two games."""
    workdir = tmp_path_factory.mktemp("hostile")
    with (
        DaemonProcess(workdir, overrides={"homeassistant": {"enabled": False}}) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as client,
    ):
        for _ in range(2):
            assert client.command(GAME)["ok"]
    return workdir / "state"


def damaged_copy(state: Path, tmp_path: Path, body: object) -> Path:
    copy = tmp_path / "state"
    copy.mkdir()
    source = sqlite3.connect(state / "journal.sqlite3")
    target = sqlite3.connect(copy / "journal.sqlite3")
    source.backup(target)
    source.close()
    seq = target.execute("SELECT MAX(seq) FROM journal WHERE kind = 'event'").fetchone()[0]
    target.execute("UPDATE journal SET body = ? WHERE seq = ?", (body, seq))
    target.commit()
    target.close()
    return copy


def test_verify_events_nested_too_deeply(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps({"type": "press"}) + "\n" + DEEP + "\n")
    code, _, err = unolauncher("verify", "--events", str(events))
    assert code == 2 and one_clear_line(err) and "line 2" in err, (code, err)
    code, _, err = unolauncher("verify", "--events", "-", stdin=DEEP)
    assert code == 2 and one_clear_line(err), (code, err)


@pytest.mark.parametrize("body", [DEEP, b"\xff\x00 not text", '{"type": '], ids=["deep", "blob", "cut"])
def test_verify_and_export_on_a_damaged_journal_row(journal: Path, tmp_path: Path, body: object) -> None:
    state = damaged_copy(journal, tmp_path, body)
    for args in (("verify", "--state-dir", str(state)), ("export", "--state-dir", str(state))):
        code, _, err = unolauncher(*args)
        assert code == 2 and one_clear_line(err) and "seq" in err, (args, code, err)


@pytest.mark.parametrize("cli", ["verify", "export", "replay"])
def test_a_full_stdout(journal: Path, tmp_path: Path, cli: str) -> None:
    commands = tmp_path / "commands.jsonl"
    commands.write_text(json.dumps({**GAME, "seed": 1}) + "\n")
    args = {"verify": ["--state-dir", str(journal)], "export": ["--state-dir", str(journal)],
            "replay": [str(commands)]}[cli]  # fmt: skip
    with open("/dev/full", "w") as full:
        code, _, err = unolauncher(cli, *args, stdout=full)
    assert code == 2 and one_clear_line(err) and "standard output" in err, (cli, code, err)
