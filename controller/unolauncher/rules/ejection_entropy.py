"""Players' entropy by commit-then-reveal (docs/fairness.md, "The entropy protocol"). Pure: the daemon stamps the
time (``at``, unix ms) on every ``entropy`` command; nothing here reads a clock.

Why not simply "anyone adds entropy, the last contribution counts": whoever knows the round's secret (the daemon, or
anyone who can read its files) could send the *last* contribution after searching for one that gives the outcomes
they want. So a round's contributions go through three phases, all before its first press:

1. **commit** — for ``COMMIT_WINDOW_MS`` after the round's first commitment, a phone sends ``hash`` = sha256 of its
   entropy (hex) and the ``client`` id it picked (at most ``MAX_PER_CLIENT`` each, ``MAX_COMMITS`` a round);
2. **reveal** — after the window, the phone sends the ``entropy`` itself; it must hash to a commitment. Nobody can
   commit any more, so nobody can choose a contribution after seeing another one;
3. **seal** — at the round's first press the revealed contributions are mixed into the key **in the order they were
   committed** (``ejection_entropy`` events, ``press`` 0), and every commitment not revealed is recorded as
   ``ejection_entropy_withheld``: withholding is the one choice left to a contributor (use the mix or not), and it
   is on the record for the phones and ``verify`` to show.

A plain ``entropy`` without ``at`` is a journal written before this protocol (replayed as it was then: mixed in at
once); the daemon stamps ``at`` on every command it receives, so no sender can take that path.

Example::

    >>> import hashlib
    >>> window = new_window()
    >>> e = "0123456789abcdef" * 2
    >>> window, event = commit(window, hashlib.sha256(e.encode()).hexdigest(), "phone-1", at=1000)
    >>> event["client"], event["reveal_after_ms"]
    ('phone-1', 500)
    >>> window = reveal(window, e, at=1600)[0]
    >>> [c["entropy"] == e for c in window["commits"]]
    [True]
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from unolauncher.rules.ejection import ENTROPY_PATTERN
from unolauncher.rules.refusal import refuse

COMMIT_WINDOW_MS = 500  # commitments are taken this long after a round's first one; reveals only after it
MAX_COMMITS = 64  # per round: a table of phones needs a handful
MAX_PER_CLIENT = 2  # per client id per round: one flooding client cannot use the round's room up by itself
HASH_PATTERN = re.compile(r"[0-9a-f]{64}")
CLIENT_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,40}")


def new_window() -> dict[str, Any]:
    """A round's entropy window, before anyone committed: ``first_at`` (the first commitment's ``at``),
    ``commits`` (``hash``, ``client``, ``entropy`` once revealed) in the order they came, ``sealed``."""
    return {"first_at": None, "commits": [], "sealed": False}


def commit(window: dict[str, Any], digest: Any, client: Any, at: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Take a commitment (``digest`` = sha256 hex of the entropy to come); returns the new window and the event's
    fields. Refused when the window is closed, the hash or client id is malformed, or the room is used up."""
    if type(digest) is not str or HASH_PATTERN.fullmatch(digest) is None:
        refuse("bad_field", "hash must be the sha256 of your entropy: 64 lowercase hexadecimal characters.")
    if type(client) is not str or CLIENT_PATTERN.fullmatch(client) is None:
        refuse("bad_field", "client must be 1 to 40 letters, digits, '-' or '_' (a random id the phone picked).")
    if window["sealed"]:
        refuse("entropy_window_closed", "This round's presses have started; send entropy for the next round.")
    first = window["first_at"]
    if first is not None and at - first >= COMMIT_WINDOW_MS:
        refuse("entropy_window_closed", "This round's entropy commitments are closed; reveals are being taken now.")
    commits = window["commits"]
    if any(c["hash"] == digest for c in commits):
        refuse("bad_field", "That entropy hash is committed already; commit fresh entropy.")
    if sum(c["client"] == client for c in commits) >= MAX_PER_CLIENT:
        refuse("too_much_entropy", f"Client {client} has committed {MAX_PER_CLIENT} entropy contributions this round.")
    if len(commits) >= MAX_COMMITS:
        refuse("too_much_entropy", f"This round already has {MAX_COMMITS} entropy commitments.")
    window = {
        **window,
        "first_at": at if first is None else first,
        "commits": [*commits, {"hash": digest, "client": client, "entropy": None}],
    }
    return window, {"hash": digest, "client": client, "reveal_after_ms": COMMIT_WINDOW_MS}


def reveal(window: dict[str, Any], entropy: Any, at: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Take a reveal: ``entropy`` must hash to a commitment of this round, after the commit window."""
    if type(entropy) is not str or ENTROPY_PATTERN.fullmatch(entropy) is None:
        refuse("bad_field", "entropy must be 16 to 128 characters of hex or base64 text.")
    digest = hashlib.sha256(entropy.encode()).hexdigest()
    found = next((i for i, c in enumerate(window["commits"]) if c["hash"] == digest), None)
    if found is None:
        refuse(
            "entropy_not_committed",
            "That entropy was not committed this round: send its sha256 as hash first, then the entropy.",
        )
    if window["sealed"]:
        refuse("entropy_window_closed", "This round's presses have started; its entropy was sealed without yours.")
    if at - window["first_at"] < COMMIT_WINDOW_MS:
        refuse("entropy_too_early", f"Reveal after the {COMMIT_WINDOW_MS} ms commit window; send it again shortly.")
    commits = list(window["commits"])
    if commits[found]["entropy"] is not None:
        refuse("bad_field", "That entropy is revealed already.")
    commits[found] = {**commits[found], "entropy": entropy}
    return {**window, "commits": commits}, {"hash": digest, "client": commits[found]["client"]}


def seal(window: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
    """Close the window (the first press): the revealed contributions in commit order, and the event fields
    (``ejection_entropy`` with ``entropy``, or ``ejection_entropy_withheld``) per commitment."""
    used: list[str] = []
    fields: list[dict[str, Any]] = []
    for c in window["commits"]:
        if c["entropy"] is not None:
            used.append(c["entropy"])
            entropy = {"entropy": c["entropy"], "hash": c["hash"], "client": c["client"]}
            fields.append({"type": "ejection_entropy", **entropy})
        else:
            fields.append({"type": "ejection_entropy_withheld", "hash": c["hash"], "client": c["client"]})
    return {**window, "sealed": True}, used, fields
