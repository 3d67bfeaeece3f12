#!/usr/bin/env python3
"""Referee throughput: steps/s of full-mode games between random-legal bots, per rule set, side by side with
RLCard's UNO game (classic rules) measured in the same run.

    .venv/bin/python bench/referee.py              # all rule sets, 2 and 4 players, RLCard column
    .venv/bin/python bench/referee.py --quick      # shorter runs
    .venv/bin/python bench/referee.py --no-rlcard  # skip the RLCard baseline

    .venv/bin/python bench/referee.py --breakdown  # where the time goes: bytecodes per step, by command type

A *step* on our side is one command accepted by ``Referee.handle`` (play, draw, pass, hit, choose, accept or
challenge, next_round), chosen by ``Bot("random")`` — the bot ``unolauncher simulate`` uses, here without UNO
calls (``uno_rate=0``) since RLCard has none — and fully validated like any external command. A step on RLCard's
side is one ``game.step(action)`` of its UNO game API with ``rng.choice(game.get_legal_actions())``. Both sides pick
uniformly among legal moves with a seeded RNG and play whole games; each figure is the median of several timed
runs of CPU time (``time.process_time``: this machine is shared and noisy), and our runs alternate with RLCard's so
both see the same load. RLCard is installed into the throwaway environment ``bench/.venv-rlcard`` on first use; if
that fails the column is skipped with a message.

``--breakdown`` counts the Python bytecodes executed per step (``sys.settrace`` opcode events), split into the bot
and ``Referee.handle`` and by command type. Unlike CPU time it does not depend on the machine's load, so it shows
where the time goes and whether a change helped, even on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import venv
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "controller"))

from unolauncher.rules.bots import Bot  # noqa: E402
from unolauncher.rules.cards import CARD_INFO  # noqa: E402
from unolauncher.rules.referee import Referee  # noqa: E402

RLCARD_VENV = ROOT / "bench" / ".venv-rlcard"
RLCARD_PY = RLCARD_VENV / "bin" / "python"
RLCARD_SCRIPT = r"""
import json, random, statistics, sys, time
import numpy as np
from rlcard.games.uno.game import UnoGame
players, seconds, repeats = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
game = UnoGame(num_players=players)
game.np_random = np.random.RandomState(0)
rng = random.Random(0)
rates, games_rates = [], []
for _ in range(repeats):
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game.init_game()
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            steps += 1
        games += 1
    elapsed = time.process_time() - start
    rates.append(steps / elapsed)
    games_rates.append(games / elapsed)
print(json.dumps({"steps": statistics.median(rates), "games": statistics.median(games_rates)}))
"""


def ensure_rlcard() -> str | None:
    """Create bench/.venv-rlcard with rlcard in it; return None on success, else the reason."""
    if RLCARD_PY.exists():
        probe = subprocess.run([str(RLCARD_PY), "-c", "import rlcard"], capture_output=True)
        if probe.returncode == 0:
            return None
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(RLCARD_VENV)
        subprocess.run([str(RLCARD_PY), "-m", "pip", "install", "--quiet", "rlcard==1.2.0"], check=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"could not install rlcard into {RLCARD_VENV}: {exc}"
    return None


def rlcard_rate(players: int, seconds: float, repeats: int) -> dict[str, float]:
    out = subprocess.run(
        [str(RLCARD_PY), "-c", RLCARD_SCRIPT, str(players), str(seconds), str(repeats)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def referee_rate(ruleset: str, players: int, seconds: float, repeats: int) -> dict[str, float]:
    """Median steps/s (and rounds/s) of random-legal full-mode games, whole games to 500 points."""
    names = [f"p{i}" for i in range(players)]
    rates, round_rates = [], []
    seed = 0
    for _ in range(repeats):
        steps = rounds = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            seed += 1
            ref = Referee()
            ref.handle({"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed})
            bot = Bot("random", seed=seed, uno_rate=0.0)
            handle, next_command = ref.handle, bot.next_command
            while True:
                command = next_command(ref)
                if command is None:
                    break
                handle(command)
                steps += 1
            rounds += ref.state.round
        elapsed = time.process_time() - start
        rates.append(steps / elapsed)
        round_rates.append(rounds / elapsed)
    return {"steps": statistics.median(rates), "rounds": statistics.median(round_rates)}


def breakdown(ruleset: str, players: int, games: int) -> None:
    """Print the bytecodes executed per step by the bot and by ``Referee.handle``, by command type."""
    counted = [0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            counted[0] += 1
        return tracer

    def traced(call: Any, *args: Any) -> tuple[Any, int]:
        counted[0] = 0
        sys.settrace(tracer)
        try:
            result = call(*args)
        finally:
            sys.settrace(None)
        return result, counted[0]

    names = [f"p{i}" for i in range(players)]
    ops: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    bot_ops = steps = 0
    for seed in range(1, games + 1):
        ref = Referee()
        ref.handle({"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed})
        bot = Bot("random", seed=seed, uno_rate=0.0)
        while True:
            command, cost = traced(bot.next_command, ref)
            bot_ops += cost
            if command is None:
                break
            _, cost = traced(ref.handle, command)
            kind = _step_kind(command)
            ops[kind] += cost
            seen[kind] += 1
            steps += 1
    total = sum(ops.values())
    per_step = (total + bot_ops) / steps
    print(f"{ruleset}, {players} players, {games} games, {steps} steps: {per_step:.0f} bytecodes per step")
    print(f"  bot (choosing the move)   {bot_ops / steps:6.0f}")
    print(f"  Referee.handle            {total / steps:6.0f}, by command type:")
    for kind, cost in ops.most_common():
        share = f"{seen[kind] / steps:6.1%} of steps"
        print(f"    {kind:<22} {share}  {cost / seen[kind]:6.0f} each  {cost / steps:5.0f} per step")


def _step_kind(command: dict[str, Any]) -> str:
    if command["type"] != "play":
        return str(command["type"])
    color, face = CARD_INFO[command["card"]]
    if color is None:
        return "play wild"
    return "play number" if face.isdigit() else "play action"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter timed runs")
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard baseline")
    parser.add_argument("--only", choices=("classic", "mario-kart", "attack", "attack-original"), action="append")
    parser.add_argument("--breakdown", action="store_true", help="bytecodes per step by command type (no timing)")
    args = parser.parse_args()
    if args.breakdown:
        for ruleset in args.only or ("classic",):
            for players in (2, 4):
                breakdown(ruleset, players, 5 if args.quick else 20)
        return 0
    seconds, repeats = (0.5, 3) if args.quick else (1.5, 5)
    rlcard_ok = False
    if args.no_rlcard:
        print("RLCard column skipped (--no-rlcard)")
    else:
        problem = ensure_rlcard()
        rlcard_ok = problem is None
        if problem:
            print(f"RLCard column skipped: {problem}")

    # Each configuration alternates one timed run of ours with one of RLCard's (classic rows), so both sides see
    # the same machine load; the medians and their ratio are reported.
    baseline: dict[int, dict[str, float]] = {}
    print(f"{'ruleset':<16} {'players':>7} {'steps/s':>10} {'rounds/s':>9} {'RLCard steps/s':>15} {'ratio':>6}")
    for ruleset in args.only or ("classic", "mario-kart", "attack", "attack-original"):
        for players in (2, 4):
            ours_runs, base_runs = [], []
            for _ in range(repeats):
                ours_runs.append(referee_rate(ruleset, players, seconds, 1))
                if rlcard_ok and ruleset == "classic":
                    base_runs.append(rlcard_rate(players, seconds, 1))
            ours = {k: statistics.median(r[k] for r in ours_runs) for k in ("steps", "rounds")}
            base = {k: statistics.median(r[k] for r in base_runs) for k in ("steps", "games")} if base_runs else None
            if base:
                baseline[players] = base
            base_text = f"{base['steps']:>15,.0f}" if base else f"{'':>15}"
            ratio = f"{ours['steps'] / base['steps']:>5.2f}x" if base else ""
            print(f"{ruleset:<16} {players:>7} {ours['steps']:>10,.0f} {ours['rounds']:>9,.0f} {base_text} {ratio:>6}")
    if baseline:
        summary = ", ".join(
            f"{p} players {b['steps']:,.0f} steps/s, {b['games']:,.0f} games/s" for p, b in baseline.items()
        )
        print(f"RLCard 1.2.0 UNO (game API, random legal moves, one game = one round): {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
