"""House rules: per-game options, default off (docs/rules.md, "House rules"); each is a module of ``house_rules/``
(``seven_zero``, ``stacking``) except ``jump_in``, written here directly.

:func:`house_actions` gives faces the actions of the house rules a game switches on (``play.py``'s face -> action
map: the fast-path table and ``legal_moves`` follow). The referee's handlers, ``legal_moves`` and the bots call
the rules' hooks through ``TurnOrder._house_*`` (``turns.py``, the base every handler's mixin shares).

``jump_in`` (HR-JI): a player holding the card identical to the top of the discard pile (a coloured card: same
colour and face) may play it out of turn, when nothing is pending, no hits are owed, no Skip/Reverse chain is on and
the current player has not drawn; play then goes on from the jumper, as if it had been their turn (the players
between lose their turn). ``legal_moves`` lists such a play for every other player who holds the card.

Example::

    >>> actions = {"skip": "skip"}
    >>> house_actions({"seven_zero": True}, actions)
    >>> actions["7"], actions["0"]
    ('swap', 'rotate')
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.house_rules import active
from unolauncher.rules.turns import TurnOrder


def house_actions(options: dict[str, Any], actions: dict[str, str]) -> None:
    """Give faces the actions of the house rules ``options`` switch on (in place)."""
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
