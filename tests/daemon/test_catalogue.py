"""The rule catalogue (daemon/catalogue.py): made from the registries, and published retained by a real daemon
(``unolauncher run``, embedded broker) so a phone that subscribes later gets it — the dashboard keeps no copy of
the presets, the card actions or the options."""

from __future__ import annotations

import json
from pathlib import Path

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.daemon.catalogue import catalogue, face_actions
from unolauncher.rules.actions import ACTIONS
from unolauncher.rules.ejection import BUILTIN_PRESETS, params_from_table
from unolauncher.rules.options import REGISTRY
from unolauncher.rules.referee import Referee


def test_every_preset_table_is_the_preset_itself() -> None:
    presets = catalogue(("classic",))["presets"]
    assert set(presets) == set(BUILTIN_PRESETS)
    for name, params in BUILTIN_PRESETS.items():
        assert params_from_table(json.loads(json.dumps(presets[name]))) == params, name


def test_a_face_has_one_action_in_every_rule_set_that_has_it() -> None:
    faces = face_actions()
    for ruleset in ("classic", "mario-kart", "attack", "attack-original"):
        ref = Referee()
        ref.handle({"type": "new_game", "ruleset": ruleset, "players": ["a", "b"]})
        for face, action in ref._actions.items():
            if face != "wild customizable":
                assert faces[face] == action, (ruleset, face)
    assert set(faces.values()) <= set(ACTIONS)


def test_the_options_are_the_registry() -> None:
    options = catalogue(())["options"]
    assert [o["name"] for o in options] == [o.name for o in REGISTRY]


def test_a_running_daemon_publishes_the_catalogue_retained(tmp_path: Path) -> None:
    overrides = {"homeassistant": {"enabled": False}}
    with DaemonProcess(tmp_path, overrides=overrides) as daemon:
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="first") as first:
            assert wait_until(lambda: first.messages_on("rules"), 10)  # published (live or retained)
        # A client that connects after that gets it from the broker's retained copy.
        with TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="late") as late:
            assert wait_until(lambda: late.messages_on("rules"), 10)
            retained = [r for t, _, r in late.messages if t.endswith("/rules")]
            assert retained[0] is True
            assert json.loads(late.messages_on("rules")[0]) == catalogue(("classic", "gentle", "brutal", "sequence"))
