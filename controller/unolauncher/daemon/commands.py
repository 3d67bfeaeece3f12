"""Decoding a ``cmd`` payload and wording the ``reply``: the daemon's edge against bad input.

Every payload gets exactly one reply ``{"id", "ok", "code", "message"}`` (plus ``data`` for ``status`` and
``moves``); ``id`` is echoed when the payload carried a usable one, else ``null``. The payload must be strict JSON
(:mod:`unolauncher.strict_json`: no NaN/Infinity, bounded depth, size and integers). The fields of the daemon's
own commands are checked against :data:`DAEMON_FIELDS` (the referee checks its commands against
``rules/schema.py``), so a command is applied whole or refused. Nothing here raises on bad input.

Example::

    >>> decoded = decode_command(b'{"id": 7, "type": "hit"}')
    >>> decoded.command
    {'type': 'hit'}
    >>> decoded.id
    7
    >>> decode_command(b"{").error[0]
    'invalid_json'
    >>> check_daemon_command({"type": "resend", "from": 2**63})
    ('bad_field', 'from must be a whole number from 1 to 9223372036854775807.')
    >>> check_daemon_command({"type": "disable", "by": ""})[1]
    'by must be printable text without control or bidi-override characters, 1 to 64 characters.'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from unolauncher.rules.refusal import Refusal, short_repr
from unolauncher.rules.schema import MAX_ID, PLAYER, Check, boolean, check_command, integer, label, text
from unolauncher.strict_json import INT_MAX, StrictJSONError, loads

MAX_PAYLOAD = 64 * 1024  # a real command is a few hundred bytes; a 64 KiB one is a mistake or an attack
MAX_ID_LENGTH = MAX_ID

# Commands the daemon answers itself (field -> check, as in rules/schema.py); everything else goes to the referee.
DAEMON_FIELDS: dict[str, dict[str, Check]] = {
    "press": {},
    "lid": {"open": boolean},
    "load": {"cards": integer(0, 200)},
    "status": {},
    "moves": {"player": PLAYER},  # what that player may do now (Referee.legal_moves): a query, not journalled
    "rules": {},  # the rule catalogue (daemon/catalogue.py), for a client that cannot read the retained topic
    "resend": {"from": integer(1, INT_MAX)},
    "preset": {"preset": text()},  # the next game's ejection preset (Home Assistant's select)
    "disable": {"by": label(64, min_len=1)},  # the emergency stop; "by" says who pressed it
    "enable": {"by": label(64, min_len=1)},
}
DAEMON_COMMANDS = frozenset(DAEMON_FIELDS)
# Read-only questions: they change nothing and journal nothing, so MQTT's thread may answer them itself when the
# worker has nothing in hand (Table.submit_payload); every other command waits its turn on the worker.
QUERIES = frozenset({"status", "moves", "rules"})
# The byte pre-check of that fast path (a query has its type, quoted, in its text), made from QUERIES: a query
# added above gets its fast path without another edit (tests/daemon/test_query_precheck.py).
QUERY_MARKERS: tuple[bytes, ...] = tuple(f'"{name}"'.encode() for name in sorted(QUERIES))


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
        data = loads(payload)
    except StrictJSONError as exc:
        return Decoded(None, error=("invalid_json", str(exc)))
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


def check_daemon_command(command: dict[str, Any]) -> tuple[str, str] | None:
    """``(code, message)`` if a daemon command's fields do not fit :data:`DAEMON_FIELDS`, else ``None``."""
    try:
        check_command(command, DAEMON_FIELDS[command["type"]])
    except Refusal as refusal:
        return refusal.code, refusal.message
    return None


def reply(command_id: str | int | None, ok: bool, code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The reply payload for one command."""
    return {"id": command_id, "ok": ok, "code": code, "message": message, **extra}


def unknown_player(player: Any, players: list[str]) -> tuple[str, str]:
    """``(code, message)`` refusing a ``moves`` query for nobody at the table (``player`` passed the schema).

    >>> unknown_player("zed", ["ann", "bob"])
    ('unknown_player', 'There is no player called "zed" at this table (players: ann, bob).')
    """
    who = ", ".join(players) if players else "nobody: no game has been started"
    if player is None:
        return "missing_field", f'moves needs "player": one of the table\'s players ({who}).'
    return "unknown_player", f"There is no player called {short_repr(player)} at this table (players: {who})."
