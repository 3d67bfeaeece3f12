"""Refusals: how the referee says no. A handler raises :class:`Refusal` (via :func:`refuse`) before it changes
anything; ``Referee.handle`` turns it, a malformed command or an internal error into exactly one ``rejected``
event (PROTOCOL.md). Also the event type itself and the short quoting used in every refusal's message.

Example::

    >>> try:
    ...     refuse("bad_color", "The color must be red, yellow, green or blue.")
    ... except Refusal as refusal:
    ...     rejected_event({"type": "choose", "color": "pink"}, refusal.code, refusal.message)["code"]
    'bad_color'
"""

from __future__ import annotations

import json
import reprlib
from typing import Any, NoReturn

from unolauncher.errors import UnolauncherError

Event = dict[str, Any]


class Refusal(UnolauncherError):
    """Raised by validation before any change; becomes one ``rejected`` event."""

    def __init__(self, code: str, message: str, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params or {}  # what the message names (a player, a card): a page words it in its language


def refuse(code: str, message: str, **params: Any) -> NoReturn:
    raise Refusal(code, message, params)


def malformed_event(command: Any) -> Event:
    """The ``rejected`` event for a command the referee cannot even dispatch (not an object, no or an unknown type)."""
    if type(command) is not dict:
        return rejected_event(command, "not_an_object", "A command must be a JSON object with a type.")
    kind = command.get("type")
    if kind is None:
        return rejected_event(command, "missing_type", "The command has no type field.")
    return rejected_event(command, "unknown_command", f"Unknown command type {short_repr(kind)}.")


def rejected_event(command: Any, code: str, message: str, params: dict[str, Any] | None = None) -> Event:
    """The one ``rejected`` event of a refused command: the command echoed (JSON-safe, without its secret), the
    refusal's code and message, and its ``params`` when the message names something (docs/protocol.md)."""
    event = {"type": "rejected", "command": _json_safe(redacted(command)), "code": code, "message": message}
    if params:
        event["params"] = params
    return event


def redacted(command: Any) -> Any:
    """The command as an event may echo it (``rejected``, ``undone``): without a launcher ``secret``, which must
    stay unpublished until its round's reveal."""
    if type(command) is dict and ("secret" in command or "launcher_press" in command):
        # launcher_press: the press an undo history's hit settled (the referee's own note, not the sender's)
        return {key: value for key, value in command.items() if key not in ("secret", "launcher_press")}
    return command


def _json_safe(value: Any) -> Any:
    """The command as JSON can carry it (a Python caller may pass anything)."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return reprlib.repr(value)[:200]  # depth- and size-limited


def short_repr(value: Any) -> str:
    """A value as a refusal message quotes it: JSON for a string, a shortened ``repr`` for anything else, so a huge
    or hostile value cannot make the message huge.

    >>> short_repr("red 77"), short_repr(list(range(100)))
    ('"red 77"', '[0, 1, 2, 3, 4, 5, ...]')
    """
    try:
        text = json.dumps(value) if isinstance(value, str) else reprlib.repr(value)
    except RecursionError:
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."
