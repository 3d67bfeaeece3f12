"""The shape of every referee command, as data: which fields each type has, their types and limits.

A command is checked against its type's table before its handler runs (``Referee.handle``), so whatever reaches a
handler — and so the undo history, the journal and every published event — is small, bounded and strict JSON. A
field that is not in the table is refused with ``unknown_field`` (junk is never journalled); a field of the wrong
type or out of its limits is refused with ``bad_field`` or the code of its subtree (:data:`FIELD_CODES`). Rule
checks (whose turn, which card) stay with the handlers; a ``null`` field counts as absent, as it does for them.

Adding a field is one line in :data:`COMMAND_FIELDS` (the daemon's own commands have their table in
``daemon/commands.py``, built from the same checks).

Example::

    >>> check_command({"type": "hit", "cards": 2}, COMMAND_FIELDS["hit"])
    >>> try:
    ...     check_command({"type": "hit", "pad": "x"}, COMMAND_FIELDS["hit"])
    ... except Refusal as refusal:
    ...     (refusal.code, refusal.message)
    ('unknown_field', 'hit has no field "pad" (it has: player, cards, manual).')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from unolauncher.rules.ejection import MS_PER_CARD_RANGE
from unolauncher.rules.refusal import Refusal, refuse, short_repr
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


def _join(key: str, problem: Problem) -> Problem:
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
    if (
        type(value) is str
        and 0 < len(value) <= MAX_NAME
        and value.isprintable()
        and value.strip() == value
    ):
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
                return _join(f"[{i}]", problem)
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
                return _join(f"[{short_repr(k)}]", problem)
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
                    return _join(key, problem)
        return None

    return check


def check_command(command: dict[str, Any], spec: Mapping[str, Check]) -> None:
    """Refuse (raise :class:`Refusal`) a command whose fields do not fit ``spec``; return when they fit.

    ``type`` and ``id`` (an MQTT id, ignored by the referee) are allowed on every command. ``command`` must be a
    dict with a ``type``. On every command the referee takes (0.3 µs for a ``play``), so the common case is one dict
    lookup and one call per field.
    """
    for key, value in command.items():
        check = spec.get(key)
        if check is None:
            if key != "type":
                _refuse_unlisted(command, key, value, spec)
        elif value is not None:
            if type(check) is Text and type(value) is str and len(value) <= check.max_len:
                continue  # the common case, inline
            problem = check(value)
            if problem is not None:
                path, what, unknown = _join(key, problem)
                refuse("unknown_field" if unknown else FIELD_CODES.get(key, "bad_field"), f"{path} {what}.")


def _refuse_unlisted(command: dict[str, Any], key: Any, value: Any, spec: Mapping[str, Check]) -> None:
    """A field not in the type's table: ``id`` is fine if it is a usable id; anything else is refused."""
    if key == "id":
        if value is not None and _ID(value) is not None:
            refuse("bad_field", f"The id must be a text of at most {MAX_ID} characters or a whole number.")
        return
    refuse("unknown_field", f"{command['type']} has no field {short_repr(key)} (it has: {', '.join(spec) or 'none'}).")


_ID = either(text(MAX_ID), integer(), "")
CARD = text()
PLAYER = text(MAX_NAME)  # a reference to a player: the handler says whether there is one by that name
COUNT = integer(0, 200)

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
OPTIONS: dict[str, Check] = {
    "target_score": integer(1, 1_000_000),
    "chain_after_skip_reverse": boolean,
    "suggestion_penalty": boolean,
    "customizable": fields(CUSTOMIZABLE),
    "ejection_preset": text(),
    "ejection_custom": fields(EJECTION_CUSTOM),
    "hand_size": integer(1, MAX_CARDS),
    "ejection_ms_per_card": integer(*MS_PER_CARD_RANGE),  # measured by selftest --calibrate; journalled with the game
}
DEAL: dict[str, Check] = {
    "dealer": PLAYER,
    "starter": CARD,
    # full mode: the cards of each hand; table mode: how many cards each player holds
    "hands": mapping(PLAYER, either(array(CARD, MAX_CARDS), COUNT, "must be a list of cards or a count"), MAX_PLAYERS),
    "stock": array(CARD, MAX_CARDS),
}
LAUNCHER: dict[str, Check] = {"script": array(COUNT, MAX_SCRIPT), "seed": integer(0, INT_MAX)}
SECRET = text(64)  # the daemon's launcher secret: 64 hex digits (the referee checks the pattern)

# type -> field -> check. ``type`` and ``id`` (an MQTT id, ignored by the referee) are allowed on every command.
COMMAND_FIELDS: dict[str, dict[str, Check]] = {
    "new_game": {
        "ruleset": text(),
        "players": array(name, MAX_PLAYERS),
        "seed": integer(),
        "mode": text(),
        "options": fields(OPTIONS),
        "deal": fields(DEAL),
        "launcher": fields(LAUNCHER),
        "secret": SECRET,
    },
    "next_round": {"deal": fields(DEAL), "secret": SECRET},
    "play": {
        "player": PLAYER,
        "card": CARD,
        "color": text(),
        "target": PLAYER,
        "discarded": array(CARD, MAX_CARDS),
        "turned": CARD,
    },
    "hit": {"player": PLAYER, "cards": COUNT, "manual": boolean},  # manual: the daemon marks a sent count
    "draw": {"player": PLAYER},
    "pass": {"player": PLAYER},
    "uno": {"player": PLAYER},
    "catch": {"player": PLAYER, "target": PLAYER},
    "challenge": {"player": PLAYER, "guilty": boolean},
    "accept": {"player": PLAYER},
    "choose": {"player": PLAYER, "color": text(), "target": PLAYER},
    "score": {"hands": mapping(PLAYER, integer(0, 10_000), MAX_PLAYERS)},
    "suggest": {"player": PLAYER},
    "reload": {},
    "undo": {"secret": SECRET},
    # The launcher's record (docs/ejection.md): presses and lid openings come from the daemon, entropy from players.
    "pressed": {"player": PLAYER, "secret": SECRET},
    "free_play": {"secret": SECRET},  # the daemon's: free play's commitment, opened before its first press
    "lid_opened": {},
    "fire_failed": {"player": PLAYER, "reason": text()},  # the daemon's: a run failed, its plan stays owed
    # entropy: a commitment (hash, client) or its reveal (entropy); ``at`` is the daemon's stamp (docs/fairness.md)
    "entropy": {
        "entropy": text(128), "commitment": text(64), "hash": text(64), "client": text(40), "at": integer(0, INT_MAX)
    },
}

# The refusal code for a wrong value in a field (and anything nested in it); ``bad_field`` for the others.
FIELD_CODES = {
    "ruleset": "bad_ruleset",
    "players": "bad_players",
    "mode": "bad_mode",
    "options": "bad_option",
    "deal": "bad_deal",
}

__all__ = ["COMMAND_FIELDS", "FIELD_CODES", "Check", "Problem", "Refusal", "check_command"]
