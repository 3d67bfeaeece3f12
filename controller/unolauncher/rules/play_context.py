"""What a validated play hands to a house rule's ``effect`` hook (``house_rules/``): one small immutable object, so
that every override has the same short signature, ``effect(ref, play, events)``, and a new fact about a play is one
field here, not a parameter added to every override.

It is built only in games that play a house rule: the rule sets' own effects (``attack.py``, ``mario_kart.py``)
run for every action card and Wild and take plain arguments, since building a frozen dataclass costs about as much
as the rest of such a play's effect (docs/performance.md, "The house rules' play context").

Example::

    >>> play = PlayContext(seat=0, card="red 7", face="7", action="swap", target=1)
    >>> play.out, play.prev_color
    (False, None)
    >>> play.seat = 2
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'seat'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class PlayContext:
    """One validated play, as a house rule's effect sees it (the card has left the hand for the discard pile).

    ``seat``: who played; ``card``/``face``: what; ``action``: the face's action in this game (``""`` for none,
    ``actions.py``); ``target``: the seat the play names, ``-1`` for none; ``out``: its player went out with it;
    ``prev_color``: the colour in force before the play (a Wild Draw Four's challenge is judged on it, MK-14);
    ``turned``: the Item Box's turned card reported in table mode (MK-07); ``cmd``: the command, for the fields an
    effect reads itself (an Item Box's ``color``/``target``). Effects read it and never change it.
    """

    seat: int
    card: str
    face: str
    action: str = ""
    target: int = -1
    out: bool = False
    prev_color: str | None = None
    turned: str | None = None
    cmd: dict[str, Any] = field(default_factory=dict, compare=False)
