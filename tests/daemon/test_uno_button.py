"""The launcher's UNO button: an ``uno`` call for the exposed player; with nobody exposed only ``uno_button``."""

from __future__ import annotations

import time
from pathlib import Path

from rules.rigs import rig

from daemon.game import PRESS_GAP_S
from support.daemon import running_daemon
from support.net import wait_until


def test_uno_button_calls_uno_for_the_exposed_player_else_is_only_recorded(tmp_path: Path) -> None:
    with running_daemon(tmp_path, "unob", overrides={"homeassistant": {"enabled": False}}) as daemon:  # no broker
        table, virtual, journal = daemon.table, daemon.virtual, daemon.journal
        assert table is not None and virtual is not None and journal is not None
        hands = {"ann": ["red 1", "red 2"], "bob": ["blue 1", "blue 2", "blue 3"], "cy": ["green 1", "green 2"]}
        table.submit_command(rig("attack", hands, "red 5"))
        table.submit_command({"type": "play", "player": "ann", "card": "red 1"})
        assert wait_until(table.idle, 10)
        assert table.snapshot()["uno_exposed"] == "ann"

        virtual.press_uno()
        assert wait_until(lambda: table.idle() and table.snapshot()["uno_exposed"] is None, 5)
        assert list(journal.commands())[-1] == {"type": "uno", "player": "ann"}
        assert "uno_button" not in [e["type"] for e in journal.events()]

        commands = len(list(journal.commands()))
        time.sleep(PRESS_GAP_S)  # past the button debounce
        virtual.press_uno()  # nobody exposed now: recorded, nothing else
        assert wait_until(lambda: any(e["type"] == "uno_button" for e in journal.events()), 5)
        assert wait_until(table.idle, 5)
        assert len(list(journal.commands())) == commands
