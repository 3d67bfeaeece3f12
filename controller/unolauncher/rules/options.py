"""The game options (``new_game.options``), each declared once: name, check, default, the rule sets it means something
in, whether it is *optional*, the dashboard's setup control and its doc line.

Everything else is made from :data:`REGISTRY`: the defaults a game starts with (``state.DEFAULT_OPTIONS``), the
command schema's ``options`` table (``schema.OPTIONS``), ``validation.validate_options`` (each option's check and
refinement, then the checks across options) and the options table in ``docs/rules.md``
(:func:`docs_table`; ``tests/rules/test_options_registry.py`` checks the page holds it, and that every option is
refused when wrong, accepted when right, survives a snapshot and is offered where it says).

*Optional* options are left out of a game's options when the command does not give them, so that a game without
them keeps its exact JSON: journal snapshots of older versions, and the golden replays in ``tests/rules/golden``,
stay byte-identical. **A new option is optional** (``optional=True``); a non-optional one rewrites every golden file.
Code reads an optional option with ``options.get(name, default)``. A house rule written as a module of
``house_rules/`` declares its options there (its ``RULE.options``); they are added to :data:`REGISTRY` here.

Example::

    >>> OPTIONS_BY_NAME["hand_size"].default
    7
    >>> sorted(defaults())[:3]
    ['chain_after_skip_reverse', 'customizable', 'ejection_custom']
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.checks import (
    MAX_CARDS,
    MAX_LABEL,
    Check,
    Option,
    array,
    boolean,
    fields,
    integer,
    label,
    mapping,
    number,
    text,
)
from unolauncher.rules.ejection import MS_PER_CARD_RANGE
from unolauncher.rules.house_rules import house_rule_options
from unolauncher.rules.refusal import refuse

ATTACK_RULESETS = ("attack", "attack-original")


# ATK-16: what a Wild Customizable may do (rules.md lists each one's effect).
CUSTOM_ACTIONS = ("wild", "hit", "attack", "all-hit", "hit-fire", "skip", "reverse", "trade-hands")
CUSTOMIZABLE: dict[str, Check] = {"action": text(), "count": integer(1, 10), "label": label(MAX_LABEL)}
# The table of the ejection model's ``custom`` preset (rules/ejection.py ``params_from_table`` reads the same keys).
EJECTION_CUSTOM: dict[str, Check] = {
    "miss_hazard": array(number(0, 1), 64),
    "hit_repeat": array(number(0, 1), 64),
    "cards": mapping(text(2), number(0, 1_000_000), 30),
    "suspense_chance": number(0, 1),
    "suspense_ms": array(integer(0, 5000), 2),
    "sequence": array(integer(1, 100_000), 1000),
    "period": integer(1, 100_000),
}


def refine_customizable(custom: Any) -> dict[str, Any] | None:
    """ATK-16: ``{"action": "hit", "count": 3}``, ``{"action": "all-hit"}``, ``{"action": "skip"}``, ...; a plain
    ``wild`` is kept as ``None``.

    >>> refine_customizable({"action": "hit", "count": 3})
    {'action': 'hit', 'count': 3}
    >>> refine_customizable({"action": "wild"}) is None
    True
    """
    if custom is None:
        return None
    if type(custom) is not dict or custom.get("action") not in CUSTOM_ACTIONS:
        refuse("bad_option", "customizable must be an object whose action is one of " + ", ".join(CUSTOM_ACTIONS) + ".")
    return None if custom["action"] == "wild" else dict(custom)


REGISTRY: tuple[Option, ...] = (
    Option("target_score", 500, integer(1, 1_000_000),
           "the game ends when a round winner's total reaches it (1–1,000,000)", setup="target_score"),
    Option("chain_after_skip_reverse", True, boolean, "ATK-08: after a Skip/Reverse the same player may play on",
           rulesets=ATTACK_RULESETS, setup="chain_after_skip_reverse"),
    Option("suggestion_penalty", False, boolean, "ATK-22: the `suggest` command costs the suggester 4 hits",
           rulesets=ATTACK_RULESETS, setup="suggestion_penalty"),
    Option("customizable", None, fields(CUSTOMIZABLE),
           "ATK-16: what a Wild Customizable does (format below); `null` = plain Wild",
           rulesets=("attack",), setup="customizable", refine=refine_customizable),
    Option("ejection_preset", "classic", text(),
           "preset of the seeded ejection model (`classic`, `gentle`, `brutal`, `sequence`, `custom`; see "
           "[ejection.md](ejection.md)) used when a `hit` carries no `cards`",
           rulesets=ATTACK_RULESETS, setup="preset"),
    Option("ejection_custom", None, fields(EJECTION_CUSTOM),
           "the table of the `custom` preset, passed to the ejection model as is (the daemon fills in its "
           "configured `[launcher.custom]`)", rulesets=ATTACK_RULESETS),
    Option("hand_size", 7, integer(1, MAX_CARDS), "cards dealt to each player (for short test games)"),
    Option("ejection_ms_per_card", None, integer(*MS_PER_CARD_RANGE),
           "the launcher's measured milliseconds per card (`unolauncher selftest --calibrate`); the daemon adds it",
           optional=True, rulesets=ATTACK_RULESETS),
    # The house rules (docs/rules.md "House rules"): each a module of house_rules/, declaring its options there
    # (optional, so games without them keep their exact JSON).
    *house_rule_options(),
)  # fmt: skip
OPTIONS_BY_NAME: dict[str, Option] = {option.name: option for option in REGISTRY}


def defaults() -> dict[str, Any]:
    """The options every game carries, with their defaults (the optional ones are left out)."""
    return {option.name: option.default for option in REGISTRY if not option.optional}


# Left out of the public state's ``options``: ``target_score`` has its own key there, and the ``custom`` preset's
# table (up to a thousand numbers) would ride along on every state message; ``game_started`` carries both.
NOT_IN_PUBLIC_STATE = frozenset({"target_score", "ejection_custom"})


def public_options(options: dict[str, Any]) -> dict[str, Any]:
    """The public state's ``options``: the game's options that differ from their defaults (the house rules it
    plays, a Wild Customizable's action...), so that a page loaded mid-game knows them without the game's
    ``game_started``. Empty for a game at its defaults, whose public state then has no ``options`` key (its JSON,
    and the golden replays', stay as they were).

    >>> public_options({"target_score": 150, "hand_size": 7, "seven_zero": True})
    {'seven_zero': True}
    """
    return {
        name: value
        for name, value in options.items()
        if name not in NOT_IN_PUBLIC_STATE and not (name in OPTIONS_BY_NAME and value == OPTIONS_BY_NAME[name].default)
    }


def checks() -> dict[str, Check]:
    """Option name -> its check: the command schema's ``options`` table."""
    return {option.name: option.check for option in REGISTRY}


def docs_table() -> str:
    """The options table of ``docs/rules.md`` (Markdown), one row per registered option.

    >>> docs_table().splitlines()[0]
    '| option | default | rule sets | meaning |'
    """
    rows = ["| option | default | rule sets | meaning |", "|---|---|---|---|"]
    for option in REGISTRY:
        default = "absent" if option.optional else _json(option.default)
        where = ", ".join(option.rulesets) or "all"
        rows.append(f"| `{option.name}` | {default} | {where} | {option.doc} |")
    return "\n".join(rows)


def _json(value: Any) -> str:
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"
