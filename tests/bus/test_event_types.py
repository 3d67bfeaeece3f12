"""The event registry (``unolauncher.bus.event_types``) lists every event type the daemon can publish.

Home Assistant's event entity declares these types; an event of an undeclared type is dropped by HA with a
warning. Three checks, so that a new event cannot slip past: a scan of the package's source for event literals,
real games played by bots through the referee (every rule set, both modes), and a daemon with the virtual launcher
driven through presses, the lid, a jam, the UNO button and a stock draw.
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path
from typing import Any

import pytest
from daemon.game import PRESS_GAP_S
from rules.rigs import rig

from support.daemon import running_daemon
from support.net import wait_until
from unolauncher.bus.event_types import ATTRIBUTES, EVENT_TYPES, EVENTS
from unolauncher.daemon.commands import DAEMON_COMMANDS
from unolauncher.rules.bots import Bot, play_game
from unolauncher.rules.cards import RULESETS
from unolauncher.rules.referee import COMMAND_TYPES, Referee

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "controller" / "unolauncher"

# ``"type": "..."`` literals in the package that are not events the daemon publishes, each with the reason.
NOT_EVENTS = {
    "rejected": "a refused command is answered on reply and never journalled or published (rules/refusal.py)",
    "error": "replay's line for an unreadable input line, printed by `unolauncher replay`, not by the daemon",
    "tcp": "the embedded broker's listener type (bus/broker.py)",
    "ws": "the embedded broker's listener type (bus/broker.py)",
    "button_short_press": "Home Assistant's device trigger type (bus/discovery.py)",
}


def literal_types(path: Path) -> set[str]:
    """Every constant ``"type"`` value in a dict literal of ``path`` (both branches of ``a if c else b`` too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and key.value == "type"):
                continue
            branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
            found.update(b.value for b in branches if isinstance(b, ast.Constant) and isinstance(b.value, str))
    return found


def test_every_event_literal_in_the_package_is_registered() -> None:
    commands = set(COMMAND_TYPES) | set(DAEMON_COMMANDS)
    unlisted: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for kind in literal_types(path) - set(EVENTS) - commands - set(NOT_EVENTS):
            unlisted.setdefault(kind, []).append(str(path.relative_to(PACKAGE)))
    assert unlisted == {}, f"event types the daemon can emit but bus/event_types.py does not list: {unlisted}"


def test_the_scan_finds_event_literals() -> None:
    # The scan itself must see what it is meant to see (an AST change or a moved module would make it vacuous).
    assert {"played", "hit", "round_ended"} <= literal_types(PACKAGE / "rules" / "play.py") | literal_types(
        PACKAGE / "rules" / "attack.py"
    ) | literal_types(PACKAGE / "rules" / "scoring.py")
    assert {"lid_open", "lid_closed"} <= literal_types(PACKAGE / "launcher" / "backends" / "gpio" / "runs.py")


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_bot_games_emit_only_registered_types(ruleset: str) -> None:
    seen: set[str] = set()
    for seed in range(3):
        ref = Referee()
        players = ["ann", "bob", "cy", "dee"][: 2 + seed]
        events = ref.handle({"type": "new_game", "ruleset": ruleset, "players": players, "seed": seed})
        _, played = play_game(ref, Bot("random", seed=seed))
        seen |= {e["type"] for e in events + played}
    assert {"game_started", "round_started", "played", "round_ended", "game_over"} <= seen
    assert seen <= set(EVENTS), seen - set(EVENTS)


def test_table_mode_rounds_emit_only_registered_types() -> None:
    ref = Referee()
    commands: list[dict[str, Any]] = [
        {
            "type": "new_game",
            "ruleset": "mario-kart",
            "mode": "table",
            "players": ["ann", "bob", "cy"],
            "seed": 3,
            "options": {"target_score": 20},
            "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 2, "bob": 7, "cy": 7}},
        },
        {"type": "play", "player": "ann", "card": "red 1"},
        {"type": "catch", "player": "bob", "target": "ann"},
        {"type": "draw", "player": "bob"},
        {"type": "pass", "player": "bob"},
        {"type": "play", "player": "cy", "card": "wild draw-4", "color": "blue"},
        {"type": "challenge", "player": "ann", "guilty": False},
        {"type": "play", "player": "bob", "card": "wild item-box", "turned": "green 4"},
        {"type": "choose", "player": "bob", "target": "ann"},
        {"type": "undo"},
        {"type": "choose", "player": "bob", "target": "cy"},
    ]
    seen: set[str] = set()
    for command in commands:
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", (command, events)
        seen |= {e["type"] for e in events}
    assert {"caught", "penalty", "drew", "challenged", "item", "target_chosen", "undone"} <= seen
    assert seen <= set(EVENTS), seen - set(EVENTS)


def test_a_daemon_with_the_virtual_launcher_emits_only_registered_types(tmp_path: Path) -> None:
    overrides: dict[str, dict[str, Any]] = {"homeassistant": {"enabled": False}, "launcher": {"magazine": 30}}
    with running_daemon(tmp_path, "events", overrides=overrides) as daemon:  # no broker: the journal is the record
        table, virtual, journal = daemon.table, daemon.virtual, daemon.journal
        assert table is not None and virtual is not None and journal is not None

        def types() -> set[str]:
            return {e["type"] for e in journal.events(1, 100_000)}

        launcher = daemon.launcher
        assert launcher is not None

        def press() -> None:
            time.sleep(PRESS_GAP_S)  # past the button's debounce
            count = len(journal.events(1, 100_000))
            virtual.press_button()
            # the press's first event, then the end of its run (a jam is only known at the jam timeout)
            assert wait_until(lambda: len(journal.events(1, 100_000)) > count, 5)
            assert wait_until(lambda: not launcher.status().running and table.idle(), 5)

        press()  # no game: locked out
        table.submit_command({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "seed": 5})
        assert wait_until(table.idle, 5)
        for _ in range(12):  # presses until the model fires at least once
            press()
            if "fired" in types():
                break
        virtual.open_lid()
        assert wait_until(lambda: "lid_open" in types(), 5)
        press()  # refused: the lid is open
        virtual.close_lid()
        assert wait_until(lambda: "lid_closed" in types(), 5)
        virtual.press_uno()  # nobody exposed: only recorded
        assert wait_until(lambda: "uno_button" in types(), 5)
        virtual.jam()
        for _ in range(12):
            press()
            if "jam" in types():
                break
        virtual.open_lid()  # clears the jam by hand
        virtual.close_lid()
        # Mario Kart with the launcher as the stock (it counts cards): a draw is dispensed by the launcher.
        table.submit_command(
            rig("mario-kart", {"ann": ["blue 1", "blue 2"], "bob": ["green 1"], "cy": ["green 2"]}, "red 5")
        )
        table.submit_command({"type": "draw", "player": "ann"})
        assert wait_until(lambda: "dispensed" in types() or "dispense_skipped" in types(), 5)
        seen = types()
    expected = {
        "lockout",
        "press",
        "fired",
        "hit",
        "lid_open",
        "press_refused",
        "lid_closed",
        "uno_button",
        "jam",
        "dispense",
        "drew",
    }
    assert expected <= seen, expected - seen
    assert seen <= set(EVENTS), seen - set(EVENTS)


def test_every_registered_type_is_documented() -> None:
    docs = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8") + (ROOT / "docs" / "protocol-mqtt.md").read_text(
        encoding="utf-8"
    )
    documented = set(re.findall(r"`([a-z_]+)`", docs))
    assert set(EVENT_TYPES) - documented == set()


def test_registry_entries_are_well_formed() -> None:
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES))
    for name, event in EVENTS.items():
        assert re.fullmatch(r"[a-z][a-z_]*", name), name
        assert event.source in ("referee", "launcher", "daemon"), name
        assert event.meaning and "type" not in event.attributes and "seq" not in event.attributes
    assert "player" in ATTRIBUTES and len(ATTRIBUTES) == len(set(ATTRIBUTES))
