"""Taps per round and per turn (issue #27's measurement): a family of four with real cards plays complete table-mode
rounds through the dashboard in headless Chromium (``tests/web/family.py``: every command is a tap on the page),
UNO Attack and Mario Kart, at each phone size; each control that was off the screen when it was tapped counts as a
scroll.

    .venv/bin/python bench/family_round.py                       # 3 rounds per rule set and size
    .venv/bin/python bench/family_round.py --rounds 5 --sizes 360x640,640x360 --rulesets attack

Prints one JSON line per round, then per rule set and size: rounds, taps per round (median, range), turns, taps per
turn, taps per action (mean), scrolls per round (play / setup, deal and scores) and where the scrolls were.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from playwright.sync_api import sync_playwright
from web.conftest import CHROMIUM_ARGS, TableHandle, daemon_with_dashboard
from web.family import PLAYERS, FamilyRound, RoundResult


def play_rounds(rulesets: list[str], sizes: list[str], rounds: int, seed: int) -> list[RoundResult]:
    results = []
    with (
        tempfile.TemporaryDirectory() as workdir,
        daemon_with_dashboard(Path(workdir)) as daemon,
        sync_playwright() as pw,
    ):
        table = TableHandle(daemon)
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        try:
            for size in sizes:
                width, height = (int(n) for n in size.split("x"))
                for ruleset in rulesets:
                    for n in range(rounds):
                        context = browser.new_context(
                            viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
                        )
                        page = context.new_page()
                        page.goto(str(daemon.endpoints["dashboard_url"]))
                        page.wait_for_selector("#conn[data-state=online]", timeout=15_000)
                        result = FamilyRound(page, table, ruleset, PLAYERS, seed + n, viewport=size).play()
                        print(json.dumps(result.summary()), flush=True)
                        results.append(result)
                        context.close()
        finally:
            browser.close()
            table.close()
    return results


def report(results: list[RoundResult]) -> None:
    groups: dict[tuple[str, str], list[RoundResult]] = defaultdict(list)
    for result in results:
        groups[(result.ruleset, result.viewport)].append(result)
    for (ruleset, size), group in groups.items():
        totals = [r.total for r in group]
        turns = sum(r.turns for r in group)
        actions: Counter[str] = Counter()
        taps: Counter[str] = Counter()
        for r in group:
            actions.update(r.actions)
            taps.update(r.taps)
        summary: dict[str, Any] = {
            "ruleset": ruleset,
            "size": size,
            "rounds": len(group),
            "taps_per_round_median": statistics.median(totals),
            "taps_per_round_range": [min(totals), max(totals)],
            "turns_per_round_median": statistics.median(r.turns for r in group),
            "taps_per_turn": round(sum(r.play_taps for r in group) / max(1, turns), 2),
            "setup_and_deal_taps_median": statistics.median(r.taps["setup"] + r.taps["deal"] for r in group),
            "scores_taps_median": statistics.median(r.taps["scores"] for r in group),
            "taps_per_action": {k: round(taps[k] / actions[k], 2) for k in sorted(actions)},
            "scrolls_per_round_play": round(
                statistics.mean(sum(n for k, n in r.scrolls.items() if k not in r.PHASES) for r in group), 2
            ),
            "scrolls_per_round_setup_deal_scores": round(
                statistics.mean(sum(r.scrolls[k] for k in r.PHASES) for r in group), 2
            ),
            "scrolled": sorted({s.split(" at ")[0] for r in group for s in r.scrolled}),
        }
        print(json.dumps(summary))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per rule set and size (default 3)")
    parser.add_argument("--sizes", default="390x844,360x640", help="phone viewports, e.g. 390x844,360x640,640x360")
    parser.add_argument("--rulesets", default="attack,mario-kart")
    parser.add_argument("--seed", type=int, default=1, help="the family's first shuffle (one more each round)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    report(play_rounds(args.rulesets.split(","), args.sizes.split(","), args.rounds, args.seed))


if __name__ == "__main__":
    main()
