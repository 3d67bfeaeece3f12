"""The game in Home Assistant entities (``bus/ha_game.py``), the device triggers per event, the Motor sensor that sees
every run, the Last refusal sensor, and the polish (units, categories, short entity ids): templates rendered by
Jinja2 on what a real referee and a real daemon publish."""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

from support.daemon import TableClient, running_daemon
from support.net import wait_until
from unolauncher.bus.broker import EmbeddedBroker
from unolauncher.bus.discovery import DiscoveryOptions, components, discovery_messages
from unolauncher.bus.ha_game import BIG_HIT_CARDS, DIRECTIONS, PHASES, TRIGGERS
from unolauncher.bus.topics import Topics
from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.referee import Referee

from .ha_schema import discovery_errors
from .test_discovery import JINJA


@functools.cache
def compiled(template: str) -> Any:
    return JINJA.from_string(template)


def render(template: str, payload: str) -> str:
    """As ``test_discovery.render`` (Home Assistant's ``value`` and ``value_json``), each template compiled once."""
    return str(compiled(template).render(value=payload, value_json=json.loads(payload)))


COMPS = components(Topics("kitchen"), DiscoveryOptions(version="1.2.3", configuration_url="http://pi.local:8080/"))


def states_of_a_game(ruleset: str, players: list[str], seed: int) -> list[dict[str, Any]]:
    """The public state after every command of a whole game played by bots (what ``state`` carries)."""
    ref = Referee()
    states = [ref.public_state()]
    ref.handle({"type": "new_game", "ruleset": ruleset, "players": players, "seed": seed})
    states.append(ref.public_state())
    bot = Bot("random", seed=seed)
    steps = 0
    while ref.public_state()["phase"] != "over" and steps < 5000:
        play_game(ref, bot, max_steps=1)
        states.append(ref.public_state())
        steps += 1
    return states


def test_game_entities_render_every_state_of_real_games() -> None:
    seen: dict[str, set[str]] = {"phase": set(), "direction": set(), "winner": set()}
    for ruleset, players, seed in (("classic", ["ann", "bob"], 1), ("attack", ["ann", "bob", "cy"], 2)):
        for state in states_of_a_game(ruleset, players, seed):
            payload = json.dumps(state)
            phase = render(COMPS["phase"]["value_template"], payload)
            assert phase in PHASES
            direction = render(COMPS["direction"]["value_template"], payload)
            assert direction in DIRECTIONS
            assert render(COMPS["round"]["value_template"], payload) == str(state["round"])
            scores = render(COMPS["scores"]["value_template"], payload)
            attributes = json.loads(render(COMPS["scores"]["json_attributes_template"], payload))
            assert attributes == state["scores"]
            assert scores == (str(max(state["scores"].values())) if state["scores"] else "None")
            assert render(COMPS["top_card"]["value_template"], payload) == str(state["top"])
            assert render(COMPS["color"]["value_template"], payload) == str(state["color"])
            seen["phase"].add(phase)
            seen["direction"].add(direction)
            seen["winner"].add(render(COMPS["winner"]["value_template"], payload))
    assert {"idle", "playing", "over"} <= seen["phase"]
    assert seen["direction"] == set(DIRECTIONS)  # reverses happened, both values rendered
    assert "None" in seen["winner"] and len(seen["winner"]) > 1  # unknown while playing, then a name


def fired(event: dict[str, Any]) -> list[str]:
    """The device triggers Home Assistant fires for one event: those whose ``payload`` the template renders."""
    payload = json.dumps(event)
    triggers = [c for c in COMPS.values() if c["platform"] == "device_automation" and c["topic"].endswith("/events")]
    return [c["type"] for c in triggers if render(c["value_template"], payload) == c["payload"]]


def test_each_interesting_event_fires_its_own_device_trigger_once() -> None:
    assert set(TRIGGERS) <= {c.get("type") for c in COMPS.values()}
    ref = Referee()
    events = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 5})
    events += play_game(ref, Bot("random", seed=5))[1]
    types = {e["type"] for e in events}
    assert {"round_ended", "game_over", "went_out"} <= types
    for event in events:
        expected = [event["type"]] if event["type"] in TRIGGERS else []
        assert fired(event) == expected, event
    assert fired({"type": "hit", "player": "ann", "cards": BIG_HIT_CARDS, "owed_left": 0}) == ["big_hit"]
    assert fired({"type": "hit", "player": "ann", "cards": BIG_HIT_CARDS - 1, "owed_left": 0}) == []
    assert fired({"type": "magazine_empty", "cards_out": 0, "message": "empty"}) == ["launcher_empty"]
    assert fired({"type": "jam", "cards_out": 1, "expected": 3, "message": "jam"}) == ["jam"]
    for trigger in (c for c in COMPS.values() if c.get("topic") == "unolauncher/kitchen/events"):
        assert trigger["qos"] == 1  # the events are published at QoS 1; a QoS 0 subscription loses them on a blip


def test_polish_home_assistant_users_expect() -> None:
    topic, payload = discovery_messages(
        Topics("kitchen"),
        DiscoveryOptions(version="1.2.3", serial_number="10000000abcdef", hw_version="Raspberry Pi Zero 2 W Rev 1.0"),
    )[0]
    assert discovery_errors(topic, payload) == []
    device = payload["device"]
    assert device["suggested_area"] == "Kitchen"
    assert device["serial_number"] == "10000000abcdef" and device["hw_version"].startswith("Raspberry Pi")
    assert COMPS["preset"]["entity_category"] == "config"
    assert COMPS["outbox"]["enabled_by_default"] is False
    assert COMPS["cards_out"]["unit_of_measurement"] == COMPS["magazine"]["unit_of_measurement"] == "cards"
    assert COMPS["game"]["qos"] == 1
    assert COMPS["preset"]["default_entity_id"] == "select.uno_kitchen_preset"
    assert COMPS["preset"]["object_id"] == "uno_kitchen_preset"


def fired_runs(table: TableClient) -> int:
    return sum(e["type"] == "fired" for e in table.ordered_events())


def test_motor_sensor_sees_every_run_and_refusals_reach_home_assistant(tmp_path: Path, broker: EmbeddedBroker) -> None:
    overrides: dict[str, dict[str, Any]] = {"homeassistant": {"enabled": True}, "broker": {"protocol": "3.1.1"}}
    with running_daemon(tmp_path, "kitchen", broker.port, overrides) as daemon:
        # A slow disk: each journal write takes longer than a run, so a Motor published only with the journal's
        # batches (as before) would never show one run as on. The journal itself is real; it is only delayed.
        assert daemon.journal is not None and daemon.bus is not None
        assert daemon.bus.subscribed.wait(10)
        append_batch = daemon.journal.append_batch

        def slow_append(*args: Any, **kw: Any) -> Any:
            time.sleep(0.3)  # the fault itself: an SD card that takes 0.3 s per batch
            return append_batch(*args, **kw)

        daemon.journal.append_batch = slow_append  # type: ignore[method-assign]
        table = TableClient("127.0.0.1", broker.port, "kitchen", name="ha-motor")
        try:
            assert table.command({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "seed": 3})["ok"]
            for _ in range(20):  # the ejection model decides which presses fire: enough presses for several runs
                assert table.command({"type": "press"})["ok"]

            def settled() -> bool:  # every press handled, journalled and delivered, the motor off
                assert daemon.table is not None and daemon.journal is not None
                motor = table.messages_on("motor")
                return (
                    daemon.table.idle()
                    and table.last_seq() == daemon.journal.last_seq
                    and bool(motor)
                    and motor[-1] == b"OFF"
                )

            assert wait_until(settled, 30), (fired_runs(table), table.messages_on("motor"))
            motor = table.messages_on("motor")
            assert motor.count(b"ON") == fired_runs(table) > 0, motor  # every run, however short, seen as on then off
            assert b"ON,ON" not in b",".join(motor) and b"OFF,OFF" not in b",".join(motor)

            # A refused command without an id (as Home Assistant sends them): the Last refusal sensor shows it.
            table.send('{"type": "next_round"}')
            assert wait_until(lambda: table.messages_on("refusal"), 10)
            refusal = json.loads(table.messages_on("refusal")[-1])
            assert refusal["code"] and refusal["message"] and refusal["id"] is None
            assert render(COMPS["last_refusal"]["value_template"], json.dumps(refusal)) == refusal["code"]
        finally:
            table.close()
