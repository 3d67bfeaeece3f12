"""Every announcement in every spoken language, rendered by the real engine to a WAV (``espeak-ng -w``, the voice
and text the speaker uses) and measured with sox: speech-length (0.5–15 s) and not silence (RMS amplitude, and the
loud part of the file). A catalogue message espeak-ng could not speak — empty, or only punctuation — fails here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.binaries import require_binary
from unolauncher.voice.catalogue import EN, SPOKEN, render
from unolauncher.voice.settings import VoiceSettings
from unolauncher.voice.speaker import speech_command

pytestmark = pytest.mark.timeout(120)

PARAMS = {"player": "Anna", "target": "Boris", "winner": "Mila", "hits": 2, "points": 57}


def sox_stat(sox: str, wav: Path) -> dict[str, float]:
    """``sox FILE -n stat``'s numbers by name."""
    result = subprocess.run([sox, str(wav), "-n", "stat"], capture_output=True, text=True, check=True)
    values = {}
    for line in result.stderr.splitlines():
        name, _, value = line.partition(":")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            continue
    return values


@pytest.mark.parametrize("language", sorted(SPOKEN))
def test_every_announcement_is_speech_in_every_spoken_language(language: str, tmp_path: Path) -> None:
    engine = require_binary("espeak-ng")
    sox = require_binary("sox")
    commands = speech_command(VoiceSettings(enabled=True, language=language), engine)
    assert commands is not None
    speak = commands[0]  # what the speaker runs (no player: the engine plays it); here it writes a WAV instead
    for code in EN:
        text = render(language, code, PARAMS)
        wav = tmp_path / f"{language}-{code}.wav"
        subprocess.run([*speak, "-w", str(wav)], input=text.encode(), check=True, timeout=30)
        seconds = float(subprocess.run([sox, "--i", "-D", str(wav)], capture_output=True, text=True, check=True).stdout)
        stat = sox_stat(sox, wav)
        assert 0.5 <= seconds <= 15, f"{language}.{code}: {seconds:.2f} s for {text!r}"
        assert stat["RMS     amplitude"] > 0.02, f"{language}.{code} is (nearly) silent: {stat} for {text!r}"
        assert stat["Maximum amplitude"] > 0.2, f"{language}.{code} never gets loud: {stat}"


def test_a_longer_announcement_takes_longer_to_say() -> None:
    """The measure measures speech: the same voice takes longer over a round's result than over a turn."""
    engine = require_binary("espeak-ng")
    sox = require_binary("sox")
    lengths = {}
    for code in ("turn", "jammed"):
        result = subprocess.run(
            [engine, "-v", "en", "--stdout"], input=render("en", code, PARAMS).encode(), capture_output=True, check=True
        )
        lengths[code] = float(
            subprocess.run([sox, "-t", "wav", "--ignore-length", "-", "-n", "stat"], input=result.stdout,
                           capture_output=True, check=True).stderr.decode().split("Length (seconds):")[1].split()[0]
        )  # fmt: skip
    assert lengths["jammed"] > lengths["turn"] * 1.5, lengths
