"""Speech never delays a press: a real daemon (in this process) on the virtual launcher plays presses with no voice,
then with a voice whose player takes 300 s per announcement, and each press's motor start and journalled hit come
no later than a generous bound derived from the no-voice run (1 s + 10 × its slowest). The voice is speaking before
the first press and still after the last; an utterance ends only when newer news kills it (and the next starts at
once), so it spoke throughout. A voice that spoke on the worker would hold
every hit for seconds (broken once: ``Speaker.hear`` sleeping 3 s failed here)."""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Any

import pytest

from support.binaries import require_binary
from support.daemon import running_daemon
from support.fault_daemon import start_game
from support.net import wait_until
from unolauncher.daemon.app import Daemon

pytestmark = pytest.mark.timeout(180)

PRESSES = 8
PRESS_GAP_S = 0.04  # beyond the button's 30 ms debounce
ALWAYS_ONE = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"1": 1}}  # every press fires one card
SLOW_PLAYER = "sh -c " + shlex.quote("cat >/dev/null; exec sleep 300")


def overrides(voice: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        "launcher": {"preset": "custom", "custom": ALWAYS_ONE},
        "homeassistant": {"enabled": False},
        "voice": voice,
    }


def hits(daemon: Daemon) -> int:
    assert daemon.journal is not None
    return sum(1 for e in daemon.journal.events(1, 100_000) if e["type"] == "hit")


def play_presses(daemon: Daemon) -> tuple[list[float], list[float]]:
    """Press PRESSES times, each once the previous one is settled; per press the seconds to its motor start and to
    its journalled hit. With a voice, the first press waits until it speaks (the new game's turn or hits owed)."""
    table, virtual, launcher = daemon.table, daemon.virtual, daemon.launcher
    assert table is not None and virtual is not None and launcher is not None
    assert start_game(table), "no game started"
    speaker = daemon.voice
    if speaker is not None and speaker.silent_reason is None:
        assert wait_until(lambda: speaker.speaking is not None, 30), "the new game was not announced"
    starts: list[float] = []
    was_on = [False]

    def motor_changed() -> None:  # on the thread that drives the pin (the press path's, here the test's)
        on = virtual.motor_direction == "forward"  # a start, not the retract (off here anyway)
        if on and not was_on[0]:
            starts.append(time.monotonic())
        was_on[0] = on

    virtual.pin("motor_enable").listeners.append(motor_changed)
    to_motor, to_hit = [], []
    for n in range(PRESSES):
        before = hits(daemon)
        pressed = time.monotonic()
        virtual.press_button()
        started = n + 1
        assert wait_until(lambda: len(starts) >= started, 30), f"press {started} did not start the motor"  # noqa: B023
        to_motor.append(starts[-1] - pressed)
        assert wait_until(lambda: hits(daemon) > before, 60, interval=0.002), f"press {started} brought no hit"  # noqa: B023
        to_hit.append(time.monotonic() - pressed)
        assert wait_until(lambda: not launcher.status().running and table.idle() and table.hitter() is not None, 30)
        time.sleep(PRESS_GAP_S)
    return to_motor, to_hit


def test_a_long_announcement_delays_no_press_motor_start_or_hit(tmp_path: Path) -> None:
    require_binary("espeak-ng")
    with running_daemon(tmp_path / "quiet", "quiet", overrides=overrides({"enabled": False})) as daemon:
        assert daemon.voice is None
        quiet_motor, quiet_hit = play_presses(daemon)
    voice = {"enabled": True, "language": "en", "player": SLOW_PLAYER}
    with running_daemon(tmp_path / "voice", "voice", overrides=overrides(voice)) as daemon:
        speaker = daemon.voice
        assert speaker is not None and speaker.silent_reason is None, "the voice did not start"
        voice_motor, voice_hit = play_presses(daemon)
        assert wait_until(lambda: speaker.speaking is not None, 10), "the voice fell silent before the end"
    motor_bound = 1.0 + 10 * max(quiet_motor)
    hit_bound = 1.0 + 10 * max(quiet_hit)
    figures = f"motor {max(quiet_motor):.4f}/{max(voice_motor):.4f} s, hit {max(quiet_hit):.4f}/{max(voice_hit):.4f} s"
    assert max(voice_motor) <= motor_bound, f"a press's motor start waited for speech ({figures})"
    assert max(voice_hit) <= hit_bound, f"a press's hit waited for speech ({figures})"


def test_without_espeak_ng_the_daemon_plays_on_with_one_log_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # a fresh machine: no espeak-ng on PATH
    with running_daemon(tmp_path, "mute", overrides=overrides({"enabled": True, "language": "de"})) as daemon:
        assert daemon.voice is not None and daemon.voice.silent_reason is not None
        to_motor, to_hit = play_presses(daemon)
        assert len(to_motor) == len(to_hit) == PRESSES
    lines = [r.getMessage() for r in caplog.records if r.name == "unolauncher.voice"]
    assert lines == ["voice: espeak-ng is not installed (apt-get install espeak-ng); the launcher keeps only its chime"]
