"""What a validated play hands to the card effects: one small immutable object, so that every effect (the rule
sets' in ``attack.py`` and ``mario_kart.py``, and every house rule's ``effect`` hook in ``house_rules/``) has the
same short signature, ``(play, events)``, and a new fact about a play is one field here, not a parameter added to
every override.

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
    """One validated play, as its card effect sees it (the play has been applied to the hand and the discard pile).

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
