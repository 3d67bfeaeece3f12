"""House rules: per-game options, default off (docs/rules.md, "House rules"). Each is a module of ``house_rules/``
(``jump_in``, ``seven_zero``, ``stacking``: the only way to add one, docs/extending.md); this module is the one
dispatcher that is not a hook call.

:func:`house_actions` gives faces the actions of the house rules a game switches on (``play.py``'s face -> action
map, from which the fast-path table, ``legal_moves`` and the bots follow; ``daemon/catalogue.py`` tells the
dashboard). The referee's handlers, ``legal_moves`` and the bots call the rules' other hooks through
``TurnOrder._house_*`` (``turns.py``, the base every handler's mixin shares), only in games that switch a rule on.

Example::

    >>> actions = {"skip": "skip"}
    >>> house_actions({"seven_zero": True}, actions)
    >>> actions["7"], actions["0"]
    ('swap', 'rotate')
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.house_rules import active


def house_actions(options: dict[str, Any], actions: dict[str, str]) -> None:
    """Give faces the actions of the house rules ``options`` switch on (in place)."""
    for rule in active(options):
        actions.update(rule.faces)
