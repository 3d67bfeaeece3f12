"""What the box says next: newer news interrupts or supersedes older, stale news is dropped, the list is bounded.

Pure (no clock of its own, no thread): the speaker asks it under its own thread. The rules:

- A new announcement of higher priority than the one being spoken **interrupts** it (the speaker kills the speech
  process); so does a newer one of the same group (a newer turn makes the spoken one wrong). An interrupted
  announcement is not said again.
- A new announcement **supersedes** waiting ones of its group (only the newest turn is worth saying).
- The next one said is the waiting one of highest priority, the oldest first among equals; one heard more than
  ``stale_s`` ago is dropped unsaid (the table has moved on).
- At most ``limit`` wait; beyond that the one of lowest priority (the oldest among equals) is dropped.

Example::

    >>> from unolauncher.voice.announce import Announcement
    >>> agenda = Agenda(limit=4, stale_s=10.0)
    >>> agenda.add(Announcement("turn", {"player": "ann"}, 0.0), speaking=None)
    False
    >>> agenda.add(Announcement("turn", {"player": "bob"}, 0.1), speaking=None)   # supersedes ann's turn
    False
    >>> speaking = agenda.next(now=0.2); speaking.params
    {'player': 'bob'}
    >>> agenda.add(Announcement("jammed", {}, 0.3), speaking=speaking)   # interrupts bob's turn
    True
"""

from __future__ import annotations

from unolauncher.voice.announce import Announcement


class Agenda:
    """The announcements waiting to be said (see the module docstring for the rules)."""

    def __init__(self, limit: int = 8, stale_s: float = 10.0) -> None:
        if limit < 1:
            raise ValueError("an agenda holds at least one announcement")
        self.limit = limit
        self.stale_s = stale_s
        self._waiting: list[Announcement] = []
        self.dropped = 0  # superseded, stale or over the limit: never said

    def __len__(self) -> int:
        return len(self._waiting)

    def waiting(self) -> list[Announcement]:
        return list(self._waiting)

    def add(self, new: Announcement, speaking: Announcement | None) -> bool:
        """Put ``new`` on the agenda; True when it interrupts ``speaking`` (the one being said now)."""
        if new.group is not None:
            kept = [a for a in self._waiting if a.group != new.group]
            self.dropped += len(self._waiting) - len(kept)
            self._waiting = kept
        self._waiting.append(new)
        while len(self._waiting) > self.limit:
            lowest = min(self._waiting, key=lambda a: (a.priority, a.heard_at))
            self._waiting.remove(lowest)
            self.dropped += 1
        if speaking is None:
            return False
        return new.priority > speaking.priority or (new.group is not None and new.group == speaking.group)

    def next(self, now: float) -> Announcement | None:
        """Take the next announcement to say (``None``: nothing fresh waits); stale ones are dropped on the way."""
        fresh = [a for a in self._waiting if now - a.heard_at <= self.stale_s]
        self.dropped += len(self._waiting) - len(fresh)
        if not fresh:
            self._waiting = []
            return None
        chosen = max(fresh, key=lambda a: (a.priority, -a.heard_at))
        fresh.remove(chosen)
        self._waiting = fresh
        return chosen
