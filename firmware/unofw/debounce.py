"""Debouncing of mechanical contacts, sampled from the main loop.

Two behaviours, chosen per input:

* ``leading=True`` (the fire button): a change is reported on the *first* edge, then further edges are ignored
  for ``stable_ms`` - a press reaches the host without waiting, contact bounce cannot make a second press. If
  the contact settled on a different level during the lock-out, that level is reported when it ends.
* ``leading=False`` (the lid switch): a change is reported only after the new level held for ``stable_ms``, so
  a knock on the box does not look like a refill.

Example::

    deb = Debouncer(20, leading=True)
    assert deb.update(True, 0) is True  # pressed, reported at once
    assert deb.update(False, 3) is None  # bounce, ignored
    assert deb.update(True, 5) is None
"""


class Debouncer:
    def __init__(self, stable_ms, leading=True, initial=False):
        self.stable_ms = stable_ms
        self.leading = leading
        self.state = initial
        self.changed_at = None  # when ``state`` last changed (leading) / when raw started to differ (trailing)

    def update(self, raw, now, diff=None):
        """Feed one sample; returns the new state when it changed, else None. ``diff`` is ticks_diff."""
        raw = bool(raw)
        if diff is None:
            elapsed = None if self.changed_at is None else now - self.changed_at
        else:
            elapsed = None if self.changed_at is None else diff(now, self.changed_at)
        if self.leading:
            if raw == self.state:
                return None
            if elapsed is not None and elapsed < self.stable_ms:
                return None
            self.state = raw
            self.changed_at = now
            return raw
        if raw == self.state:
            self.changed_at = None
            return None
        if self.changed_at is None:
            self.changed_at = now
            elapsed = 0
        if elapsed >= self.stable_ms:
            self.state = raw
            self.changed_at = None
            return raw
        return None
