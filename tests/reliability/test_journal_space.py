"""#33 item 5 (part): a client cannot fill the journal's disk with new games; the current game and the e-stop go on.

A real daemon on a 16 MiB tmpfs: filled until less than its margin (a tenth of the disk) is free, ``new_game`` is
refused with ``disk_low`` and one sentence; a move in the running game and ``disable`` still work; once space
returns, new games start again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from daemon.game import NEW_GAME

from support.daemon import DaemonProcess, TableClient

pytestmark = pytest.mark.timeout(120)


def test_new_games_stop_before_the_disk_is_full(tmp_path: Path, small_fs: Path) -> None:
    daemon = DaemonProcess(tmp_path / "d", overrides={"homeassistant": {"enabled": False}})
    daemon.state_dir = small_fs / "state"
    daemon.config["table"]["state_dir"] = str(daemon.state_dir)
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        assert table.command(dict(NEW_GAME))["ok"]
        usage = shutil.disk_usage(small_fs)
        filler = small_fs / "filler"
        filler.write_bytes(b"\0" * (usage.free - usage.total // 20))  # leaves half the margin
        try:
            answer = table.command(dict(NEW_GAME))
            assert (answer["ok"], answer["code"]) == (False, "disk_low"), answer
            assert answer["message"].startswith("No new game:") and answer["message"].endswith("still work.")
            state = table.command({"type": "status"})["data"]["state"]
            undo = table.command({"type": "undo"})  # the running game goes on (undo journals like a move)
            assert undo["ok"], undo
            assert table.command({"type": "disable"})["ok"]
            assert state["players"] == NEW_GAME["players"]
        finally:
            os.unlink(filler)
        assert table.command({"type": "enable"})["ok"]
        assert table.command(dict(NEW_GAME))["ok"]
