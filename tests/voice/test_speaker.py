"""The speaker with the real engine: espeak-ng's sound reaches the configured player through a pipe, a newer
announcement of higher priority kills the utterance in progress (its whole process group), ``stop`` kills what is
being said, and without espeak-ng, without a player or without a voice for the language it stays silent (one
reason, no thread) and ``hear`` does nothing."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from support.binaries import require_binary
from support.net import wait_until
from unolauncher.voice.settings import VoiceSettings
from unolauncher.voice.speaker import Speaker

pytestmark = pytest.mark.timeout(60)


def _field(stat: str, name: str) -> str:
    """One value of ``sox ... stat``'s report."""
    return next(line.split(":")[1] for line in stat.splitlines() if line.startswith(name))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def pids(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def test_the_engines_sound_reaches_the_player(tmp_path: Path) -> None:
    require_binary("espeak-ng")
    sox = require_binary("sox")
    out = tmp_path / "said.wav"
    player = f"sh -c {shlex.quote(f'cat > {shlex.quote(str(out))}')}"
    speaker = Speaker(VoiceSettings(enabled=True, language="de", player=player))
    speaker.start()
    try:
        assert speaker.silent_reason is None
        speaker.hear([[{"type": "played", "player": "Ann"}, {"type": "turn", "player": "Ann"}]])
        assert wait_until(lambda: speaker.said and speaker._speaking is None, 20), "nothing was said"
    finally:
        speaker.stop()
    assert speaker.said == ["Ann, du bist am Zug."]
    # A WAV stream (its header cannot know the length): the seconds are the bytes after the header over the rate.
    wav = out.read_bytes()
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE", wav[:16]
    byte_rate = int.from_bytes(wav[28:32], "little")
    seconds = (len(wav) - 44) / byte_rate
    assert seconds > 0.5, f"the player received {seconds:.2f} s of sound"
    rms = subprocess.run([sox, "-t", "wav", "--ignore-length", str(out), "-n", "stat"], capture_output=True, text=True)
    assert rms.returncode == 0, rms.stderr
    assert float(_field(rms.stderr, "RMS     amplitude")) > 0.01, rms.stderr


def test_higher_priority_news_kills_the_utterance_in_progress(tmp_path: Path) -> None:
    require_binary("espeak-ng")
    log = tmp_path / "players.log"
    # Each utterance's player notes its pid, then takes long (exec: the pid is the sleeping process itself).
    player = f"sh -c {shlex.quote(f'cat >/dev/null; echo $$ >> {shlex.quote(str(log))}; exec sleep 30')}"
    speaker = Speaker(VoiceSettings(enabled=True, language="en", player=player))
    speaker.start()
    try:
        speaker.hear([[{"type": "turn", "player": "Ann"}]])
        assert wait_until(lambda: len(pids(log)) == 1, 20), "the first utterance did not reach its player"
        first = pids(log)[0]
        speaker.hear([[{"type": "jam", "cards_out": 1, "expected": 3}]])
        assert wait_until(lambda: len(pids(log)) == 2, 20), "the jam was not said"
        assert wait_until(lambda: not alive(first), 10), "the interrupted player still runs"
        assert speaker.said == ["Ann, your turn.", "The launcher is jammed. Open the lid and clear the cards."]
        assert speaker.interrupted == 1
        second = pids(log)[1]
    finally:
        speaker.stop()
    assert wait_until(lambda: not alive(second), 10), "stop() left the utterance in progress running"


def test_a_newer_turn_interrupts_the_spoken_one_and_equal_news_waits(tmp_path: Path) -> None:
    require_binary("espeak-ng")
    log = tmp_path / "players.log"
    player = f"sh -c {shlex.quote(f'cat >/dev/null; echo $$ >> {shlex.quote(str(log))}; exec sleep 30')}"
    speaker = Speaker(VoiceSettings(enabled=True, language="en", player=player))
    speaker.start()
    try:
        speaker.hear([[{"type": "owed", "player": "Bob", "hits": 2}, {"type": "uno_called", "player": "Ann"}]])
        assert wait_until(lambda: len(pids(log)) == 1, 20)
        speaker.hear([[{"type": "turn", "player": "Cy"}]])  # lower than what is said: waits
        speaker.hear([[{"type": "turn", "player": "Dee"}]])  # supersedes Cy's turn, still waiting
        assert wait_until(lambda: len(speaker.agenda) == 2, 10), speaker.agenda.waiting()
        assert [a.params["player"] for a in speaker.agenda.waiting()] == ["Ann", "Dee"]
        assert speaker.interrupted == 0 and alive(pids(log)[0])
    finally:
        speaker.stop()


@pytest.mark.parametrize(
    ("settings", "found", "reason"),
    [
        (VoiceSettings(enabled=True), set(), "espeak-ng is not installed"),
        (VoiceSettings(enabled=True, language="tl"), {"espeak-ng"}, "no voice for language 'tl'"),
        (VoiceSettings(enabled=True, player="aplay -q"), {"espeak-ng"}, "voice.player 'aplay' cannot be found"),
    ],
)
def test_without_engine_voice_or_player_the_box_only_chimes(
    settings: VoiceSettings, found: set[str], reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    speaker = Speaker(settings, which=lambda name: f"/usr/bin/{name}" if name in found else None)
    speaker.start()
    assert speaker.silent_reason is not None and reason in speaker.silent_reason
    assert [r.getMessage() for r in caplog.records if r.name == "unolauncher.voice"] == [
        f"voice: {speaker.silent_reason}; the launcher keeps only its chime"
    ]
    speaker.hear([[{"type": "turn", "player": "Ann"}]])  # nothing to do, nothing raised
    speaker.stop()
    assert speaker.said == []
