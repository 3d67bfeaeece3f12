"""House rules: per-game options, default off, that give faces new actions (docs/rules.md, "House rules").

``seven_zero`` (HR-70): a 7 swaps the player's hand with a chosen player's (action ``swap``, the play names a
``target``); a 0 passes every hand to the next player along the direction of play (action ``rotate``). Whoever
plays their last card on a 7 or 0 goes out: nothing is swapped or passed. A hand that changes owner loses its UNO
call (as with Trade Hands, ATK-10); a player left with one card by the swap can be caught until the next player
starts, as after any play.

``jump_in`` (HR-JI): a player holding the card identical to the top of the discard pile (a coloured card: same
colour and face) may play it out of turn, when nothing is pending, no hits are owed, no Skip/Reverse chain is on and
the current player has not drawn; play then goes on from the jumper, as if it had been their turn (the players
between lose their turn). ``legal_moves`` lists such a play for every other player who holds the card.

A house rule written as a module of ``house_rules/`` (the way to add one: docs/extending.md) touches none of this
file: the referee's handlers, ``legal_moves`` and the bots call its hooks through ``TurnOrder._house_*``
(``turns.py``, the base every handler's mixin shares). ``seven_zero`` and ``jump_in``, the first two, are written
here directly:

A house rule is its option in ``options.py`` (``optional=True``: games without it keep their JSON), its actions in
``actions.py`` and here: :func:`house_actions` gives the faces their actions, :meth:`HouseRules._house_effect`
applies them; ``play.py`` calls both, the fast-path table and ``legal_moves`` follow from the action table.

Example::

    >>> actions = {"skip": "skip"}
    >>> house_actions({"seven_zero": True}, actions)
    >>> actions["7"], actions["0"]
    ('swap', 'rotate')
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.house_rules import active
from unolauncher.rules.refusal import Event
from unolauncher.rules.turns import TurnOrder

HOUSE_ACTIONS = frozenset({"swap", "rotate"})


def house_actions(options: dict[str, Any], actions: dict[str, str]) -> None:
    """Give faces the actions of the house rules ``options`` switch on (in place)."""
    if options.get("seven_zero"):
        actions["7"] = "swap"
        actions["0"] = "rotate"
    for rule in active(options):  # the modules of house_rules/
        actions.update(rule.faces)


class HouseRules(TurnOrder):
    """The effects of the house rules' actions, and who may play out of turn."""

    def _may_jump_in(self, seat: int, card: Any) -> bool:
        """``jump_in``: may ``seat``, whose turn it is not, play ``card`` now? (Nothing is changed: the play's other
        checks follow, and the turn passes from ``seat`` when it is applied.)"""
        s = self._s
        if not s.options.get("jump_in") or seat == s.current or type(card) is not str:
            return False
        if s.pending is not None or s.owed or s.chain or s.drawn is not None or s.drew or s.house:
            return False
        if not s.discard or card != s.discard[-1] or card.startswith("wild"):
            return False
        return card in s.hands[seat] if s.mode == "full" else s.table_counts[seat] > 0

    def _house_effect(self, seat: int, action: str, target: int, out: bool, events: list[Event]) -> None:
        """A played 7 (``swap``) or 0 (``rotate``) under ``seven_zero``; then the next player's turn."""
        s = self._s
        if out:
            return  # the player went out: nothing to swap or pass
        if action == "swap":
            self._swap(seat, target)
            s.declared[seat] = s.declared[target] = False
            events.append({"type": "traded", "player": s.players[seat], "target": s.players[target]})
        else:
            n = len(s.players)
            hands: list[Any] = s.hands if s.mode == "full" else s.table_counts
            # Every hand moves one seat along the direction: seat i gets the hand of the seat before it.
            hands[:] = [hands[(i - s.direction) % n] for i in range(n)]
            s.declared = [False] * n
            events.append({"type": "rotated", "direction": s.direction})
        # ATK-08: after a Skip/Reverse chain the skips count, as for any card that ends it (_pass_turn ends it).
        self._pass_turn(seat, s.chain_skips if s.chain else 0, events)

    def _swap(self, seat: int, target: int) -> None:
        s = self._s
        if s.mode == "full":
            s.hands[seat], s.hands[target] = s.hands[target], s.hands[seat]
        else:
            s.table_counts[seat], s.table_counts[target] = s.table_counts[target], s.table_counts[seat]
