"""What each card *action* asks of a play, written once: whether it names another player, whether it may be a
player's last card, whether the fast path may take it, and whether a Wild with it names a colour.

A game maps each face to an action (``CardPlay._action_map``: in UNO Attack ``hit-2`` -> ``hit``, a Wild
Customizable -> the option's action; in Mario Kart and classic each action face is its own action; ``""`` is no
action: a number card, a plain Wild). The referee's ``play`` checks, the fast-path table (``play.quick_table``),
``legal_moves``/``play_choices`` and the bots read these facts from :data:`ACTIONS`, and the daemon sends the table
to the dashboard (``daemon/catalogue.py``: the picker asks for a target exactly when the referee wants one). A
house rule of ``house_rules/`` that gives faces new actions declares them in its module (``RULE.actions``); they
are added here.
``tests/rules/test_actions_table.py`` checks every action a game can produce is here and that the facts match
what the referee accepts.

Example::

    >>> ACTIONS["trade-hands"].target, ACTIONS["trade-hands"].last
    (True, False)
    >>> names_target("hit")
    False
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.checks import Action
from unolauncher.rules.house_rules import house_rule_actions

__all__ = ["ACTIONS", "Action", "names_target", "to_json"]


ACTIONS: dict[str, Action] = {
    "": Action(doc="no action: a number card or a plain Wild"),
    "wild": Action(doc="ATK-16: a Wild Customizable defined as a plain Wild"),
    "skip": Action(doc="the next player is skipped (ATK-08 chain in UNO Attack)"),
    "reverse": Action(doc="the direction changes"),
    "hit": Action(doc="ATK-11/12: the next player hits the launcher"),
    "hit-fire": Action(doc="ATK-14: the next player hits until a card comes out"),
    "all-hit": Action(doc="ATK-15: every other player hits"),
    "attack": Action(target=True, quick=False, doc="ATK-13: a chosen player hits"),
    "trade-hands": Action(target=True, last=False, quick=False, doc="ATK-10: swap hands with a chosen player"),
    "discard-all": Action(quick=False, doc="ATK-09: the other cards of its colour go too (`discarded`)"),
    "draw-2": Action(doc="MK-06: the next player draws two"),
    "wild draw-4": Action(doc="MK-13: the next player draws four, or challenges"),
    "wild item-box": Action(quick=False, color=False, doc="MK-07: the turned card decides (`turned`)"),
    # The house rules that are modules of their own (house_rules/) declare the actions they give faces there.
    **house_rule_actions(),
}


def names_target(action: str) -> bool:
    """Whether a play of a card with ``action`` names another player."""
    return ACTIONS[action].target


def to_json() -> dict[str, dict[str, Any]]:
    """The table as the dashboard receives it (``{action: {target, last, color}}``)."""
    return {name: {"target": a.target, "last": a.last, "color": a.color} for name, a in ACTIONS.items()}
