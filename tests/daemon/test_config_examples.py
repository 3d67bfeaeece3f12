"""Every configuration example in the docs is a configuration the daemon accepts, and the ``custom`` ejection preset
of docs/ejection.md works end to end: from the config file, and from a phone's ``new_game`` (issue #18, defect 7)."""

from __future__ import annotations

import functools
import re
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from daemon.game import NEW_GAME, PRESS_GAP_S, hit_event_after
from support.daemon import DaemonProcess, TableClient, running_daemon
from support.net import wait_until
from unolauncher.daemon.config import parse_config
from unolauncher.rules.ejection import params_from_table

ROOT = Path(__file__).resolve().parents[2]
DOCS_WITH_CONFIG = ["README.md", "docs/configuration.md", "docs/ejection.md"]

pytestmark = pytest.mark.timeout(120)


def toml_examples(name: str) -> list[str]:
    """The ```toml blocks of a Markdown file (also indented ones, inside list items), dedented."""
    blocks = []
    for indent, body in re.findall(r"^( *)```toml\n(.*?)^\1```", (ROOT / name).read_text(), re.M | re.S):
        blocks.append("\n".join(line[len(indent) :] for line in body.splitlines()))
    return blocks


@pytest.mark.parametrize("name", DOCS_WITH_CONFIG)
def test_every_config_example_in_the_docs_is_accepted(name: str) -> None:
    examples = toml_examples(name)
    assert examples, f"no ```toml example found in {name}: the scan is broken or the example is gone"
    for text in examples:
        parse_config(tomllib.loads(text), source=name)


def custom_example() -> dict[str, Any]:
    [example] = [tomllib.loads(t) for t in toml_examples("docs/ejection.md") if "custom" in t]
    assert example["launcher"]["preset"] == "custom"
    return dict(example["launcher"]["custom"])


def test_the_documented_custom_preset_runs_a_daemon_and_its_games(tmp_path: Path) -> None:
    custom = custom_example()
    params_from_table(custom)  # the ejection model takes it
    with running_daemon(tmp_path, overrides={"launcher": {"preset": "custom", "custom": custom}}) as daemon:
        assert daemon.table is not None and daemon.journal is not None
        ok, code, message, _ = daemon.table.apply({"type": "new_game", "ruleset": "attack", "players": ["a", "b"]})
        assert ok, (code, message)
        # The round's launcher commitment is for the configured table (the presses are planned from it).
        [started] = [e for e in daemon.journal.events() if e["type"] == "round_started"]
        assert (started["preset"], started["custom"]) == ("custom", custom)


def test_a_custom_table_in_new_game_is_used_and_every_later_command_answered(tmp_path: Path) -> None:
    """It used to be accepted and journalled, then that command and every later one got no reply."""
    custom = {"miss_hazard": [0.4, 1.0], "cards": {"2": 1}}
    game = {**NEW_GAME, "options": {"ejection_preset": "custom", "ejection_custom": custom}}
    daemon = DaemonProcess(tmp_path, overrides={"homeassistant": {"enabled": False}})
    with daemon, TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as table:
        assert table.command(game)["ok"]
        for _ in range(4):  # a press fires within two (hazard 1.0 after one dry press), always two cards
            before = table.last_seq()
            time.sleep(PRESS_GAP_S)  # presses closer than the launcher's debounce are contact bounce
            assert table.command({"type": "press"})["ok"]
            assert wait_until(functools.partial(hit_event_after, table, before), 10), table.ordered_events()[-5:]
        cards = [e["cards"] for e in table.ordered_events() if e["type"] == "hit"]
        assert set(cards) <= {0, 2} and 2 in cards, cards
        assert table.command({"type": "status"})["ok"]
        bad = {**NEW_GAME, "options": {"ejection_preset": "custom", "ejection_custom": {"miss_hazard": [0.0]}}}
        refusal = table.command(bad)
        assert (refusal["ok"], refusal["code"]) == (False, "bad_option"), refusal
        assert "cards" in refusal["message"]
    assert "Traceback" not in daemon.log_text()
