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
