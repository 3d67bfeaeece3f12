"""The checks a command's fields are made of: small predicates that return ``None`` when a value is fine, else a
:class:`Problem` naming the spot (``customizable.count``, ``[3]``) and what is wrong. ``schema.py`` builds each
command's table from them, ``options.py`` each game option's, ``daemon/commands.py`` the daemon's own commands'.
:class:`Option` (one game option's declaration) and :class:`Action` (one card action's facts) live here too, so
that a house rule's module (``house_rules/``) declares its options and actions without importing the registries
that collect them (``options.py``, ``actions.py``).

Example::

    >>> integer(1, 10)(11)
    Problem(path='', what='must be a whole number from 1 to 10', unknown=False)
    >>> fields({"count": integer(1, 10)})({"count": 3}) is None
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from unolauncher.rules.refusal import short_repr
from unolauncher.strict_json import INT_MAX, INT_MIN


class Problem(NamedTuple):
    """What a check found: the path below the checked value (``customizable.count``, ``[3]``, or ``""`` for the
    value itself), what is wrong with it, and whether it is a field the table does not know (``unknown_field``)."""

    path: str
    what: str
    unknown: bool = False


# A check returns None when the value is fine, else the Problem; paths make a refusal name the exact spot.
Check = Callable[[Any], Problem | None]

MAX_NAME = 40
MAX_PLAYERS = 10
MAX_SCRIPT = 10_000
MAX_CARDS = 112  # the largest deck
MAX_TEXT = 24  # a card ("wild attack-attack"), a colour, a rule set, a preset, a mode
MAX_LABEL = 80
MAX_ID = 128

# Names and labels must pass str.isprintable(), which refuses the Unicode categories Cc (control), Cf (format: the
# bidi overrides U+202A-U+202E, the isolates U+2066-U+2069, zero-width characters), Zl, Zp, Zs but the ASCII space,
# Cs, Co and Cn. The refusal says it in words:
NAME_RULE = "printable text without control or bidi-override characters"


def join_path(key: str, problem: Problem) -> Problem:
    sub = problem.path
    return problem._replace(path=key + ("" if not sub or sub.startswith("[") else ".") + sub)


def integer(low: int = INT_MIN, high: int = INT_MAX) -> Check:
    """A whole number (not a bool) in [low, high]."""
    span = "of at most 19 digits" if (low, high) == (INT_MIN, INT_MAX) else f"from {low} to {high}"
    what = f"must be a whole number {span}"

    def check(value: Any) -> Problem | None:
        return None if type(value) is int and low <= value <= high else Problem("", what)

    return check


def number(low: float, high: float) -> Check:
    """A finite number (int or float, not a bool) in [low, high]."""
    what = f"must be a number from {low:g} to {high:g}"

    def check(value: Any) -> Problem | None:
        if type(value) in (int, float) and math.isfinite(value) and low <= value <= high:
            return None
        return Problem("", what)

    return check


def boolean(value: Any) -> Problem | None:
    return None if type(value) is bool else Problem("", "must be true or false")


class Text:
    """A string of at most ``max_len`` characters (the handler checks its meaning).

    A class rather than a closure like the other checks: most fields are text, and :func:`check_command` checks a
    ``Text`` inline, without a call (the check runs on every command the referee takes).
    """

    __slots__ = ("max_len", "what")

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self.what = f"must be a text of at most {max_len} characters"

    def __call__(self, value: Any) -> Problem | None:
        return None if type(value) is str and len(value) <= self.max_len else Problem("", self.what)


def text(max_len: int = MAX_TEXT) -> Check:
    """A string of at most ``max_len`` characters (the handler checks its meaning)."""
    return Text(max_len)


def label(max_len: int, min_len: int = 0) -> Check:
    """Text shown to people: printable (no control or bidi-override characters), ``min_len`` to ``max_len``
    characters."""
    span = f"at most {max_len}" if min_len == 0 else f"{min_len} to {max_len}"
    what = f"must be {NAME_RULE}, {span} characters"

    def check(value: Any) -> Problem | None:
        ok = type(value) is str and min_len <= len(value) <= max_len and value.isprintable()
        return None if ok else Problem("", what)

    return check


def name(value: Any) -> Problem | None:
    """A player's name as given to ``new_game``: 1-40 characters of printable text, not blank, no outer spaces."""
    if type(value) is str and 0 < len(value) <= MAX_NAME and value.isprintable() and value.strip() == value:
        return None
    return Problem("", f"must be {NAME_RULE}: 1 to {MAX_NAME} characters, no spaces at either end")


def array(item: Check, max_items: int) -> Check:
    """A list of at most ``max_items`` values, each passing ``item``."""
    what = f"must be a list of at most {max_items} items"

    def check(value: Any) -> Problem | None:
        if type(value) is not list or len(value) > max_items:
            return Problem("", what)
        for i, element in enumerate(value):
            problem = item(element)
            if problem is not None:
                return join_path(f"[{i}]", problem)
        return None

    return check


def mapping(key: Check, item: Check, max_items: int) -> Check:
    """An object of at most ``max_items`` entries whose keys pass ``key`` and values pass ``item``."""
    what = f"must be an object of at most {max_items} entries"

    def check(value: Any) -> Problem | None:
        if type(value) is not dict or len(value) > max_items:
            return Problem("", what)
        for k, element in value.items():
            problem = key(k)
            if problem is not None:
                return Problem(f"[{short_repr(k)}]", "is not an allowed key")
            problem = item(element)
            if problem is not None:
                return join_path(f"[{short_repr(k)}]", problem)
        return None

    return check


def either(first: Check, second: Check, what: str) -> Check:
    """A value that passes ``first`` or ``second``."""

    def check(value: Any) -> Problem | None:
        if first(value) is None or second(value) is None:
            return None
        return Problem("", what)

    return check


def fields(spec: Mapping[str, Check]) -> Check:
    """An object whose keys are all in ``spec`` (each value passing its check; ``null`` counts as absent)."""
    known = ", ".join(spec) or "none"

    def check(value: Any) -> Problem | None:
        if type(value) is not dict:
            return Problem("", "must be an object")
        for key, element in value.items():
            element_check = spec.get(key)
            if element_check is None:
                return Problem(str(key), f"is not a known field (known: {known})", True)
            if element is not None:
                problem = element_check(element)
                if problem is not None:
                    return join_path(key, problem)
        return None

    return check


class Option(NamedTuple):
    """One game option. ``rulesets`` empty: every rule set. ``setup``: the name of the dashboard setup form's control
    for it, ``""`` when the dashboard does not offer it (the doc line says who sets it). ``refine``: what the value
    means beyond its shape (called after ``check`` passed, may refuse; returns the value the game keeps)."""

    name: str
    default: Any
    check: Check
    doc: str
    optional: bool = False
    rulesets: tuple[str, ...] = ()
    setup: str = ""
    refine: Callable[[Any], Any] | None = None


class Action(NamedTuple):
    """The facts of one card action (``actions.py``). ``target``: the play names another player (``target``).
    ``last``: it may be the player's last card. ``quick``: the play needs no field beyond player, card and a Wild's
    colour, so the fast path may take it. ``color``: a Wild with this action names a colour (the Item Box takes the
    turned card's)."""

    target: bool = False
    last: bool = True
    quick: bool = True
    color: bool = True
    doc: str = ""
