"""End to end: a game through `unolauncher run` and the virtual launcher, watched by a separate MQTT client.

Every event must arrive exactly once and in `seq` order; the retained state must equal a mirror referee's.
Runs against the embedded amqtt broker (observer over WebSocket, like the dashboard) and against mosquitto.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from daemon.game import play_steps, public, start_game
from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee

STEPS = 60


def _check_game(daemon: DaemonProcess, observer: TableClient) -> None:
    with TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="player") as player:
        mirror = Referee()
        start_game(player, mirror)
        presses = play_steps(player, mirror, Bot("random", seed=5), STEPS)
        assert presses >= 5, "the game should have gone through the launcher several times"
        final = player.command({"type": "status"})["data"]
    last = final["seq"]
    assert observer.wait_for_seq(last, 10)
    # every event exactly once, in seq order, nothing missing
    assert observer.arrivals == list(range(1, last + 1))
    kinds = {e["type"] for e in observer.ordered_events()}
    assert {"game_started", "press", "hit", "turn"} <= kinds
    assert wait_until(lambda: observer.state is not None and observer.state.get("seq") == last, 5)
    assert observer.state is not None
    assert public(observer.state) == mirror.public_state()
    assert final["outbox"] == 0 or wait_until(lambda: observer.command({"type": "status"})["data"]["outbox"] == 0, 5)
    assert observer.status == "online"


def test_game_over_embedded_broker_observed_over_websocket(tmp_path: Path) -> None:
    with DaemonProcess(tmp_path) as daemon:
        ws_port = int(re.search(r":(\d+)/mqtt$", daemon.endpoints["ws_url"]).group(1))  # type: ignore[union-attr]
        with TableClient("127.0.0.1", ws_port, daemon.table, transport="websockets", name="observer") as observer:
            _check_game(daemon, observer)
        assert daemon.stop() == 0


def test_game_over_mosquitto_with_mqtt5_observer(tmp_path: Path) -> None:
    with (
        Mosquitto() as broker,
        DaemonProcess(tmp_path, broker_port=broker.port) as daemon,
        TableClient("127.0.0.1", broker.port, daemon.table, mqtt5=True, name="observer") as observer,
    ):
        _check_game(daemon, observer)
        assert daemon.stop() == 0
        # a clean stop publishes offline itself (the Will is not sent on a clean disconnect)
        assert wait_until(lambda: observer.status == "offline", 5)


def test_explicit_missing_config_file_is_an_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "unolauncher", "run", "--config", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "nope.toml does not exist" in result.stderr


pytestmark = pytest.mark.timeout(120)


def test_classic_draw_is_dispensed_by_a_launcher_with_a_sensor(tmp_path: Path) -> None:
    """RULES 'With the launcher': in classic/mario-kart a draw makes the sensor launcher count the card out."""
    with (
        DaemonProcess(tmp_path) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="classic") as table,
    ):
        mirror = Referee()
        command = {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 3}
        assert table.command(command)["ok"]
        mirror.handle(command)
        current = mirror.public_state()["current"]
        assert table.command({"type": "draw", "player": current})["ok"]
        assert wait_until(lambda: any(e["type"] == "dispensed" for e in table.ordered_events()), 10)
        dispensed = next(e for e in table.ordered_events() if e["type"] == "dispensed")
        assert dispensed == {**dispensed, "player": current, "wanted": 1, "cards": 1, "outcome": "ok"}
