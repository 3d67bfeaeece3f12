"""``unolauncher simulate``: play bot games in ``full`` mode and print statistics.

Example::

    $ unolauncher simulate --ruleset attack --players 4 --games 1000 --seed 7
    $ unolauncher simulate --ruleset classic --players 2 --games 200 --strategy greedy --json

Game *i* uses seed ``S + i`` for the referee and the bots, so a run is reproducible (only the timing varies).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from unolauncher.rules.bots import STRATEGIES, Bot
from unolauncher.rules.cards import RULESETS
from unolauncher.rules.referee import Referee

MAX_STEPS_PER_GAME = 200_000


@dataclass
class Stats:
    """Totals over many games."""

    games: int = 0
    unfinished: int = 0
    rounds: int = 0
    steps: int = 0
    hits: int = 0
    hit_cards: int = 0
    draws: int = 0
    wins: dict[str, int] = field(default_factory=dict)

    def summary(self, seconds: float, seats: list[str]) -> dict[str, Any]:
        finished = max(1, self.games - self.unfinished)
        return {
            "games": self.games,
            "unfinished": self.unfinished,
            "seconds": round(seconds, 3),
            "games_per_s": round(self.games / seconds, 1) if seconds > 0 else None,
            "steps_per_s": round(self.steps / seconds) if seconds > 0 else None,
            "rounds_per_game": round(self.rounds / max(1, self.games), 3),
            "hits_per_round": round(self.hits / max(1, self.rounds), 3),
            "cards_per_hit": round(self.hit_cards / max(1, self.hits), 3),
            "draws_per_round": round(self.draws / max(1, self.rounds), 3),
            # unrounded, so the rates add up to 1 (rounding each to 4 places did not, e.g. 6 games won 1:1:1:3)
            "win_rate": {seat: self.wins.get(seat, 0) / finished for seat in seats},
        }


def play_one(ruleset: str, seats: list[str], seed: int, strategy: str, options: dict[str, Any], stats: Stats) -> None:
    ref = Referee()
    events = ref.handle({"type": "new_game", "ruleset": ruleset, "players": seats, "seed": seed, "options": options})
    if events[0]["type"] == "rejected":
        raise ValueError(events[0]["message"])
    bot = Bot(strategy, seed=seed)
    winner = None
    for _ in range(MAX_STEPS_PER_GAME):
        command = bot.next_command(ref) or bot.catch(ref)
        if command is None:
            break
        batch = ref.handle(command)
        catch = bot.catch(ref)
        if catch is not None:
            batch = batch + ref.handle(catch)
        stats.steps += 1
        for event in batch:
            kind = event["type"]
            if kind == "hit":
                stats.hits += 1
                stats.hit_cards += event["cards"]
            elif kind == "drew":
                stats.draws += 1
            elif kind == "round_ended":
                stats.rounds += 1
            elif kind == "game_over":
                winner = event["winner"]
    stats.games += 1
    if winner is None:
        stats.unfinished += 1
    else:
        stats.wins[winner] = stats.wins.get(winner, 0) + 1


def _progress(out: TextIO, done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // total
    rate = done / max(1e-9, time.perf_counter() - started)
    out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games  {rate:,.0f} games/s")
    if done == total:
        out.write("\n")
    out.flush()


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", choices=sorted(RULESETS), default="attack")
    parser.add_argument("--players", type=int, default=4, help="2 to 10")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strategy", choices=STRATEGIES, default="random", help="bot strategy for every seat")
    parser.add_argument("--target-score", type=int, default=500)
    parser.add_argument("--preset", default="classic", help="ejection model preset (attack rule sets)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 10:
        print("unolauncher simulate: --players must be from 2 to 10.", file=sys.stderr)
        return 2
    if args.games < 1:
        print("unolauncher simulate: --games must be at least 1.", file=sys.stderr)
        return 2
    seats = [f"seat{i + 1}" for i in range(args.players)]
    options: dict[str, Any] = {"target_score": args.target_score, "ejection_preset": args.preset}
    probe = Referee().handle(
        {"type": "new_game", "ruleset": args.ruleset, "players": seats, "seed": args.seed, "options": options}
    )
    if probe[0]["type"] == "rejected":
        print(f"unolauncher simulate: {probe[0]['message']}", file=sys.stderr)
        return 2
    stats = Stats()
    started = time.perf_counter()
    step = max(1, args.games // 100)
    for i in range(args.games):
        play_one(args.ruleset, seats, args.seed + i, args.strategy, options, stats)
        if not args.no_progress and ((i + 1) % step == 0 or i + 1 == args.games):
            _progress(sys.stderr, i + 1, args.games, started)
    summary = stats.summary(time.perf_counter() - started, seats)
    header = {"ruleset": args.ruleset, "players": args.players, "seed": args.seed, "strategy": args.strategy}
    if args.json:
        print(json.dumps({**header, **summary}, sort_keys=True))
        return 0
    print(f"{args.ruleset}, {args.players} players, {summary['games']} games, {args.strategy} bots, seed {args.seed}")
    print(f"  games/s          {summary['games_per_s']}")
    print(f"  rounds per game  {summary['rounds_per_game']}")
    if RULESETS[args.ruleset].attack:
        print(f"  hits per round   {summary['hits_per_round']}")
        print(f"  cards per hit    {summary['cards_per_hit']}")
    else:
        print(f"  draws per round  {summary['draws_per_round']}")
    rates = "  ".join(f"{seat} {rate * 100:.1f}%" for seat, rate in summary["win_rate"].items())
    print(f"  win rate by seat {rates}")
    if summary["unfinished"]:
        print(f"  unfinished games {summary['unfinished']} (stopped after {MAX_STEPS_PER_GAME} steps)")
    return 0
