"""`unolauncher simulate` and the bots: reproducible statistics, progress on stderr, clear errors."""

from __future__ import annotations

import json

import pytest

from unolauncher.cli import main
from unolauncher.rules.bots import Bot


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["simulate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_simulate_json_summary_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--ruleset", "attack", "--players", "4", "--games", "6", "--seed", "7", "--json"]
    code, out, err = simulate(capsys, *args)
    assert code == 0 and "6/6 games" in err
    first = json.loads(out)
    assert first["games"] == 6 and first["unfinished"] == 0
    assert first["rounds_per_game"] >= 1 and first["hits_per_round"] > 0 and first["cards_per_hit"] >= 0
    assert sum(first["win_rate"].values()) == pytest.approx(1.0)
    _, out2, _ = simulate(capsys, *args, "--no-progress")
    second = json.loads(out2)
    timing = ("seconds", "games_per_s", "steps_per_s")
    assert {k: v for k, v in first.items() if k not in timing} == {k: v for k, v in second.items() if k not in timing}


def test_simulate_text_summary_for_a_draw_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = simulate(capsys, "--ruleset", "mario-kart", "--players", "3", "--games", "3", "--strategy", "greedy")
    assert code == 0
    assert "games/s" in out and "rounds per game" in out and "draws per round" in out and "win rate by seat" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--players", "1"], "--players"), (["--games", "0"], "--games"), (["--target-score", "0"], "target_score")],
)
def test_simulate_refuses_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = simulate(capsys, *args)
    assert code == 2 and message in err


def test_unknown_bot_strategy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        Bot("clever")


def test_random_bot_is_uniform_over_distinct_legal_moves() -> None:
    # Like RLCard's random agent: two copies of a card are one move, a Wild is one move per colour. Here the legal
    # moves are red 1, red 2 and Wild x 4 colours (blue 5 does not match): each should come up about 1/6 of the time.
    from collections import Counter

    from .rigs import start

    hands = {"ann": ["red 1", "red 1", "red 2", "wild", "blue 5"], "bob": ["green 3", "green 4"]}
    ref, _ = start("classic", hands, "red 9", players=["ann", "bob"])
    bot = Bot("random", seed=4, uno_rate=0.0)
    picks: Counter[tuple[str, str | None]] = Counter()
    for _ in range(6000):
        cmd = bot.next_command(ref)
        assert cmd is not None and cmd["type"] == "play" and cmd["player"] == "ann"
        picks[(cmd["card"], cmd.get("color"))] += 1
    expected = {("red 1", None), ("red 2", None)} | {("wild", c) for c in ("red", "yellow", "green", "blue")}
    assert set(picks) == expected
    assert all(800 <= n <= 1200 for n in picks.values()), picks


def test_random_bot_spreads_attack_attack_over_colours_and_targets() -> None:
    from collections import Counter

    from .rigs import start

    hands = {"ann": ["wild attack-attack", "red 1"], "bob": ["green 3"], "cy": ["green 4"]}
    ref, _ = start("attack", hands, "blue 9")
    bot = Bot("random", seed=5, uno_rate=0.0)
    picks: Counter[tuple[str, str]] = Counter()
    for _ in range(4000):
        cmd = bot.next_command(ref)
        assert cmd is not None and cmd["card"] == "wild attack-attack"
        picks[(cmd["color"], cmd["target"])] += 1
    assert set(picks) == {(c, t) for c in ("red", "yellow", "green", "blue") for t in ("bob", "cy")}
    assert all(350 <= n <= 650 for n in picks.values()), picks
