"""A press whose run brought no card out because it failed (a fault, a lost co-processor link, the lid or an
emergency stop, an empty magazine, a jam): ``hit_failed``, the hit stays owed — and the press's plan with it. The
referee records that with a journalled ``fire_failed`` command, so that the player's next press fires the same plan
(``ejection_carry``; a ``press`` with ``retry``) and stopping a fire whose plan looked bad gains nothing
(docs/fairness.md, "Aborted and undone presses").

Example (a referee with no press to carry: the failure alone is recorded)::

    >>> from unolauncher.rules.referee import Referee
    >>> record = failed_fire_record(Referee(), "ann", "stopped", "the lid opened")
    >>> [e["type"] for e in record.events], record.command is None
    (['hit_failed'], True)
"""

from __future__ import annotations

import logging
from typing import Any

from unolauncher.daemon.interfaces import Record

log = logging.getLogger(__name__)


def failed_fire_record(referee: Any, player: str | None, outcome: str, detail: str) -> Record:
    """What to journal for a failed run (call under the table's lock: it changes the referee)."""
    failed: dict[str, Any] = {
        "type": "hit_failed",
        "player": player,
        "reason": outcome,
        "message": f"The launcher's run ended without a card ({detail or outcome}); "
        + ("press again." if player else "nothing was owed."),
    }
    if player is None:
        return Record(None, [failed], origin="launcher")
    command = {"type": "fire_failed", "player": player, "reason": outcome[:24]}
    try:
        events = referee.handle(command)
    except Exception:  # the referee promises never to raise; the failure is recorded all the same
        log.exception("referee raised on fire_failed")
        events = []
    if not events or events[0].get("type") == "rejected":
        return Record(None, [failed], origin="launcher")
    failed["carried"] = events[0]["index"]  # the plan that stays owed: the player's next press fires it
    return Record(command, [failed, *events], public=referee.public_state(), origin="launcher")
