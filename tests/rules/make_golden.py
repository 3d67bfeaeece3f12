"""Regenerate the replay golden files: ``.venv/bin/python -m tests.rules.make_golden`` from the repository root;
``--outputs`` replays the existing inputs again and rewrites only the ``.out`` files (an intended change of the
events, such as a new field, with the same games).

Each game is played by bots (full mode) to its end with a low target score, with a few bad lines mixed in, and
saved as ``golden/<name>.jsonl`` (input) plus ``golden/<name>.out`` (the expected ``replay --state`` output).
Only regenerate when a rule change is intended, and review the diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from unolauncher.cli.replay import replay_lines
from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee

GOLDEN = Path(__file__).resolve().parent / "golden"

GAMES: dict[str, dict[str, Any]] = {
    "attack-3p": {"ruleset": "attack", "players": ["ann", "bob", "cy"], "seed": 101, "strategy": "random"},
    "attack-original-4p": {
        "ruleset": "attack-original",
        "players": ["ann", "bob", "cy", "dee"],
        "seed": 202,
        "strategy": "greedy",
    },
    "mario-kart-3p": {"ruleset": "mario-kart", "players": ["ann", "bob", "cy"], "seed": 303, "strategy": "greedy"},
    "classic-2p": {"ruleset": "classic", "players": ["ann", "bob"], "seed": 404, "strategy": "greedy"},
    # the stacking house rule (HR-ST): stacked Draw Twos and Wild Draw Fours, stacked Hit 2s
    "classic-stacking-3p": {"ruleset": "classic", "players": ["ann", "bob", "cy"], "seed": 505, "strategy": "random",
                            "options": {"stacking": True, "stacking_wd4": True}},
    "attack-stacking-3p": {"ruleset": "attack", "players": ["ann", "bob", "cy"], "seed": 606, "strategy": "random",
                           "options": {"stacking": True}},
}  # fmt: skip
# A table-mode UNO Attack game as the daemon would journal it: hits carry the launcher's count, each after the
# launcher's own `pressed`; secrets drawn for each commitment; a phone's entropy; a refill; an undo that reopens a
# round whose secret was revealed (a fresh commitment); one hit without a count (the model decides: a press too).
SECRETS = [f"{n:x}" * 64 for n in (10, 11, 12)]
TABLE_ATTACK = [
    {
        "type": "new_game",
        "ruleset": "attack",
        "players": ["ann", "bob", "cy"],
        "seed": 9,
        "secret": SECRETS[0],
        "mode": "table",
        "options": {"target_score": 200},
        "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 3, "bob": 7, "cy": 7}},
    },
    {"type": "entropy", "entropy": "0123456789abcdef0123456789abcdef"},
    {"type": "play", "player": "ann", "card": "red hit-2", "id": 1},
    {"type": "pressed", "player": "bob"},
    {"type": "hit", "cards": 0},
    {"type": "pressed", "player": "bob"},
    {"type": "lid_opened"},
    {"type": "hit", "cards": 3},
    {"type": "play", "player": "cy", "card": "red 9"},
    {"type": "uno", "player": "ann"},
    {"type": "play", "player": "ann", "card": "red skip"},
    {"type": "pass", "player": "ann"},
    {"type": "pressed", "player": "cy"},
    {"type": "hit", "player": "cy", "cards": 1},
    {"type": "play", "player": "ann", "card": "wild attack-attack", "color": "green", "target": "bob"},
    {"type": "hit"},
    {"type": "pressed", "player": "bob"},
    {"type": "hit", "cards": 2},
    {"type": "score", "hands": {"bob": 61, "cy": 40}},
    {"type": "undo", "secret": SECRETS[1]},
    {"type": "score", "hands": {"bob": 60, "cy": 40}},
    {"type": "next_round", "deal": {"starter": "green 2"}, "secret": SECRETS[2]},
    {"type": "pressed", "player": "bob"},
    {"type": "hit", "cards": 1},
]
BAD_LINES = ['{"type": "play", "player": "nobody", "card": "red 1"}', "this is not json", '{"type": "undo"}']


def record(spec: dict[str, Any]) -> list[str]:
    ref = Referee()
    start = {
        "type": "new_game",
        "ruleset": spec["ruleset"],
        "players": spec["players"],
        "seed": spec["seed"],
        "options": {"target_score": 150, **spec.get("options", {})},
    }
    lines = [json.dumps(start)]
    ref.handle(start)
    bot = Bot(spec["strategy"], seed=spec["seed"])
    for step in range(50_000):
        if step == 5:
            lines.extend(BAD_LINES)
            ref.handle({"type": "undo"})
        command = bot.next_command(ref)
        if command is None:
            break
        ref.handle(command)
        lines.append(json.dumps(command))
        catch = bot.catch(ref)
        if catch is not None:
            ref.handle(catch)
            lines.append(json.dumps(catch))
    return lines


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    if "--outputs" in sys.argv[1:]:
        names = [*GAMES, "table-attack"]
        recorded = {name: (GOLDEN / f"{name}.jsonl").read_text().splitlines() for name in names}
    else:
        recorded = {name: record(spec) for name, spec in GAMES.items()}
        recorded["table-attack"] = [json.dumps(command) for command in TABLE_ATTACK]
    for name, lines in recorded.items():
        (GOLDEN / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        output = list(replay_lines(lines, with_state=True))
        (GOLDEN / f"{name}.out").write_text("\n".join(output) + "\n")
        print(f"{name}: {len(lines)} commands, {len(output)} output lines")


if __name__ == "__main__":
    main()
