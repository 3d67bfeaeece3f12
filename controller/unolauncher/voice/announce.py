"""Which journalled events make which announcement: the announcement's code and its parameters, read from the
event's own fields, so a Home Assistant automation that sees the event (its type and attributes) has everything the
box speaks from (docs/voice.md has the table).

Pure: events in, :class:`Announcement` values out.

Example::

    >>> events = [{"type": "owed", "player": "bob", "hits": 2}, {"type": "turn", "player": "bob"}]
    >>> [a.code for a in announcements(events)]
    ['must_hit', 'turn']
    >>> announcements([{"type": "jam", "cards_out": 1, "expected": 3}])[0].priority
    5
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from unolauncher.voice.catalogue import LATEST_ONLY, PRIORITY


@dataclass(frozen=True)
class Announcement:
    """One thing to say: a catalogue code, its parameters, and when it was heard (a monotonic time)."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    heard_at: float = 0.0

    @property
    def priority(self) -> int:
        return PRIORITY[self.code]

    @property
    def group(self) -> str | None:
        """Announcements of one group supersede each other: only the newest is worth saying (``None``: each is)."""
        return LATEST_ONLY.get(self.code)


def _from_event(event: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    kind = event.get("type")
    if kind == "turn":
        return ("turn_again" if event.get("again") else "turn"), {"player": event.get("player")}
    if kind == "owed":
        if event.get("until_card"):
            return "must_hit_until_card", {"player": event.get("player")}
        return "must_hit", {"player": event.get("player"), "hits": event.get("hits")}
    if kind == "uno_called":
        return "uno_called", {"player": event.get("player")}
    if kind == "caught":
        return "caught", {"player": event.get("player"), "target": event.get("target")}
    if kind == "round_ended":
        return "round_won", {"winner": event.get("winner"), "points": event.get("points")}
    if kind == "game_over":
        return "game_won", {"winner": event.get("winner")}
    if kind in ("reload_request", "magazine_empty"):
        return "launcher_empty", {}
    if kind == "jam":
        return "jammed", {}
    return None


# Event type -> the announcement code it makes (docs/voice.md; the test checks the table against _from_event).
EVENT_CODES: dict[str, tuple[str, ...]] = {
    "turn": ("turn", "turn_again"),
    "owed": ("must_hit", "must_hit_until_card"),
    "uno_called": ("uno_called",),
    "caught": ("caught",),
    "round_ended": ("round_won",),
    "game_over": ("game_won",),
    "reload_request": ("launcher_empty",),
    "magazine_empty": ("launcher_empty",),
    "jam": ("jammed",),
}


def announcements(events: Iterable[dict[str, Any]], heard_at: float = 0.0) -> list[Announcement]:
    """What ``events`` (in journal order) give to say, in the same order. An event whose fields are not what its
    announcement needs (a name that is not text, a count that is not a whole number ≥ 0) gives nothing."""
    said = []
    for event in events:
        made = _from_event(event)
        if made is None:
            continue
        code, params = made
        if not all(_usable(name, value) for name, value in params.items()):
            continue
        said.append(Announcement(code, params, heard_at))
    return said


def _usable(name: str, value: Any) -> bool:
    if name in ("hits", "points"):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return isinstance(value, str) and bool(value)
