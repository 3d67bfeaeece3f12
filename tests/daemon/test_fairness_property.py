"""The fairness property (hypothesis), on a real daemon: whatever an honest table does — any preset, lid refills (also
in the middle of a hit), lockout on or off, undo, new games, a restart in the middle of a round, the virtual launcher
or the serial backend on the firmware simulator — ``unolauncher verify --state-dir`` passes on every finished round,
and changing any one press line of an ``unolauncher export`` makes ``verify`` fail.

The table plays UNO Attack in table mode with three-card hands, so rounds end, are scored and dealt again: the
current player plays a Wild (always legal) or hits the launcher; presses come from the launcher's button.
``FAIRNESS_EXAMPLES`` sets how many random sessions run (default 8, plus the explicit examples below).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from firmware.fwsim import SimDevice
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from support.daemon import running_daemon
from support.net import wait_until
from unolauncher.cli.verify import journal_events

from .honest import HONEST, PRESS_GAP_S, answers, cli, command, press, public, settle

pytestmark = pytest.mark.timeout(900)

PLAYERS = ["ann", "bob", "cy"]
DEAL = {"dealer": "cy", "starter": "red 5", "hands": {"ann": 3, "bob": 3, "cy": 3}}
CUSTOM = {"miss_hazard": [0.3, 0.6, 1.0], "hit_repeat": [0.4], "cards": {"1": 2, "3": 1, "6": 1},
          "suspense_chance": 0.3, "suspense_ms": [50, 200]}  # fmt: skip
STEPS = ("press", "press", "press", "play", "play", "refill", "refill_mid_hit", "undo", "entropy", "restart",
         "new_game")  # fmt: skip
TAMPER_FIELDS = ("cards", "fire", "suspense_ms", "index", "player", "draw", "commitment")


def new_game(preset: str) -> dict[str, Any]:
    options: dict[str, Any] = {"ejection_preset": preset, "target_score": 10_000}
    if preset == "custom":
        options["ejection_custom"] = CUSTOM
    return {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table", "deal": DEAL,
            "options": options}  # fmt: skip


class Launcher:
    """The physical side of one backend: the button and the lid."""

    def __init__(self, device: SimDevice | None) -> None:
        self.device = device
        self.daemon: Any = None

    def press(self) -> None:
        if self.device is not None:
            self.device.press(hold_ms=30)
        else:
            self.daemon.virtual.press_button()

    def lid(self, is_open: bool) -> None:
        if self.device is not None:
            self.device.set_lid(is_open)
        elif is_open:
            self.daemon.virtual.open_lid()
        else:
            self.daemon.virtual.load(10)
            self.daemon.virtual.close_lid()
        assert wait_until(lambda: self.daemon.launcher.status().lid_open is is_open, 5), "the lid never moved"


def step(kind: str, daemon: Any, launcher: Launcher, preset: str) -> None:
    state = public(daemon)
    if state["phase"] == "scoring":  # someone went out: the table reports the points
        winner = next(p for p, n in state["hands"].items() if n == 0)
        assert command(daemon, {"type": "score", "hands": {p: 10 for p in PLAYERS if p != winner}})
    elif state["phase"] == "between":
        assert command(daemon, {"type": "next_round", "deal": DEAL})
    state = public(daemon)
    if kind == "press":
        press(daemon, launcher.press)
    elif kind == "play":
        player = state["current"]
        if player is None or state["owed"] or state["pending"] or state["chain"]:
            press(daemon, launcher.press)  # a hit is due (or nobody may play): press instead
        else:
            assert command(daemon, {"type": "play", "player": player, "card": "wild", "color": "red"})
    elif kind == "refill":
        launcher.lid(True)
        launcher.lid(False)
        settle(daemon)
    elif kind == "refill_mid_hit":  # the lid opens right after a press: mid-run (or mid-suspense) if it fired
        time.sleep(PRESS_GAP_S)
        before = answers(daemon)
        launcher.press()
        assert wait_until(lambda: answers(daemon) > before, 10)
        launcher.lid(True)
        launcher.lid(False)
        settle(daemon)
    elif kind == "undo":
        command(daemon, {"type": "undo"})  # refused when there is nothing to undo: fine
    elif kind == "entropy":
        command(daemon, {"type": "entropy", "entropy": os.urandom(16).hex()})  # refused between rounds: fine
    elif kind == "new_game":
        assert command(daemon, new_game(preset))


@contextmanager
def table(workdir: Path, launcher: Launcher, preset: str, lockout: bool) -> Iterator[Any]:
    settings_ = {**HONEST["launcher"], "preset": preset if preset != "custom" else "classic"}
    if launcher.device is not None:
        settings_.update(backend="serial", serial_port=str(launcher.device.link), jam_timeout_s=1.0, max_run_s=4.0)
    overrides = {**HONEST, "launcher": settings_, "table": {"lockout": lockout}}
    with running_daemon(workdir, "fair", overrides=overrides) as daemon:
        launcher.daemon = daemon
        real = daemon.launcher
        assert real is not None
        if launcher.device is not None:
            assert wait_until(lambda: real.status().extra.get("connected"), 10)
        assert wait_until(lambda: not real.status().lid_open, 5)
        yield daemon


def play_session(workdir: Path, backend: str, preset: str, lockout: bool, steps: list[str]) -> None:
    device = SimDevice(workdir / "ttyPico", magazine=800, cards_per_s=150.0, spinup_ms=5) if backend == "serial" \
        else None  # fmt: skip
    launcher = Launcher(device)
    try:
        remaining = list(steps)
        while True:
            with table(workdir, launcher, preset, lockout) as daemon:
                if not list(daemon.journal.commands()):
                    assert command(daemon, new_game(preset))
                while remaining:
                    kind = remaining.pop(0)
                    if kind == "restart":  # mid-round, most of the time: the daemon stops and starts again
                        break
                    step(kind, daemon, launcher, preset)
                else:
                    assert command(daemon, new_game(preset))  # the last round's secret comes out
                    return
    finally:
        if device is not None:
            device.close()


sessions = {
    "backend": st.sampled_from(["virtual", "virtual", "serial"]),
    "preset": st.sampled_from(["classic", "gentle", "brutal", "sequence", "custom"]),
    "lockout": st.booleans(),
    "steps": st.lists(st.sampled_from(STEPS), min_size=3, max_size=14),
    "tamper": st.tuples(st.integers(0, 10**6), st.sampled_from(TAMPER_FIELDS)),
}


@settings(
    max_examples=int(os.environ.get("FAIRNESS_EXAMPLES", "8")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(**sessions)
@example(backend="serial", preset="sequence", lockout=False,
         steps=["press", "refill_mid_hit", "play", "press", "restart", "press", "undo", "undo", "press", "refill",
                "play", "press", "play", "press"], tamper=(3, "cards"))  # fmt: skip
@example(backend="virtual", preset="brutal", lockout=True,
         steps=["entropy", "press", "refill_mid_hit", "press", "undo", "play", "restart", "press", "play", "play",
                "press", "new_game", "press", "press"], tamper=(1, "player"))  # fmt: skip
@example(backend="virtual", preset="custom", lockout=False,
         steps=["press", "play", "play", "play", "press", "undo", "undo", "press", "play", "restart", "play",
                "press", "refill", "press"], tamper=(5, "draw"))  # fmt: skip
@example(backend="virtual", preset="gentle", lockout=True,
         steps=["play", "press", "play", "press", "play", "press", "play", "undo", "press", "press"],
         tamper=(0, "index"))  # fmt: skip
@example(backend="virtual", preset="classic", lockout=False,
         steps=["new_game", "press", "restart", "refill_mid_hit", "press", "press", "undo", "press"],
         tamper=(2, "commitment"))  # fmt: skip
def test_honest_sessions_always_verify_and_any_changed_press_line_is_caught(
    tmp_path_factory: pytest.TempPathFactory,
    backend: str,
    preset: str,
    lockout: bool,
    steps: list[str],
    tamper: tuple[int, str],
) -> None:
    workdir = tmp_path_factory.mktemp("fair")
    play_session(workdir, backend, preset, lockout, steps)
    state_dir = str(workdir / "state")
    code, out = cli("verify", "--state-dir", state_dir)
    assert code == 0, out
    assert "commitment(s) still open" in out  # the last new game's round

    # A third party's copy: every game exported; one press line of a revealed round changed.
    games = sum(1 for _, e in journal_events(workdir / "state") if e["type"] == "game_started")
    exported: list[tuple[Path, list[dict[str, Any]]]] = []
    for number in range(1, games + 1):
        path = workdir / f"game{number}.jsonl"
        assert cli("export", "--state-dir", state_dir, "--game", str(number), "--output", str(path))[0] == 0
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        code, out = cli("verify", "--events", str(path))
        assert code == 0, out
        exported.append((path, lines))
    revealed = {e["commitment"] for _, lines in exported for e in lines if e["type"] in ("round_ended",
                "ejection_reveal") and "secret" in e}  # fmt: skip
    presses = [(path, lines, i) for path, lines in exported for i, e in enumerate(lines)
               if e["type"] == "press" and e["commitment"] in revealed]  # fmt: skip
    if not presses:
        return  # no press was ever made in a finished round of an exported game (the session refused them all)
    path, lines, i = presses[tamper[0] % len(presses)]
    changed = dict(lines[i], plan=dict(lines[i]["plan"]))
    field = tamper[1]
    if field in ("cards", "suspense_ms"):
        changed["plan"][field] += 1
    elif field == "fire":
        changed["plan"]["fire"] = not changed["plan"]["fire"]
    elif field == "index":
        changed["index"] += 1
    elif field == "player":
        changed["player"] = "bob" if changed["player"] != "bob" else "cy"
    elif field == "draw":
        changed["draw"] = f"{(int(changed['draw'], 16) + 1) % 2**64:016x}"
    else:
        changed["commitment"] = next(iter(revealed - {changed["commitment"]}), "0" * 64)
    tampered = [*lines[:i], changed, *lines[i + 1 :]]
    path.write_text("".join(json.dumps(e) + "\n" for e in tampered))
    code, out = cli("verify", "--events", str(path))
    assert code == 1, (field, out)
