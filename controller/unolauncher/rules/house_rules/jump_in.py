"""The ``jump_in`` house rule (docs/rules.md, "HR-JI jump_in"), every rule set.

A player holding the card identical to the top of the discard pile (a coloured card: same colour and face, never a
Wild) may play it out of turn, when nothing is pending, no hits are owed, no Skip/Reverse chain is on, the current
player has not drawn and no other house rule holds something open (a stack); play then goes on from the jumper, as
if it had been their turn (the players between lose their turn): the play's usual checks and effects follow, from
the jumper's seat. ``legal_moves`` lists such a play for every other player who holds the card (:meth:`plays`).

The rule keeps nothing between commands (no ``house`` entry) and gives no face an action: two hooks, ``may_play``
and ``plays``.

Example::

    >>> from collections import Counter
    >>> from unolauncher.rules.cards import DECKS
    >>> from unolauncher.rules.referee import Referee
    >>> ref = Referee()
    >>> hands = {"ann": ["blue 1", "green 2"], "bob": ["red 6", "red 1"], "cy": ["yellow 1", "red 5"]}
    >>> stock = sorted((Counter(DECKS["classic"]) - Counter(["red 5", *sum(hands.values(), [])])).elements())
    >>> _ = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob", "cy"],
    ...                 "options": {"jump_in": True},
    ...                 "deal": {"dealer": "cy", "hands": hands, "starter": "red 5", "stock": stock}})
    >>> ref.public_state()["current"], [m["card"] for m in ref.legal_moves("cy") if m["type"] == "play"]
    ('ann', ['red 5'])
    >>> ref.handle({"type": "play", "player": "cy", "card": "red 5"})[-1]  # play goes on from cy
    {'type': 'turn', 'player': 'ann'}
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.checks import Option, boolean
from unolauncher.rules.house_rules import HouseRule


class JumpIn(HouseRule):
    """HR-JI: an identical card played out of turn."""

    name = "jump_in"
    options = (
        Option("jump_in", False, boolean, "HR-JI house rule: a player holding the card identical to the top of the "
               "discard pile may play it out of turn; play goes on from them", optional=True, setup="jump_in"),
    )  # fmt: skip

    def may_play(self, ref: Any, seat: int, card: str) -> bool:
        """May ``seat``, whose turn it is not, play ``card`` now? (Nothing is changed: the play's other checks
        follow, and the turn passes from ``seat`` when it is applied.)"""
        s = ref._s
        if seat == s.current or s.pending is not None or s.owed or s.chain or s.drawn is not None or s.drew:
            return False
        if s.house:  # another house rule holds something open (HR-ST: nobody jumps in on an open stack)
            return False
        if not s.discard or card != s.discard[-1] or card.startswith("wild"):
            return False
        return card in s.hands[seat] if s.mode == "full" else s.table_counts[seat] > 0

    def plays(self, ref: Any, seat: int) -> list[str]:
        """The top card, when ``seat`` holds it and may jump in with it now (never a Trade Hands as the last card,
        ATK-10: ``legal_moves`` lists only what the play's checks accept)."""
        s = ref._s
        if not s.discard or not self.may_play(ref, seat, s.discard[-1]):
            return []
        top: list[str] = [s.discard[-1]]
        return ref._not_last(top) if len(s.hands[seat]) == 1 else top


RULE = JumpIn()
