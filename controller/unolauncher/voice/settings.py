"""The ``[voice]`` section of the daemon's configuration: its keys, their checks, their defaults.

``daemon/config.py`` reads the section through :data:`VOICE_SCHEMA` like every other one: an unknown key or a bad
value stops the daemon with one line naming it (exit 2). docs/configuration.md documents each key.

Example::

    >>> VOICE_SCHEMA["language"]("voice.language", "hy")
    'hy'
    >>> VOICE_SCHEMA["rate"]("voice.rate", 30)
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: voice.rate must be a whole number of words per minute from 80 to 450, got 30
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from unolauncher.errors import ConfigError
from unolauncher.voice.catalogue import LANGUAGES

RATE_RANGE = (80, 450)  # espeak-ng's -s, words per minute (its default is 175)


def _enabled(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    return value


def _language(key: str, value: Any) -> str:
    if value not in LANGUAGES:
        raise ConfigError(f"{key} must be one of {', '.join(LANGUAGES)}, got {_shown(value)}")
    return str(value)


def _voice(key: str, value: Any) -> str:
    # An espeak-ng voice name ("de", "en-us", "hy", "mb-de1", "en+f3"): passed as one argument, never to a shell.
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_+\-/]{0,63}", value):
        raise ConfigError(f'{key} must be an espeak-ng voice name such as "de" or "en-us", got {_shown(value)}')
    return value


def _rate(key: str, value: Any) -> int:
    low, high = RATE_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{key} must be a whole number of words per minute from {low} to {high}, got {_shown(value)}")
    return value


def _player(key: str, value: Any) -> str:
    problem = None
    if not isinstance(value, str) or not value.strip() or len(value) > 1024 or not value.isprintable():
        problem = "a command line (at most 1024 printable characters)"
    else:
        try:
            shlex.split(value)
        except ValueError as exc:
            problem = f"a command line that splits into words ({exc})"
    if problem is not None:
        raise ConfigError(f'{key} must be {problem}, such as "aplay -q", got {_shown(value)}')
    return str(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


VOICE_SCHEMA: dict[str, Callable[[str, Any], Any]] = {
    "enabled": _enabled,
    "language": _language,
    "voice": _voice,
    "rate": _rate,
    "player": _player,
}


@dataclass
class VoiceSettings:
    """``[voice]``: off by default; ``voice`` unset = the language's own espeak-ng voice; ``player`` unset =
    espeak-ng plays the sound itself."""

    enabled: bool = False
    language: str = "en"
    voice: str | None = None
    rate: int | None = None
    player: str | None = None
