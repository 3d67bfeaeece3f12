#!/usr/bin/env python3
"""Referee throughput: steps/s of full-mode games between random-legal bots, per rule set, side by side with
RLCard's UNO game (classic rules) measured in the same run.

    .venv/bin/python bench/referee.py              # all rule sets, 2 and 4 players, RLCard column
    .venv/bin/python bench/referee.py --quick      # shorter runs
    .venv/bin/python bench/referee.py --no-rlcard  # skip the RLCard baseline

A *step* is one accepted command (play, draw, pass, hit, choose, accept/challenge, next_round) — for RLCard one
``game.step(action)``. Both sides pick uniformly among legal moves with a seeded RNG and play whole games; each
figure is the median of several timed runs of CPU time (``time.process_time``: this machine is shared and
noisy), and our runs alternate with RLCard's so both see the same load. RLCard is installed into the
throwaway environment ``bench/.venv-rlcard`` on first use; if that fails the column is skipped with a message.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "controller"))

from unolauncher.rules.bots import Bot  # noqa: E402
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
    return json.loads(out.stdout)  # type: ignore[no-any-return]


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter timed runs")
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard baseline")
    parser.add_argument("--only", choices=("classic", "mario-kart", "attack", "attack-original"), action="append")
    args = parser.parse_args()
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
