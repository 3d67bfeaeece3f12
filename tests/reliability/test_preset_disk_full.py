"""#33 item 13: ``preset`` while the journal's disk is full answers ``journal_error`` (it said internal_error, "a
bug"); the preset is unchanged and the e-stop still works."""

from __future__ import annotations

from pathlib import Path

import pytest

from reliability.helpers import fill
from support.daemon import DaemonProcess, TableClient

pytestmark = pytest.mark.timeout(120)


def test_preset_on_a_full_disk_is_a_journal_error(tmp_path: Path, small_fs: Path) -> None:
    daemon = DaemonProcess(tmp_path / "d", overrides={"homeassistant": {"enabled": False}})
    daemon.state_dir = small_fs / "state"
    daemon.config["table"]["state_dir"] = str(daemon.state_dir)
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port) as table:
        before = table.command({"type": "status"})
        filler = fill(small_fs)
        try:
            answer = table.command({"type": "preset", "preset": "brutal"})
            assert (answer["ok"], answer["code"]) == (False, "journal_error"), answer
            assert "unchanged" in answer["message"]
            stop = table.command({"type": "disable"})  # the e-stop acts even when it cannot be journalled
            assert stop["code"] in ("ok", "journal_error"), stop
            assert table.command({"type": "status"})["data"]["launcher"]["enabled"] is False
        finally:
            filler.unlink()
        assert table.command({"type": "preset", "preset": "brutal"})["ok"]
        assert before["ok"]
