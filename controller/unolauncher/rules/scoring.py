"""Round end and scoring (ATK-19/20, MK-16/17): a full-mode round is scored from the hands at once; a table-mode
round waits for the ``score`` command (the players report the points left in their hands). The round winner
collects everyone else's points; reaching the target score ends the game. ``round_ended`` also reveals the secret
behind the round's launcher commitment (``round_started``), so the round can be audited at once.
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.refusal import Event, refuse, short_repr
from unolauncher.rules.state import BETWEEN, OVER, SCORING
from unolauncher.rules.turns import TurnOrder
from unolauncher.rules.validation import is_int


class Scoring(TurnOrder):
    """Ending a round, scoring it, the ``score`` command."""

    def _cmd_score(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._s
        if s.phase != SCORING:
            refuse("nothing_to_score", "Scores are reported only at the end of a table-mode round.")
        hands = cmd.get("hands")
        if type(hands) is not dict:
            refuse("bad_field", "hands must be an object {player: points left in hand}.")
        for name, points in hands.items():
            if name not in self._seats:
                refuse("unknown_player", f"There is no player called {short_repr(name)} at this table.")
            if not is_int(points) or not 0 <= points <= 10_000:
                refuse("bad_field", "Each hand's points must be a whole number from 0 to 10000.")
        missing = [n for i, n in enumerate(s.players) if i != s.round_winner and n not in hands]
        if missing:
            refuse("missing_field", f"The points of {', '.join(missing)} are missing.")
        if hands.get(s.players[s.round_winner], 0) != 0:
            refuse("bad_field", "The round winner has no cards left, so their points must be 0.")
        events: list[Event] = []
        self._apply_score({s.players[i]: hands.get(s.players[i], 0) for i in range(len(s.players))}, events)
        return events

    def _end_round(self, events: list[Event]) -> None:
        s = self._s
        s.current = -1
        s.chain, s.chain_skips = False, 0
        s.uno_exposed = -1
        if s.mode == "full":
            values = self._rs.values
            hands = {name: sum(values[c] for c in s.hands[i]) for i, name in enumerate(s.players)}
            self._apply_score(hands, events)
        else:
            s.phase = SCORING
            s.pending = {"kind": "score", "player": s.round_winner}
            events.append({"type": "pending", "kind": "score", "player": s.players[s.round_winner]})

    def _apply_score(self, hands: dict[str, int], events: list[Event]) -> None:
        s = self._s
        winner = s.round_winner
        points = sum(v for name, v in hands.items() if name != s.players[winner])
        s.scores[winner] += points
        s.pending = None
        ended: Event = {
            "type": "round_ended",
            "round": s.round,
            "winner": s.players[winner],
            "points": points,
            "hands": hands,
            "scores": {name: s.scores[i] for i, name in enumerate(s.players)},
        }
        reveal = self._stream.close()
        if reveal is not None:
            ended.update(reveal)  # commitment, secret, presses
        events.append(ended)
        if s.scores[winner] >= s.options["target_score"]:
            s.phase = OVER
            s.winner = winner
            over: Event = {
                "type": "game_over",
                "winner": s.players[winner],
                "scores": {name: s.scores[i] for i, name in enumerate(s.players)},
            }
            events.append(over)
        else:
            s.phase = BETWEEN
