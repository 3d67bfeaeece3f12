"""Decoding a ``cmd`` payload and wording the ``reply``: the daemon's edge against bad input.

Every payload gets exactly one reply ``{"id", "ok", "code", "message"}`` (plus ``data`` for ``status``); ``id`` is
echoed when the payload carried a usable one, else ``null``. Nothing here raises on bad input.

Example::

    decoded = decode_command(b'{"id": 7, "type": "hit"}')
    decoded.command      # {"type": "hit"}
    decoded.id           # 7
    decode_command(b"{").error  # ("invalid_json", "The command is not valid JSON: ...")
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MAX_PAYLOAD = 64 * 1024  # a real command is a few hundred bytes; a 64 KiB one is a mistake or an attack
MAX_ID_LENGTH = 128

# Commands the daemon answers itself; everything else goes to the referee.
DAEMON_COMMANDS = frozenset({"press", "lid", "load", "status", "resend", "preset", "disable", "enable"})


@dataclass
class Decoded:
    """A command ready for dispatch, or the reason it cannot be."""

    id: str | int | None
    command: dict[str, Any] | None = None
    error: tuple[str, str] | None = None  # (code, message)


def decode_command(payload: bytes) -> Decoded:
    """Parse one ``cmd`` payload; never raises."""
    if len(payload) > MAX_PAYLOAD:
        return Decoded(None, error=("too_large", f"The command is {len(payload)} bytes; the limit is {MAX_PAYLOAD}."))
    try:
        data = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        return Decoded(None, error=("invalid_json", "The command is not UTF-8 text."))
    except (ValueError, RecursionError) as exc:
        return Decoded(None, error=("invalid_json", f"The command is not valid JSON: {str(exc)[:80]}."))
    if not isinstance(data, dict):
        return Decoded(None, error=("not_an_object", 'A command must be a JSON object with a "type".'))
    raw_id = data.pop("id", None)
    if raw_id is not None and (
        isinstance(raw_id, bool)
        or not isinstance(raw_id, str | int)
        or (isinstance(raw_id, str) and len(raw_id) > MAX_ID_LENGTH)
        or (isinstance(raw_id, int) and abs(raw_id) > 2**53)
    ):
        return Decoded(
            None,
            error=("bad_id", f"The command id must be a string of at most {MAX_ID_LENGTH} characters or an integer."),
        )
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        return Decoded(raw_id, error=("missing_type", 'The command needs a "type" string.'))
    return Decoded(raw_id, command=data)


def reply(command_id: str | int | None, ok: bool, code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The reply payload for one command."""
    return {"id": command_id, "ok": ok, "code": code, "message": message, **extra}
