#!/usr/bin/env python3
"""Referee throughput: steps/s of full-mode games between random-legal bots, per rule set, side by side with
RLCard's UNO game (classic rules) measured in the same run.

    .venv/bin/python bench/referee.py              # all rule sets, 2 and 4 players, RLCard column
    .venv/bin/python bench/referee.py --quick      # shorter runs
    .venv/bin/python bench/referee.py --no-rlcard  # skip the RLCard baseline

    .venv/bin/python bench/referee.py --breakdown  # where the time goes: bytecodes per step, by command type
    .venv/bin/python bench/referee.py --only classic --floor   # also time the lower bound (see floor_steps)
    .venv/bin/python bench/referee.py --count 10 --side ours --players 2   # fixed work, for valgrind (below)
    .venv/bin/python bench/referee.py --instructions   # machine instructions per step under callgrind (below)
    .venv/bin/python bench/referee.py --split          # time per step: Referee.handle alone against bot + loop

A *step* on our side is one command accepted by ``Referee.handle`` (play, draw, pass, hit, choose, accept or
challenge, next_round), chosen by ``Bot("random")`` — the bot ``unolauncher simulate`` uses, here without UNO
calls (``uno_rate=0``) since RLCard has none — and fully validated like any external command. A step on RLCard's
side is one ``game.step(action)`` of its UNO game API with ``rng.choice(game.get_legal_actions())``. Both sides pick
uniformly among legal moves with a seeded RNG and play whole games; each figure is the median of several timed
runs of CPU time (``time.process_time``: this machine is shared and noisy), and our runs alternate with RLCard's so
both see the same load. RLCard is installed into the throwaway environment ``bench/.venv-rlcard`` on first use; if
that fails the column is skipped with a message.

``--floor`` adds the *floor*: :func:`floor_steps`, the least work any referee honouring the same contract can do
per step, written as one hand-inlined loop (see its docstring), and :func:`bare_steps`, the same games without the
contract (no command or event dicts, no checks, no history), both timed alternately with the others.

``--count GAMES --side ours|replay|floor|bare|rlcard`` plays a fixed number of games untimed and prints the steps,
so that machine instructions per step can be counted under ``valgrind --tool=callgrind`` (load-independent; subtract a
``--count 0`` run for start-up). The ``rlcard`` side must run under ``bench/.venv-rlcard/bin/python``.
``--instructions [GAMES]`` does that for ours, ``Referee.handle`` alone (``--side replay``: the games, then the same
commands again without the bot), the floor and RLCard, 2 and 4 players, and prints instructions per step and the
ratios: the same figures on a busy machine as on an idle one (``PYTHONHASHSEED=0``, so string hashing, and
with it set and dict layout, is the same in every run).

``--breakdown`` counts the Python bytecodes executed per step (``sys.settrace`` opcode events), split into the bot
and ``Referee.handle`` and by command type. Unlike CPU time it does not depend on the machine's load, so it shows
where the time goes and whether a change helped, even on a busy machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import re
import shutil
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
from unolauncher.rules.stock import shuffled_deck  # noqa: E402

RLCARD_VENV = ROOT / "bench" / ".venv-rlcard"
RLCARD_PY = RLCARD_VENV / "bin" / "python"
RLCARD_SCRIPT = r"""
import json, random, sys, time
import numpy as np
from rlcard.games.uno.game import UnoGame
players, seconds = int(sys.argv[1]), float(sys.argv[2])
game = UnoGame(num_players=players)
game.np_random = np.random.RandomState(0)
rng = random.Random(0)
steps = games = 0
start = time.process_time()
while time.process_time() - start < seconds:
    game.init_game()
    while not game.is_over():
        game.step(rng.choice(game.get_legal_actions()))
        steps += 1
    games += 1
elapsed = time.process_time() - start
print(json.dumps({"steps": steps / elapsed, "games": games / elapsed}))
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


def rlcard_rate(players: int, seconds: float) -> dict[str, float]:
    """Steps/s and games/s of RLCard's UNO game over ``seconds`` of CPU time (its start-up is outside)."""
    out = subprocess.run(
        [str(RLCARD_PY), "-c", RLCARD_SCRIPT, str(players), str(seconds)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def play_game(ruleset: str, names: list[str], seed: int) -> tuple[int, int]:
    """One whole full-mode game to 500 points between random-legal bots; returns (steps, rounds)."""
    ref = Referee()
    ref.handle({"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed})
    bot = Bot("random", seed=seed, uno_rate=0.0)
    handle, next_command = ref.handle, bot.next_command
    steps = 0
    while (command := next_command(ref)) is not None:
        handle(command)
        steps += 1
    return steps, ref.state.round


def referee_rate(ruleset: str, players: int, seconds: float) -> dict[str, float]:
    """Steps/s and rounds/s of :func:`play_game` over ``seconds`` of CPU time (seeds 1, 2, ...)."""
    names = [f"p{i}" for i in range(players)]
    steps = rounds = 0
    seed = 1
    start = time.process_time()
    while time.process_time() - start < seconds:
        game_steps, game_rounds = play_game(ruleset, names, seed)
        steps, rounds, seed = steps + game_steps, rounds + game_rounds, seed + 1
    elapsed = time.process_time() - start
    return {"steps": steps / elapsed, "rounds": rounds / elapsed}


def recorded_games(players: int, games: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The classic games :func:`play_game` plays (seeds 1..games): each game's ``new_game`` and the bot's commands."""
    names = [f"p{i}" for i in range(players)]
    games_played = []
    for seed in range(1, games + 1):
        start = {"type": "new_game", "ruleset": "classic", "players": names, "seed": seed}
        ref = Referee()
        ref.handle(dict(start))
        bot = Bot("random", seed=seed, uno_rate=0.0)
        commands = []
        while (command := bot.next_command(ref)) is not None:
            ref.handle(command)
            commands.append(command)
        games_played.append((start, commands))
    return games_played


def replay(games_played: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> int:
    """The recorded games again, ``Referee.handle`` alone (no bot); returns the steps."""
    steps = 0
    for start, commands in games_played:
        ref = Referee()
        ref.handle(dict(start))
        handle = ref.handle
        for command in commands:
            handle(command)
        steps += len(commands)
    return steps


def split(players: int, games: int, repeats: int) -> None:
    """CPU time per step of whole games (bot + referee) and of the referee alone (the same commands replayed),
    alternated, medians: how a step's time divides between ``Bot.next_command`` (with the loop) and ``handle``."""
    games_played = recorded_games(players, games)
    names = [f"p{i}" for i in range(players)]
    whole, alone = [], []
    for _ in range(repeats):
        start = time.process_time()
        steps = sum(play_game("classic", names, seed)[0] for seed in range(1, games + 1))
        whole.append((time.process_time() - start) / steps * 1e6)
        start = time.process_time()
        steps = replay(games_played)
        alone.append((time.process_time() - start) / steps * 1e6)
    step, referee = statistics.median(whole), statistics.median(alone)
    print(
        f"classic, {players} players, {games} games x {repeats}: {step:.3f} us per step, Referee.handle alone "
        f"{referee:.3f} us ({referee / step:.0%}), bot and loop {step - referee:.3f} us"
    )


# -- the floor ---------------------------------------------------------------------------------------------------
_COLORS = ("red", "yellow", "green", "blue")
_NUMBER_DECK = [f"{color} {n}" for color in _COLORS for n in ("0", *[str(i) for i in range(1, 10)] * 2)]
_NUMBER_INFO = {card: (card.split(" ")[0], card.split(" ")[1]) for card in _NUMBER_DECK}
_NUMBER_MATCHING = {
    (color, top): frozenset(c for c, (c_color, face) in _NUMBER_INFO.items() if c_color == color or face == top_face)
    for color in _COLORS
    for top, (_, top_face) in _NUMBER_INFO.items()
}


def _deal_number_round(rng: random.Random, players: int) -> tuple[list[list[str]], list[str], list[str]]:
    """A round of the floor and bare games: the number deck shuffled as the referee shuffles (its own
    ``shuffled_deck``: the same Fisher-Yates draws), 7 cards each, one turned up; returns (hands, discard, stock)."""
    deck = shuffled_deck(rng, _NUMBER_DECK)
    hands = [deck[len(deck) - 7 * (p + 1) : len(deck) - 7 * p] for p in range(players)]
    del deck[len(deck) - 7 * players :]
    return hands, [deck.pop()], deck


def floor_steps(players: int, games: int, seed: int = 0) -> int:
    """A lower bound on the cost of a step under our contract: the same kind of game with the least work. Returns
    the steps played (``games`` games of 8 rounds).

    Each step does what any referee must do for the cheapest commands of PROTOCOL.md — the bot builds a command
    dict from the state (the distinct playable cards, sorted, picked uniformly); the referee reads its fields,
    checks the player's turn, that the card is held and matches (or that a draw/pass is allowed), moves the card,
    emits event dicts and keeps a copy of the command — and nothing more: only number cards (the classic deck's 76),
    no action cards, Wilds, challenges, UNO exposure, scoring, phases or pending/owed checks, no error handling,
    all in one function (no calls). Real steps include all of those, so the referee cannot be cheaper than this
    unless the contract changes (no command or event dicts, or no history). It shuffles and deals like the referee
    (the same Fisher-Yates draws), but its rounds are shorter (about 32 steps, against about 57 in classic), so
    it pays a little more for shuffles per step than a real game.
    """
    names = [f"p{i}" for i in range(players)]
    seats = {name: i for i, name in enumerate(names)}
    info, matching_of = _NUMBER_INFO, _NUMBER_MATCHING
    steps = 0
    for game in range(games):
        rng, bot_rng = random.Random(seed + game), random.Random(seed + game)
        history: list[dict[str, Any]] = []
        for _ in range(8):
            hands, discard, stock = _deal_number_round(rng, players)
            color: str = info[discard[-1]][0]
            current, drew, drawn = 0, False, None
            while True:
                # the bot
                hand = hands[current]
                playable = [drawn] if drawn is not None else sorted(matching_of[color, discard[-1]].intersection(hand))
                if playable:
                    pick = playable[int(bot_rng.random() * len(playable))]
                    cmd = {"type": "play", "player": names[current], "card": pick}
                else:
                    cmd = {"type": "pass" if drew else "draw", "player": names[current]}
                # the referee
                kind = cmd["type"]
                name = cmd.get("player")
                seat = seats.get(name, -1) if type(name) is str else -1
                if seat != current:
                    raise ValueError("not your turn")
                events: list[dict[str, Any]]
                if kind == "play":
                    card = cmd.get("card")
                    card_info = info.get(card) if type(card) is str else None
                    hand = hands[seat]
                    if card_info is None or card not in hand or (drawn is not None and card != drawn):
                        raise ValueError("bad card")
                    if card_info[0] != color and card_info[1] != info[discard[-1]][1]:
                        raise ValueError("card does not match")
                    hand.remove(card)
                    discard.append(card)
                    color, drew, drawn = card_info[0], False, None
                    if not hand:
                        events = [
                            {"type": "played", "player": name, "card": card, "color": color},
                            {"type": "went_out", "player": name},
                        ]
                        history.append(dict(cmd))
                        steps += 1
                        break
                    current = (seat + 1) % players
                    events = [
                        {"type": "played", "player": name, "card": card, "color": color},
                        {"type": "turn", "player": names[current]},
                    ]
                elif kind == "draw":
                    if drew:
                        raise ValueError("already drew")
                    if not stock:
                        stock, discard = discard[:-1], discard[-1:]
                        rng.shuffle(stock)  # rare (a reshuffle of the discard pile)
                    card = stock.pop()
                    hands[seat].append(card)
                    drew = True
                    events = [
                        {"type": "dispense", "player": name, "count": 1},
                        {"type": "drew", "player": name, "count": 1, "cards": [card]},
                    ]
                    card_color, face = info[card]
                    if card_color == color or face == info[discard[-1]][1]:
                        drawn = card
                    else:
                        current, drew = (seat + 1) % players, False
                        events.append({"type": "turn", "player": names[current]})
                else:
                    if not drew:
                        raise ValueError("draw first")
                    current, drew, drawn = (seat + 1) % players, False, None
                    events = [{"type": "passed", "player": name}, {"type": "turn", "player": names[current]}]
                history.append(dict(cmd))
                steps += 1
    return steps


def bare_steps(players: int, games: int, seed: int = 0) -> int:
    """:func:`floor_steps` without the contract: the same games (the same draws and moves), but the bot's move is
    just the card (or nothing, for a draw or pass) and the game applies it without reading a command dict,
    checking it, emitting events or keeping history — what a simulation-only API in the style of RLCard's
    ``game.step`` could be reduced to. Only a reference point: it shows what the contract itself costs."""
    info, matching_of = _NUMBER_INFO, _NUMBER_MATCHING
    steps = 0
    for game in range(games):
        rng, bot_rng = random.Random(seed + game), random.Random(seed + game)
        for _ in range(8):
            hands, discard, stock = _deal_number_round(rng, players)
            color: str = info[discard[-1]][0]
            current, drew, drawn = 0, False, None
            while True:
                hand = hands[current]
                playable = [drawn] if drawn is not None else sorted(matching_of[color, discard[-1]].intersection(hand))
                steps += 1
                if playable:
                    card = playable[int(bot_rng.random() * len(playable))]
                    hand.remove(card)
                    discard.append(card)
                    color, drew, drawn = info[card][0], False, None
                    if not hand:
                        break
                    current = (current + 1) % players
                elif not drew:
                    if not stock:
                        stock, discard = discard[:-1], discard[-1:]
                        rng.shuffle(stock)
                    card = stock.pop()
                    hand.append(card)
                    card_color, face = info[card]
                    if card_color == color or face == info[discard[-1]][1]:
                        drew, drawn = True, card
                    else:
                        current = (current + 1) % players
                else:
                    current, drew, drawn = (current + 1) % players, False, None
    return steps


def floor_rate(players: int, seconds: float, play: Any = floor_steps) -> float:
    """Steps/s of :func:`floor_steps` (or :func:`bare_steps`) over ``seconds`` of CPU time."""
    steps, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        steps += play(players, 1, seed)
        seed += 1
    return steps / (time.process_time() - start)


def count_steps(side: str, players: int, games: int) -> int:
    """Play ``games`` games untimed (for instruction counting under valgrind); returns the steps."""
    if side == "floor":
        return floor_steps(players, games, 1)
    if side == "bare":
        return bare_steps(players, games, 1)
    if side == "replay":  # the games, then Referee.handle alone on the same commands: less --side ours, the referee
        return replay(recorded_games(players, games))
    if side == "rlcard":
        # Only importable under bench/.venv-rlcard/bin/python (not a dependency of the project).
        numpy: Any = importlib.import_module("numpy")
        game: Any = importlib.import_module("rlcard.games.uno.game").UnoGame(num_players=players)
        game.np_random = numpy.random.RandomState(0)
        rng = random.Random(0)
        steps = 0
        for _ in range(games):
            game.init_game()
            while not game.is_over():
                game.step(rng.choice(game.get_legal_actions()))
                steps += 1
        return steps
    names = [f"p{i}" for i in range(players)]
    return sum(play_game("classic", names, seed)[0] for seed in range(1, games + 1))


def instructions_per_step(side: str, players: int, games: int) -> float:
    """Machine instructions per step of ``--count games --side side`` under callgrind, less a ``--count 0`` run."""
    python = str(RLCARD_PY) if side == "rlcard" else sys.executable

    def counted(count: int) -> tuple[int, int]:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                python,
                __file__,
                "--count",
                str(count),
                "--side",
                side,
                "--players",
                str(players),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=1800,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        found = re.search(r"Collected : (\d+)", out.stderr)
        if found is None:
            raise RuntimeError(f"no instruction count from callgrind: {out.stderr[-300:]}")
        return int(found.group(1)), int(out.stdout.split()[-1])

    start_up, _ = counted(0)
    total, steps = counted(games)
    return (total - start_up) / steps


def instructions(games: int) -> None:
    """Print instructions per step of ours, the floor and RLCard (classic), 2 and 4 players, and the ratios."""
    if shutil.which("valgrind") is None:
        print("--instructions needs valgrind (apt-get install valgrind)")
        return
    sides = ["ours", "replay", "floor"] + (["rlcard"] if ensure_rlcard() is None else [])
    print(f"instructions per step under callgrind, {games} games per figure, classic; handle: Referee.handle alone")
    print(
        f"{'players':>7} {'ours':>10} {'handle':>10} {'floor':>10}"
        + (f" {'rlcard':>10}" if "rlcard" in sides else "")
        + "  ours/floor  RLCard/ours  RLCard/floor"
    )
    for players in (2, 4):
        cost = {side: instructions_per_step(side, players, games) for side in sides}
        cost["replay"] -= cost["ours"]  # the replay run plays the games first: what is left is handle alone
        ratios = f"  {cost['ours'] / cost['floor']:>9.2f}x"
        if "rlcard" in cost:
            ratios += f"  {cost['rlcard'] / cost['ours']:>10.2f}x  {cost['rlcard'] / cost['floor']:>11.2f}x"
        print(f"{players:>7} " + " ".join(f"{cost[side]:>10,.0f}" for side in sides) + ratios)


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
    parser.add_argument(
        "--floor", action="store_true", help="also time the floor and the bare game (classic rows): see floor_steps"
    )
    parser.add_argument("--count", type=int, metavar="GAMES", help="play GAMES games untimed, print the steps")
    sides = ("ours", "replay", "floor", "bare", "rlcard")
    parser.add_argument("--side", choices=sides, default="ours", help="what --count plays")
    parser.add_argument("--players", type=int, default=2, help="players for --count")
    parser.add_argument(
        "--instructions", type=int, nargs="?", const=40, metavar="GAMES", help="instructions per step (callgrind)"
    )
    parser.add_argument("--split", action="store_true", help="time per step: referee alone, bot and loop")
    args = parser.parse_args()
    if args.count is not None:
        print(count_steps(args.side, args.players, args.count))
        return 0
    if args.instructions is not None:
        instructions(args.instructions)
        return 0
    if args.split:
        for players in (2, 4):
            split(players, 20 if args.quick else 40, 3 if args.quick else 7)
        return 0
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
    floor_head = f" {'floor steps/s':>14} {'ratio':>6} {'bare steps/s':>13} {'ratio':>6}" if args.floor else ""
    print(
        f"{'ruleset':<16} {'players':>7} {'steps/s':>10} {'rounds/s':>9} {'RLCard steps/s':>15} {'ratio':>6}"
        + floor_head
    )
    for ruleset in args.only or ("classic", "mario-kart", "attack", "attack-original"):
        for players in (2, 4):
            ours_runs, base_runs, floor_runs, bare_runs = [], [], [], []
            for _ in range(repeats):
                ours_runs.append(referee_rate(ruleset, players, seconds))
                if rlcard_ok and ruleset == "classic":
                    base_runs.append(rlcard_rate(players, seconds))
                if args.floor and ruleset == "classic":
                    floor_runs.append(floor_rate(players, seconds))
                    bare_runs.append(floor_rate(players, seconds, bare_steps))
            ours = {k: statistics.median(r[k] for r in ours_runs) for k in ("steps", "rounds")}
            base = {k: statistics.median(r[k] for r in base_runs) for k in ("steps", "games")} if base_runs else None
            if base:
                baseline[players] = base
            base_text = f"{base['steps']:>15,.0f}" if base else f"{'':>15}"
            ratio = f"{ours['steps'] / base['steps']:>5.2f}x" if base else ""
            floor_text = ""
            if floor_runs:
                floor, bare = statistics.median(floor_runs), statistics.median(bare_runs)
                floor_ratio = f"{floor / base['steps']:>5.2f}x" if base else ""
                bare_ratio = f"{bare / base['steps']:>5.2f}x" if base else ""
                floor_text = f" {floor:>14,.0f} {floor_ratio:>6} {bare:>13,.0f} {bare_ratio:>6}"
            print(
                f"{ruleset:<16} {players:>7} {ours['steps']:>10,.0f} {ours['rounds']:>9,.0f} {base_text} {ratio:>6}"
                + floor_text
            )
    if baseline:
        summary = ", ".join(
            f"{p} players {b['steps']:,.0f} steps/s, {b['games']:,.0f} games/s" for p, b in baseline.items()
        )
        print(f"RLCard 1.2.0 UNO (game API, random legal moves, one game = one round): {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
