"""Validation of the fields of ``new_game`` and ``next_round``: options (ATK-08, ATK-16, ATK-22, the ejection
preset), the launcher rig (``launcher.script`` / ``launcher.seed``), the daemon's launcher ``secret`` and rigged
deals (MK-02 dealer, MK-03 no Wild Draw Four starter); plus the two field predicates every command handler uses.
Each check raises a :class:`~unolauncher.rules.refusal.Refusal` before the referee changes anything.

Example::

    >>> from unolauncher.rules.cards import RULESETS
    >>> validate_options({"target_score": 200}, RULESETS["classic"], 2)["target_score"]
    200
    >>> _validate_custom({"action": "hit", "count": 3})
    {'action': 'hit', 'count': 3}
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from unolauncher.rules.cards import COLOR_SET, Ruleset
from unolauncher.rules.checks import MAX_SCRIPT, fields, join_path
from unolauncher.rules.ejection import SECRET_PATTERN
from unolauncher.rules.ejection_models import model_for
from unolauncher.rules.options import CUSTOM_ACTIONS, EJECTION_CUSTOM, OPTIONS_BY_NAME, refine_customizable
from unolauncher.rules.refusal import refuse, short_repr
from unolauncher.rules.state import DEFAULT_OPTIONS

__all__ = ["CUSTOM_ACTIONS", "custom_table_problem", "validate_deal", "validate_launcher", "validate_options"]


def is_int(value: Any) -> bool:
    """A JSON whole number: an ``int`` but not a ``bool`` (``True`` is not a card count).

    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return type(value) is int


def is_color(value: Any) -> bool:
    """One of the four colours a Wild may name.

    >>> is_color("red"), is_color("Red"), is_color(None)
    (True, False, False)
    """
    return type(value) is str and value in COLOR_SET


def validate_options(options: Any, rs: Ruleset, players: int) -> dict[str, Any]:
    """``new_game``'s ``options`` checked against the rule set and the number of players, with every default
    filled in; refuses (:class:`~unolauncher.rules.refusal.Refusal`) naming the first bad option.

    Each option's own check and refinement come from the option registry (``options.py``); what is checked here
    is what spans options or needs the game (the hand size against the deck, the ejection model's configuration)."""
    if options is None:
        options = {}
    if type(options) is not dict:
        refuse("bad_option", "options must be an object.")
    merged = dict(DEFAULT_OPTIONS)
    for key, value in options.items():
        option = OPTIONS_BY_NAME.get(key) if type(key) is str else None
        if option is None:
            refuse("bad_option", f"Unknown option {short_repr(key)}.")
        if value is None and option.default is None:
            merged[key] = None  # null = the default (a plain Wild, no custom table)
            continue
        problem = option.check(value) if value is not None else option.check([])  # a null where a value is due
        if problem is not None:
            path, what, _ = join_path(key, problem)
            refuse("bad_option", f"{path} {what}.")
        merged[key] = option.refine(value) if option.refine is not None else value
    size = merged["hand_size"]
    if size * players + 1 > len(rs.deck):
        refuse("bad_option", "hand_size must be at least 1 and leave a card to start the discard pile.")
    try:
        model = model_for(merged)
        model.plan(model.start("0" * 64))
    except Exception as exc:
        detail = str(exc).rstrip(".") if isinstance(exc, ValueError) and str(exc) else ""
        if detail:
            refuse("bad_option", f"The ejection options cannot be used: {detail}.")
        refuse("bad_option", f"Unknown ejection preset {short_repr(merged['ejection_preset'])}.")
    return json.loads(json.dumps(merged))


def _validate_custom(custom: Any) -> dict[str, Any] | None:
    """ATK-16's Customizable option, as ``validate_options`` checks it (its shape, then its meaning)."""
    problem = OPTIONS_BY_NAME["customizable"].check(custom) if custom is not None else None
    if problem is not None:
        refuse("bad_option", f"customizable{'.' if problem.path else ''}{problem.path} {problem.what}.")
    return refine_customizable(custom)


def validate_launcher(launcher: Any, seed: int) -> tuple[list[int], int]:
    """``new_game``'s ``launcher`` table: (the scripted hit counts, the ejection seed, derived from the game's seed
    unless given); refuses naming the first bad field."""
    derived = random.Random(f"ejection/{seed}").getrandbits(63)
    if launcher is None:
        return [], derived
    if type(launcher) is not dict:
        refuse("bad_field", 'launcher must be an object like {"script": [0, 3, 1]}.')
    script = launcher.get("script", [])
    if type(script) is not list or len(script) > MAX_SCRIPT or any(not is_int(c) or not 0 <= c <= 200 for c in script):
        refuse("bad_field", "launcher.script must be a list of whole numbers from 0 to 200.")
    ejection_seed = launcher.get("seed", derived)
    if not is_int(ejection_seed) or not 0 <= ejection_seed < 2**63:
        refuse("bad_field", "launcher.seed must be a non-negative integer.")
    return list(script), ejection_seed


def validate_secret(cmd: dict[str, Any]) -> None:
    """A launcher ``secret`` (the daemon draws one for each commitment): 64 lowercase hexadecimal characters."""
    secret = cmd.get("secret")
    if secret is not None and (type(secret) is not str or SECRET_PATTERN.fullmatch(secret) is None):
        refuse("bad_field", "secret must be 64 lowercase hexadecimal characters.")


def validate_deal(deal: Any, rs: Ruleset, players: list[str], mode: Any, options: dict[str, Any]) -> None:
    """``new_game``/``next_round``'s ``deal`` (dealer, starter card, hand sizes): refuses naming the first bad field."""
    if deal is None:
        return
    if type(deal) is not dict:
        refuse("bad_deal", "deal must be an object.")
    if "dealer" in deal and deal["dealer"] not in players:
        refuse("bad_deal", "deal.dealer must be one of the players.")
    if mode == "table":
        hands = deal.get("hands")
        if hands is not None:
            if type(hands) is not dict or set(hands) != set(players):
                refuse("bad_deal", "In table mode deal.hands maps every player to a card count.")
            if any(not is_int(v) or not 0 < v <= len(rs.deck) for v in hands.values()):
                refuse("bad_deal", "In table mode each hand is a positive card count.")
            if sum(hands.values()) + 1 > len(rs.deck):
                refuse("bad_deal", "The hands hold more cards than the deck.")
        if "starter" in deal:
            _check_starter(deal["starter"], rs)
        return
    if "hands" not in deal:
        if set(deal) - {"dealer"}:
            refuse("bad_deal", "A full-mode deal needs hands, starter and stock (or only a dealer).")
        return
    hands, starter, stock = deal.get("hands"), deal.get("starter"), deal.get("stock")
    if type(hands) is not dict or set(hands) != set(players):
        refuse("bad_deal", "deal.hands must list the cards of every player.")
    if type(stock) is not list:
        refuse("bad_deal", "deal.stock must be a list of cards, top first.")
    _check_starter(starter, rs)
    every: list[Any] = [starter, *stock]
    for cards in hands.values():
        if type(cards) is not list:
            refuse("bad_deal", "Each hand must be a list of cards.")
        every.extend(cards)
    if any(type(c) is not str or c not in rs.counts for c in every):
        refuse("bad_deal", f"The deal holds a card that is not in the {rs.name} deck.")
    if Counter(every) != Counter(rs.counts):
        refuse("bad_deal", f"Hands, starter and stock together must be exactly the {rs.name} deck.")
    if any(len(cards) == 0 for cards in hands.values()):
        refuse("bad_deal", "Every player must be dealt at least one card.")


def _check_starter(starter: Any, rs: Ruleset) -> None:
    if type(starter) is not str or starter not in rs.counts:
        refuse("bad_deal", f"deal.starter must be a card of the {rs.name} deck.")
    if starter == "wild draw-4":
        refuse("bad_deal", "A Wild Draw Four cannot start the discard pile; turn another card.")


def custom_table_problem(table: Any) -> str | None:
    """Why ``table`` cannot be the ``custom`` ejection preset's table (one phrase naming the key), or ``None``.

    The same check for ``[launcher.custom]`` in the configuration and ``options.ejection_custom`` in ``new_game``:
    the command schema's shape, then what the ejection model itself requires.

    Example::

        >>> custom_table_problem({"miss_hazard": [0.4, 1.0], "cards": {"2": 1}}) is None
        True
        >>> custom_table_problem({"miss_hazard": [2], "cards": {"2": 1}})
        'miss_hazard[0] must be a number from 0 to 1'
    """
    problem = _CUSTOM_SHAPE(table)
    if problem is not None:
        return f"{problem.path} {problem.what}".strip()
    try:
        model = model_for({"ejection_preset": "custom", "ejection_custom": table})
        model.plan(model.start("0" * 64))
    except ValueError as exc:  # EjectionConfigError
        return str(exc).rstrip(".")
    return None


_CUSTOM_SHAPE = fields(EJECTION_CUSTOM)
