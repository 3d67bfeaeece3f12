"""The ``seven_zero`` house rule (docs/rules.md, "HR-70 seven_zero"), every rule set.

A 7 swaps the player's hand with a chosen player's (action ``swap``: the play names a ``target``, as
``actions.py``'s table says, so the referee asks for one, ``legal_moves`` lists one play per other player and the
dashboard's picker asks); a 0 passes every hand to the next player along the direction of play (action
``rotate``). Whoever plays their last card on a 7 or 0 goes out: nothing is swapped or passed. A hand that changes
owner loses its UNO call (as with Trade Hands, ATK-10); a player left with one card by the swap can be caught until
the next player starts, as after any play. In table mode the hand counts move.

The rule keeps nothing between commands (no ``house`` entry): its faces and actions are declared, and its
``effect`` applies them.

Example::

    >>> from collections import Counter
    >>> from unolauncher.rules.cards import DECKS
    >>> from unolauncher.rules.referee import Referee
    >>> ref = Referee()
    >>> hands = {"ann": ["red 7", "blue 1"], "bob": ["green 1", "green 2", "green 3"]}
    >>> stock = sorted((Counter(DECKS["classic"]) - Counter(["red 5", *sum(hands.values(), [])])).elements())
    >>> _ = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"],
    ...                 "options": {"seven_zero": True},
    ...                 "deal": {"dealer": "bob", "hands": hands, "starter": "red 5", "stock": stock}})
    >>> [e["type"] for e in ref.handle({"type": "play", "player": "ann", "card": "red 7", "target": "bob"})]
    ['played', 'traded', 'turn']
    >>> ref.public_state()["hands"]
    {'ann': 3, 'bob': 1}
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from unolauncher.rules.checks import Action, Option, boolean
from unolauncher.rules.house_rules import HouseRule
from unolauncher.rules.play_context import PlayContext
from unolauncher.rules.refusal import Event

SWAP, ROTATE = "swap", "rotate"


class SevenZero(HouseRule):
    """HR-70: a 7 swaps hands with a chosen player, a 0 passes every hand along the direction of play."""

    name = "seven_zero"
    options = (
        Option("seven_zero", False, boolean, "HR-70 house rule: a 7 swaps hands with a chosen player, a 0 passes every "
               "hand along the direction of play", optional=True, setup="seven_zero"),
    )  # fmt: skip
    faces = MappingProxyType({"7": SWAP, "0": ROTATE})
    actions = MappingProxyType(
        {
            SWAP: Action(target=True, quick=False, doc="HR-70 (seven_zero): a 7 swaps hands with a chosen player"),
            ROTATE: Action(doc="HR-70 (seven_zero): a 0 passes every hand along the direction of play"),
        }
    )

    def effect(self, ref: Any, play: PlayContext, events: list[Event]) -> bool:
        """A played 7 (``swap``) or 0 (``rotate``); then the next player's turn."""
        if play.action not in (SWAP, ROTATE):
            return False
        s = ref._s
        seat = play.seat
        if play.out:
            return True  # the player went out: nothing to swap or pass
        hands: list[Any] = s.hands if s.mode == "full" else s.table_counts
        if play.action == SWAP:
            target = play.target
            hands[seat], hands[target] = hands[target], hands[seat]
            s.declared[seat] = s.declared[target] = False
            events.append({"type": "traded", "player": s.players[seat], "target": s.players[target]})
        else:
            n = len(s.players)
            # Every hand moves one seat along the direction: seat i gets the hand of the seat before it.
            hands[:] = [hands[(i - s.direction) % n] for i in range(n)]
            s.declared = [False] * n
            events.append({"type": "rotated", "direction": s.direction})
        # ATK-08: after a Skip/Reverse chain the skips count, as for any card that ends it (_pass_turn ends it).
        ref._pass_turn(seat, s.chain_skips if s.chain else 0, events)
        return True


RULE = SevenZero()
