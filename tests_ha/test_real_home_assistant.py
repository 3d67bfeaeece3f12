"""The daemon against a real Home Assistant (``python3 dev.py ha-check``; not part of the default test run: it takes
minutes). On the embedded broker and on mosquitto, Home Assistant onboarded and given MQTT through its config flow:

1. retained messages: a renamed table's old device disappears from Home Assistant (the deletion is resent on its
   birth message), and after a restart of the daemon with ``homeassistant.enabled = false`` the entities come back
   from what the broker retained;
2. the documented automation on the event entity and the ``round_ended`` device trigger each count every round end;
3. the Motor sensor is on once per run;
4. a refused command from a Home Assistant button shows on the Last refusal sensor;
5. the game entities show the table's state (phase, round, scores with per-player attributes, top card, colour,
   direction, launcher state).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.daemon import DaemonProcess, TableClient
from support.mosquitto import Mosquitto
from support.net import free_port, wait_until
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee

from .home_assistant import HomeAssistant, ensure_installed, find_python

ROUNDS = 2


@pytest.fixture(scope="session")
def hass() -> Path:
    python = find_python()
    if python is None:
        pytest.skip("no Python >= 3.13 on this machine (Home Assistant needs it): set UNOLAUNCHER_HA_PYTHON")
    return ensure_installed(python)


@pytest.fixture(params=["embedded", "mosquitto"])
def broker(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The daemon's broker section and the port Home Assistant connects to."""
    if request.param == "embedded":
        port = free_port()
        yield {"section": {"embedded": True, "port": port, "ws_port": free_port()}, "port": port, "kind": "embedded"}
        return
    with Mosquitto() as mosquitto:
        yield {
            "section": {"embedded": False, "host": "127.0.0.1", "port": mosquitto.port, "protocol": "3.1.1"},
            "port": mosquitto.port,
            "kind": "mosquitto",
        }


def daemon(workdir: Path, table: str, broker: dict[str, Any], enabled: bool = True) -> DaemonProcess:
    process = DaemonProcess(
        workdir,
        table,
        overrides={
            "homeassistant": {"enabled": enabled},
            "table": {"lockout": False},  # every press may fire (the Motor check), with or without a hit owed
            "dashboard": {"enabled": True, "host": "127.0.0.1", "port": 0},
        },
    )
    process.config["broker"] = dict(broker["section"])
    return process


def play_rounds(table: TableClient, rounds: int) -> tuple[int, list[dict[str, Any]]]:
    """A classic game played by bots through the daemon's commands (a shadow referee picks each move), until
    ``rounds`` rounds ended; returns the round ends and the events."""
    game = {"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 11}
    shadow = Referee()
    shadow.handle(game)
    assert table.command(game)["ok"]
    bot, ended = Bot("random", seed=11), 0
    while ended < rounds:
        command = bot.next_command(shadow)
        assert command is not None
        if command["type"] == "next_round":
            ended += 1
            if ended == rounds:
                break
        events = shadow.handle(command)
        answer = table.command(command)
        assert answer["ok"], (command, answer, events)
    return ended, table.ordered_events()


@pytest.mark.timeout(1800)  # Home Assistant alone takes 1-6 minutes to start on a busy 2-core machine
def test_home_assistant_sees_the_table(tmp_path: Path, hass: Path, broker: dict[str, Any]) -> None:
    with HomeAssistant(tmp_path, hass) as ha:
        ha.onboard()
        first = daemon(tmp_path / "den", "den", broker)
        first.start()
        try:
            added = ha.add_mqtt(broker["port"])
            assert added.get("type") == "create_entry", added
            assert ha.wait_state("sensor.uno_den_phase", lambda s: s == "idle", 120), ha.log_text()[-3000:]
        finally:
            first.stop()

        # 1. Renamed: same state directory and broker, table "kitchen". The embedded broker restarts with the
        # daemon, so Home Assistant reconnects after the daemon deleted den's device; its birth brings the deletion.
        kitchen = daemon(tmp_path / "den", "kitchen", broker)
        kitchen.start()
        try:
            assert ha.wait_state("sensor.uno_kitchen_phase", lambda s: s == "idle", 120)
            assert wait_until(lambda: not any("uno_den" in e for e in ha.states()), 120), [
                e for e in ha.states() if "uno_den" in e
            ]

            device = ha.template("{{ device_id('sensor.uno_kitchen_phase') }}").strip()
            assert len(device) == 32, device
            ha.add_automation(
                "uno_round_winner",
                {
                    "alias": "UNO round winner",
                    "triggers": [{"trigger": "state", "entity_id": "event.uno_kitchen_game"}],
                    "conditions": [
                        {
                            "condition": "template",
                            "value_template": (
                                "{{ trigger.from_state is not none and trigger.from_state.state != 'unavailable' and "
                                "trigger.to_state.state != 'unavailable' and "
                                "trigger.to_state.attributes.event_type == 'round_ended' }}"
                            ),
                        }
                    ],
                    "actions": [
                        {"action": "counter.increment", "target": {"entity_id": "counter.rounds_by_event_entity"}}
                    ],
                },
            )
            ha.add_automation(
                "uno_round_trigger",
                {
                    "alias": "UNO round ended (device trigger)",
                    "triggers": [
                        {
                            "trigger": "device",
                            "domain": "mqtt",
                            "device_id": device,
                            "type": "round_ended",
                            "subtype": "game",
                            "discovery_id": "unolauncher_kitchen trigger_round_ended",
                        }
                    ],
                    "actions": [
                        {"action": "counter.increment", "target": {"entity_id": "counter.rounds_by_device_trigger"}}
                    ],
                },
            )
            ha.add_automation(
                "uno_motor_runs",
                {
                    "alias": "UNO motor runs",
                    "triggers": [
                        {"trigger": "state", "entity_id": "binary_sensor.uno_kitchen_motor", "from": "off", "to": "on"}
                    ],
                    "actions": [{"action": "counter.increment", "target": {"entity_id": "counter.motor_runs"}}],
                },
            )
            assert wait_until(lambda: ha.state("automation.uno_motor_runs") == "on", 60)

            table = TableClient(kitchen.mqtt_host, kitchen.mqtt_port, "kitchen", name="ha-check")
            try:
                # 4. A refusal from a Home Assistant button (no id): Next round while nothing was dealt yet.
                ha.call("button", "press", entity_id="button.uno_kitchen_next_round")
                assert ha.wait_state("sensor.uno_kitchen_last_refusal", lambda s: s not in (None, "unknown"), 60)
                refusal = ha.states()["sensor.uno_kitchen_last_refusal"]
                assert refusal["attributes"].get("message"), refusal

                # 2. Rounds: each round end counted by the documented automation and by the device trigger.
                rounds, events = play_rounds(table, ROUNDS)
                ended = sum(e["type"] == "round_ended" for e in events)
                assert ended == rounds
                assert wait_until(lambda: ha.counter("rounds_by_event_entity") == ended, 60), (
                    ha.counter("rounds_by_event_entity"),
                    ended,
                )
                assert wait_until(lambda: ha.counter("rounds_by_device_trigger") == ended, 60), (
                    ha.counter("rounds_by_device_trigger"),
                    ended,
                )

                # 5. The game entities show the table as the daemon's retained state has it.
                assert ha.wait_state("sensor.uno_kitchen_phase", lambda s: s == "between", 60)
                assert ha.state("sensor.uno_kitchen_round") == str(ROUNDS)
                scores = ha.states()["sensor.uno_kitchen_scores"]
                assert {"ann", "bob"} <= set(scores["attributes"]), scores
                assert scores["state"] == str(max(scores["attributes"]["ann"], scores["attributes"]["bob"]))
                assert ha.state("sensor.uno_kitchen_direction") in ("clockwise", "counterclockwise")
                assert ha.state("sensor.uno_kitchen_top_card") not in (None, "unknown", "unavailable")
                assert ha.state("sensor.uno_kitchen_launcher_state") == "ready"

                # 3. Motor: presses with lockout off fire; every run is counted on.
                before = ha.counter("motor_runs")
                runs = sum(e["type"] == "fired" for e in table.ordered_events())
                for _ in range(20):  # lockout off: the ejection model decides which presses fire
                    assert table.command({"type": "press"})["ok"]
                    time.sleep(0.2)  # pacing only: a press during a run is ignored
                assert wait_until(lambda: ha.state("binary_sensor.uno_kitchen_motor") == "off", 30)
                fired = sum(e["type"] == "fired" for e in table.ordered_events()) - runs
                assert fired > 0
                assert wait_until(lambda: ha.counter("motor_runs") - before == fired, 60), (
                    ha.counter("motor_runs") - before,
                    fired,
                )
            finally:
                table.close()
        finally:
            kitchen.kill()

        # 1. After the documented restart with homeassistant.enabled = false, the retained configs are still there:
        # the entities come back (available) although this daemon announces nothing.
        quiet = daemon(tmp_path / "den", "kitchen", broker, enabled=False)
        quiet.start()
        try:
            assert ha.wait_state("sensor.uno_kitchen_phase", lambda s: s not in (None, "unavailable"), 120)
        finally:
            quiet.stop()
        problems = ha.errors_about("mqtt")
        assert not [p for p in problems if "Invalid config" in p or "not valid" in p], problems
