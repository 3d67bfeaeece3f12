"""``unolauncher simulate``: play bot games in ``full`` mode and print statistics.

Example::

    $ unolauncher simulate --ruleset attack --players 4 --games 1000 --seed 7
    $ unolauncher simulate --ruleset classic --players 2 --games 200 --strategy greedy --json
    $ unolauncher simulate --games 10000 --jobs 2
    $ unolauncher simulate --ruleset classic --option seven_zero=true --option jump_in=true

Game *i* uses seed ``S + i`` for the referee and the bots, so a run is reproducible (only the timing varies), and
with ``--jobs N`` the games are played by N processes in chunks: every game keeps its seed and the totals are sums,
so the summary is the same whatever N and however the chunks were scheduled. The progress bar is drawn only when
stderr is a terminal (a log file or a pipe gets the summary alone).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
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

    def add(self, other: Stats) -> None:
        """Add another run's totals (a chunk played elsewhere): every figure is a sum, so the order does not matter."""
        self.games += other.games
        self.unfinished += other.unfinished
        self.rounds += other.rounds
        self.steps += other.steps
        self.hits += other.hits
        self.hit_cards += other.hit_cards
        self.draws += other.draws
        for seat, won in other.wins.items():
            self.wins[seat] = self.wins.get(seat, 0) + won

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


def play_one(
    ruleset: str, seats: list[str], seed: int, *, strategy: str, options: dict[str, Any], stats: Stats
) -> None:
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


@dataclass(frozen=True)
class Chunk:
    """Games ``first`` to ``first + count - 1`` of a run: game *i* is played with seed ``seed + i``."""

    ruleset: str
    seats: list[str]
    seed: int
    strategy: str
    options: dict[str, Any]
    first: int
    count: int


def play_chunk(chunk: Chunk) -> Stats:
    """Play one chunk (in this process or in a worker) and return its totals."""
    stats = Stats()
    for i in range(chunk.first, chunk.first + chunk.count):
        play_one(
            chunk.ruleset, chunk.seats, chunk.seed + i, strategy=chunk.strategy, options=chunk.options, stats=stats
        )
    return stats


def chunks(template: Chunk, games: int, size: int) -> Iterator[Chunk]:
    for first in range(0, games, size):
        yield replace(template, first=first, count=min(size, games - first))


def play_all(template: Chunk, games: int, jobs: int, on_done: Any) -> Stats:
    """All ``games`` in chunks, on ``jobs`` processes (1: this one); ``on_done(games done)`` after each chunk.

    Chunks are small enough (about 1% of the run, at least one game) for the progress bar and for the jobs to
    finish together, large enough that sending a chunk and its totals between processes costs little."""
    size = max(1, games // 100)
    total = Stats()
    if jobs == 1:
        for chunk in chunks(template, games, size):
            total.add(play_chunk(chunk))
            on_done(total.games)
        return total
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for future in as_completed([pool.submit(play_chunk, chunk) for chunk in chunks(template, games, size)]):
            total.add(future.result())
            on_done(total.games)
    return total


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
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a game option, e.g. --option stacking=true (repeatable; any option of docs/rules.md)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (same summary whatever the number)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar on stderr (there is none when it is not a terminal)"
    )


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 10:
        print("unolauncher simulate: --players must be from 2 to 10.", file=sys.stderr)
        return 2
    if args.games < 1:
        print("unolauncher simulate: --games must be at least 1.", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("unolauncher simulate: --jobs must be at least 1.", file=sys.stderr)
        return 2
    seats = [f"seat{i + 1}" for i in range(args.players)]
    options: dict[str, Any] = {"target_score": args.target_score, "ejection_preset": args.preset}
    for item in args.option:
        name, _, value = item.partition("=")
        try:
            options[name] = json.loads(value)
        except ValueError:
            print(f"unolauncher simulate: --option {item!r} is not NAME=JSON (e.g. stacking=true).", file=sys.stderr)
            return 2
    probe = Referee().handle(
        {"type": "new_game", "ruleset": args.ruleset, "players": seats, "seed": args.seed, "options": options}
    )
    if probe[0]["type"] == "rejected":
        print(f"unolauncher simulate: {probe[0]['message']}", file=sys.stderr)
        return 2
    # Carriage-return frames only on a terminal: in a log file or a pipe they pile up as one long line.
    show_progress = not args.no_progress and sys.stderr.isatty()
    started = time.perf_counter()

    def on_done(done: int) -> None:
        if show_progress:
            _progress(sys.stderr, done, args.games, started)

    template = Chunk(args.ruleset, seats, args.seed, args.strategy, options, 0, 0)
    stats = play_all(template, args.games, args.jobs, on_done)
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
