"""``[voice]`` is read like every other section: each bad key or value is refused in one line naming it, the
command line exits 2 for it, and the defaults keep the voice off."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from unolauncher.daemon.config import Config, ConfigError, parse_config

BAD: list[tuple[Any, str]] = [
    ({"langauge": "de"}, "voice.langauge"),  # unknown key
    ({"enabled": "yes"}, "voice.enabled"),
    ({"language": "fr"}, "voice.language"),  # no catalogue
    ({"language": "DE"}, "voice.language"),
    ({"voice": "-w /etc/passwd"}, "voice.voice"),  # never an option to espeak-ng
    ({"voice": ""}, "voice.voice"),
    ({"rate": 20}, "voice.rate"),
    ({"rate": 175.5}, "voice.rate"),
    ({"rate": True}, "voice.rate"),
    ({"player": ""}, "voice.player"),
    ({"player": "aplay 'unclosed"}, "voice.player"),
    ({"player": "aplay\n-q"}, "voice.player"),
    ("on", "voice"),  # not a table
]


@pytest.mark.parametrize(("values", "key"), BAD, ids=[key + str(i) for i, (_, key) in enumerate(BAD)])
def test_each_bad_voice_key_is_named_in_one_line(values: Any, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"voice": values})
    message = str(info.value)
    assert "\n" not in message and re.search(rf"(^|[\s\[]){re.escape(key)}\b", message), message


def test_defaults_keep_the_voice_off_and_good_values_are_read() -> None:
    assert Config().voice.enabled is False and Config().voice.language == "en"
    voice = parse_config(
        {"voice": {"enabled": True, "language": "hy", "voice": "hyw", "rate": 140, "player": "aplay -q -D plughw:1,0"}}
    ).voice
    assert (voice.enabled, voice.language, voice.voice, voice.rate, voice.player) == (
        True, "hy", "hyw", 140, "aplay -q -D plughw:1,0",
    )  # fmt: skip


def test_the_command_line_exits_2_for_a_bad_voice_key(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[voice]\nenabled = true\nlanguage = "xx"\n')
    result = subprocess.run(
        [sys.executable, "-m", "unolauncher", "run", "--config", str(path), "--state-dir", str(tmp_path / "s")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "unolauncher run: voice.language must be one of en, de, be, hy, tl, got 'xx'"
    ]
