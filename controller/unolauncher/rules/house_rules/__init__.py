"""House rules written as modules of their own: each module here declares one rule, ``RULE``, a :class:`HouseRule`
with its options and the hooks it needs. Nothing else names it: the option registry (``options.py``) adds its
options, the referee (through ``TurnOrder._house_*``, ``turns.py``) calls its hooks in every game that
switches one of them on, and ``legal_moves``, the bots, the fast paths and the public state follow from the hooks.

What a rule declares: ``name``, ``options``, and for a rule that gives faces new actions (a 7 that swaps) ``faces``
(face -> action while the rule is on) and ``actions`` (those actions' facts: names a target, may be last, fast-path
safe; added to ``actions.py``'s table, so the referee's checks, ``legal_moves``, the bots and the dashboard's
picker follow).

The hooks (each a no-op unless a rule overrides it; ``ref`` is the referee, ``ref._s`` its state):

- :meth:`HouseRule.may_play`: ``seat`` may play ``card`` now although the turn checks would refuse it (a pending
  answer, hits owed, not their turn) — an answer with a card, out of order;
- :meth:`HouseRule.refusal`: ``(code, message)`` if the rule forbids this play now (after the usual checks);
- :meth:`HouseRule.plays`: the cards ``seat`` may play out of order now (``legal_moves`` lists them);
- :meth:`HouseRule.effect`: take over a validated play's card effect (return ``True``); ``play`` is the play, a
  :class:`~unolauncher.rules.play_context.PlayContext` (who, which card and action, its target, whether its player
  went out, the colour in force before it: a Wild Draw Four's challenge is judged on that, MK-14);
- :meth:`HouseRule.no_play`: take over (``True``) or just see (``False``) a ``draw``, ``hit``, ``accept`` or
  ``challenge`` its handler has validated;
- :meth:`HouseRule.banner`: how the phone's banner words the rule's open ``house`` entry (``rules/house_banner.py``).

What a rule keeps between commands goes in the state's ``house`` dict under the rule's own key: absent from the
state's JSON while empty (journal snapshots and golden replays keep their bytes), cleared at every round's start,
shown in the public state (``house``) while set. While it is set the fast paths step aside (every command takes the
checked path), jump-in waits, and the bots choose among ``legal_moves``.

Example::

    >>> all(isinstance(rule, HouseRule) and rule.options for rule in rules())
    True
    >>> active({})  # a game without house rule options plays none
    ()
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from unolauncher.rules.checks import Action, Option
from unolauncher.rules.house_banner import Banner
from unolauncher.rules.play_context import PlayContext
from unolauncher.rules.refusal import Event


class HouseRule:
    """One house rule: ``name`` (its ``house`` state key and docs/rules.md section), ``options`` (declared once,
    optional, default off) and the hooks the referee calls while one of its options is on."""

    name: str = ""
    options: tuple[Option, ...] = ()
    # The faces this rule gives an action while it is on (face -> action), and the facts of those actions
    # (action -> Action: added to actions.py's ACTIONS). A face with an action leaves the fast path's plain-card
    # branch and reaches the card effects, where ``effect`` takes it.
    faces: Mapping[str, str] = MappingProxyType({})
    actions: Mapping[str, Action] = MappingProxyType({})

    def on(self, options: dict[str, Any]) -> bool:
        """Whether a game with ``options`` plays this rule (any of its options set)."""
        return any(options.get(option.name) for option in self.options)

    def may_play(self, ref: Any, seat: int, card: str) -> bool:
        return False

    def refusal(self, ref: Any, seat: int, card: str) -> tuple[str, str] | None:
        return None

    def plays(self, ref: Any, seat: int) -> list[str]:
        return []

    def effect(self, ref: Any, play: PlayContext, events: list[Event]) -> bool:
        return False

    def no_play(self, ref: Any, seat: int, kind: str, cmd: dict[str, Any], events: list[Event]) -> bool:
        return False

    def banner(self) -> tuple[Banner, ...]:
        """The phone's banner while the rule's ``house`` entry is open: templates, the first that applies wins (the
        rule catalogue sends them; a rule with an entry and no banner leaves the usual turn banner)."""
        return ()


@cache
def rules() -> tuple[HouseRule, ...]:
    """Every house rule module's ``RULE``, by module name."""
    found = sorted(info.name for info in pkgutil.iter_modules(__path__))
    return tuple(importlib.import_module(f"{__name__}.{name}").RULE for name in found)


def active(options: dict[str, Any]) -> tuple[HouseRule, ...]:
    """The house rules a game with ``options`` plays."""
    return tuple(rule for rule in rules() if rule.on(options))


def house_rule_options() -> tuple[Option, ...]:
    """Every house rule module's options, for the option registry."""
    return tuple(option for rule in rules() for option in rule.options)


def house_rule_actions() -> dict[str, Action]:
    """Every house rule module's card actions, for the action table (``actions.py``)."""
    return {name: facts for rule in rules() for name, facts in rule.actions.items()}
