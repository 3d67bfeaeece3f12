"""`unolauncher simulate` and the bots: reproducible statistics, progress on stderr, clear errors."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from unolauncher.cli import main
from unolauncher.rules.bots import Bot

TIMING = ("seconds", "games_per_s", "steps_per_s")


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["simulate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def without_timing(summary: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in summary.items() if k not in TIMING}


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_simulate_json_summary_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--ruleset", "attack", "--players", "4", "--games", "6", "--seed", "7", "--json"]
    code, out, _ = simulate(capsys, *args)
    assert code == 0
    first = json.loads(out)
    assert first["games"] == 6 and first["unfinished"] == 0
    assert first["rounds_per_game"] >= 1 and first["hits_per_round"] > 0 and first["cards_per_hit"] >= 0
    assert sum(first["win_rate"].values()) == pytest.approx(1.0)
    _, out2, _ = simulate(capsys, *args, "--no-progress")
    assert without_timing(first) == without_timing(json.loads(out2))


@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_the_summary_is_the_same_whatever_the_number_of_jobs(capsys: pytest.CaptureFixture[str], ruleset: str) -> None:
    # 7 games in chunks of one: the two workers finish them in whatever order the scheduler gives
    args = ["--ruleset", ruleset, "--players", "3", "--games", "7", "--seed", "11", "--json"]
    code, one_job, _ = simulate(capsys, *args, "--jobs", "1")
    assert code == 0
    code, two_jobs, _ = simulate(capsys, *args, "--jobs", "2")
    assert code == 0
    single, double = json.loads(one_job), json.loads(two_jobs)
    assert single["games"] == 7 and single["rounds_per_game"] >= 1
    assert without_timing(single) == without_timing(double)
    # and the seed matters: another seed gives other games
    _, other, _ = simulate(capsys, *args[:-3], "--seed", "12", "--json", "--jobs", "2")
    assert without_timing(json.loads(other)) != without_timing(single)


def test_no_progress_frames_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = simulate(capsys, "--ruleset", "classic", "--players", "2", "--games", "3")
    assert code == 0 and "games/s" in out
    assert err == ""  # capsys's stderr is not a terminal: no carriage-return frames, no bar


def test_a_log_file_gets_the_summary_alone_and_a_terminal_the_bar(tmp_path: Path) -> None:
    """#15 item 6, as a service runs it: ``unolauncher simulate`` with stderr redirected to a file (a systemd journal,
    ``2> log``) writes no carriage-return frames there, while on a real terminal (a pty) the bar is drawn."""
    command = [sys.executable, "-m", "unolauncher", "simulate", "--ruleset", "classic", "--players", "2"]
    command += ["--games", "200", "--seed", "3"]  # 100 chunks: a bar would draw 100 frames
    log = tmp_path / "simulate.log"
    with log.open("wb") as stderr:
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=stderr, timeout=120)
    assert run.returncode == 0 and b"games/s" in run.stdout
    assert log.read_bytes() == b""

    controller, terminal = pty.openpty()
    try:
        # Read while it runs: a pty holds a few KiB, and a full one would block the bar's writes.
        with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=terminal) as child:
            os.close(terminal)
            drawn = b""
            while chunk := _read_pty(controller):
                drawn += chunk
            assert child.wait(timeout=120) == 0
    finally:
        os.close(controller)
    assert drawn.count(b"\r[") >= 2 and b"200/200 games" in drawn


def _read_pty(fd: int) -> bytes:
    """What is left to read from a pty's controller side (b"" at its end: Linux raises EIO once the other side is
    closed and drained)."""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def test_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(["simulate", "--ruleset", "classic", "--players", "2", "--games", "3", "--seed", "1"])
    assert code == 0 and "games/s" in capsys.readouterr().out
    frames = terminal.getvalue()
    assert frames.startswith("\r[") and "3/3 games" in frames and frames.endswith("\n")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["simulate", "--ruleset", "classic", "--players", "2", "--games", "3", "--no-progress"]) == 0
    assert terminal.getvalue() == ""


def test_simulate_text_summary_for_a_draw_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = simulate(capsys, "--ruleset", "mario-kart", "--players", "3", "--games", "3", "--strategy", "greedy")
    assert code == 0
    assert "games/s" in out and "rounds per game" in out and "draws per round" in out and "win rate by seat" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "1"], "--players"),
        (["--games", "0"], "--games"),
        (["--target-score", "0"], "target_score"),
        (["--jobs", "0"], "--jobs"),
    ],
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
