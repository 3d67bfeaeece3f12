"""What the journal will number and what the outbox will publish: the two limits a damaged or forged journal reaches.

- ``seq`` stops at :data:`SEQ_MAX` (2^53 − 1, the largest integer a JSON consumer such as the dashboard's JavaScript
  reads exactly; SQLite's own INTEGER ends at 2^63 − 1). A journal whose numbers are used up (a million events a
  second would take 285 years: only a forged journal gets there) refuses every write with one sentence that says what
  to do, and the daemon goes on answering queries; nothing already journalled changes.
- An event body over :data:`MAX_EVENT_BYTES` cannot pass the brokers (the embedded broker and the shipped mosquitto
  configuration cut packets at 256 KiB, and the embedded one drops the sender: retried for ever, the daemon was deaf
  for good). It stays in the journal as written; MQTT (the outbox, ``resend``) gets a stand-in with the same ``seq``
  and ``ts``, ``type`` ``event_too_large``, the original type and size, so that no subscriber sees a gap.

Example::

    >>> stand_in_body(7, '{"seq":7,"ts":1.5,"type":"note","x":"..."}')[:60]
    '{"seq":7,"ts":1.5,"type":"note","x":"..."}'
    >>> import json; json.loads(stand_in_body(8, '{"seq":8,"ts":2.0,"type":"big","x":"' + "y" * 300_000 + '"}'))["type"]
    'event_too_large'
"""

from __future__ import annotations

import json
from typing import Any

from unolauncher import strict_json
from unolauncher.errors import UnolauncherError

SEQ_MAX = 2**53 - 1
MAX_EVENT_BYTES = 240 * 1024  # under the brokers' 256 KiB packet cap, with room for the topic and the header


class SeqExhausted(UnolauncherError, RuntimeError):
    """The journal's event numbers are used up (see the module docstring)."""


def check_seq(seq: int) -> None:
    """Raise :class:`SeqExhausted` if ``seq`` is past :data:`SEQ_MAX`."""
    if seq > SEQ_MAX:
        raise SeqExhausted(
            f"The journal's event numbers are used up (the next would be {seq}, past {SEQ_MAX}, the largest a "
            "JSON reader keeps exact); nothing was recorded: export what you want to keep, move journal.sqlite3 "
            "aside and restart for a fresh journal."
        )


def too_large(body: str) -> bool:
    # len() first: the press → event path pays nothing for the usual few hundred bytes
    return len(body) * 4 > MAX_EVENT_BYTES and len(body.encode("utf-8", "surrogatepass")) > MAX_EVENT_BYTES


def stand_in(seq: int, body: str) -> dict[str, Any]:
    """The event published in place of ``body`` (journalled as ``seq``) when it is too large for the brokers."""
    head: dict[str, Any] = {}
    try:
        parsed = json.loads(body)
        head = parsed if isinstance(parsed, dict) else {}
    except (ValueError, RecursionError):
        pass
    ts = head.get("ts")
    kind = head.get("type")
    return {
        "type": "event_too_large",
        "seq": seq,
        "ts": ts if isinstance(ts, int | float) and not isinstance(ts, bool) else 0,
        "original_type": kind if isinstance(kind, str) and len(kind) <= 64 else None,
        "bytes": len(body.encode("utf-8", "surrogatepass")),
        "message": f"event {seq} is too large to publish; it is in the journal (unolauncher export)",
    }


def stand_in_body(seq: int, body: str) -> str:
    """``body`` itself, or the stand-in's text when it is too large for the brokers."""
    return strict_json.dumps(stand_in(seq, body)) if too_large(body) else body
