"""A whole game through ``unolauncher run`` with ``launcher.backend = "serial"``: the daemon (a real subprocess)
talks to the firmware (under CPython, simulated launcher) over a pty; presses come from the simulated button,
card counts from the simulated beam; players' other moves arrive over MQTT. A mirror referee fed the same
accepted commands must end in the same public state, and the game must reach a winner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware.fwsim import SimDevice
from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee

pytestmark = pytest.mark.timeout(120)

NEW_GAME: dict[str, Any] = {
    "type": "new_game",
    "ruleset": "attack",
    "players": ["ann", "bob"],
    "seed": 2026,
    "mode": "full",
    "options": {"target_score": 1, "hand_size": 5},  # one round decides the game
}
SERIAL = {"backend": "serial", "magazine": 500, "retract_ms": 20, "jam_timeout_s": 0.5, "max_run_s": 3.0}
MAX_STEPS = 600


def _hit_after(table: TableClient, seq: int) -> dict[str, Any] | None:
    return next((e for e in table.ordered_events() if e["seq"] > seq and e["type"] == "hit"), None)


def _hit_seen_after(table: TableClient, seq: int) -> Callable[[], bool]:
    """A ``wait_until`` predicate bound to ``seq`` now (not to a loop variable read later)."""
    return lambda: _hit_after(table, seq) is not None


def test_a_whole_game_through_the_daemon_on_the_serial_backend(tmp_path: Path) -> None:
    device = SimDevice(tmp_path / "ttyPico", magazine=500, cards_per_s=150.0, spinup_ms=5)
    launcher = {**SERIAL, "serial_port": str(device.link)}
    try:
        with (
            DaemonProcess(tmp_path / "d", overrides={"launcher": launcher}) as daemon,
            TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="player") as table,
        ):
            status = table.command({"type": "status"})
            assert status["ok"], status
            assert "launcher: serial" in daemon.log_text()
            mirror = Referee()
            assert table.command(NEW_GAME)["ok"]
            mirror.handle(NEW_GAME)
            bot = Bot("random", seed=5)
            presses = 0
            for _ in range(MAX_STEPS):
                command = bot.next_command(mirror)
                if command is None:
                    break
                if command["type"] == "hit":
                    before = table.last_seq()
                    device.press(hold_ms=30)  # the physical button on the co-processor
                    assert wait_until(_hit_seen_after(table, before), 10), (
                        f"press without a hit; events {[e['type'] for e in table.ordered_events()][-8:]}; "
                        f"log: {daemon.log_text()[-1500:]} status: {table.command({'type': 'status'})} "
                        f"fw pending {device.fw.pending if device.fw else None}, button {device.board._button.value()}"
                    )
                    hit = _hit_after(table, before)
                    assert hit is not None
                    assert (
                        mirror.handle({"type": "hit", "player": hit["player"], "cards": hit["cards"]})[0]["type"]
                        == "hit"
                    )
                    presses += 1
                else:
                    reply = table.command(command)
                    assert reply["ok"], (command, reply)
                    mirror.handle(command)
            assert mirror.public_state()["winner"] is not None, "the game did not finish"
            assert presses >= 3
            events = table.ordered_events()
            fired = [e for e in events if e["type"] == "fired"]
            assert fired and all(e["counted"] for e in fired)
            cards_out = sum(e["cards"] for e in fired)
            assert device.physics is not None and device.physics.ejected == cards_out  # every card counted once
            assert wait_until(lambda: table.state is not None and table.state.get("winner") is not None, 5)
            assert table.state is not None
            assert {k: v for k, v in table.state.items() if k != "seq"} == mirror.public_state()
            assert not device.motor_on()
            assert daemon.stop() == 0
    finally:
        device.close()
