"""Calling UNO and catching a player who did not (ATK-18, MK-15): ``uno`` (with two cards or fewer, so it can be
called before playing the second-to-last card) and ``catch`` (while the catch window is open: the caught player
hits twice at once in UNO Attack, draws two in Mario Kart and classic). The window itself opens in ``play.py`` and
closes in :meth:`~unolauncher.rules.turns.TurnOrder._close_exposure`.
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.attack import AttackRules
from unolauncher.rules.refusal import Event, refuse


class UnoCalls(AttackRules):
    """The uno and catch commands."""

    def _cmd_uno(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        seat = self._seat(cmd)
        if s.count(seat) > 2:
            refuse("uno_not_allowed", "UNO can be called only with two cards or fewer.")
        if s.declared[seat]:
            refuse("already_called", f"{s.players[seat]} has already called UNO.")
        s.declared[seat] = True
        if s.uno_exposed == seat:
            s.uno_exposed = -1
        return [{"type": "uno_called", "player": s.players[seat]}]

    def _cmd_catch(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        seat = self._seat(cmd)
        target = self._seat(cmd, "target")
        if target == seat:
            refuse("bad_target", "You cannot catch yourself; call uno instead.")
        if s.uno_exposed != target:
            refuse("nothing_to_catch", f"{s.players[target]} cannot be caught now.")
        s.uno_exposed = -1
        events: list[Event] = [{"type": "caught", "player": s.players[seat], "target": s.players[target]}]
        if self._rs.attack:  # ATK-18: the caught player hits twice, right away
            events.append({"type": "penalty", "player": s.players[target], "reason": "uno", "hits": 2})
            if not s.owed:
                s.resume = s.current
            self._add_owed(target, 2, False, events, front=True)
        else:  # MK-15
            events.append({"type": "penalty", "player": s.players[target], "reason": "uno", "cards": 2})
            self._draw(target, 2, events)
        return events
