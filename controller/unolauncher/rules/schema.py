"""The shape of every referee command, as data: which fields each type has, their types and limits.

A command is checked against its type's table before its handler runs (``Referee.handle``), so whatever reaches a
handler — and so the undo history, the journal and every published event — is small, bounded and strict JSON. A
field that is not in the table is refused with ``unknown_field`` (junk is never journalled); a field of the wrong
type or out of its limits is refused with ``bad_field`` or the code of its subtree (:data:`FIELD_CODES`). Rule
checks (whose turn, which card) stay with the handlers; a ``null`` field counts as absent, as it does for them.

Adding a field is one line in :data:`COMMAND_FIELDS` (the checks are in ``checks.py``; the game options' table comes
from the option registry, ``options.py``; the daemon's own commands have their table in ``daemon/commands.py``, built
from the same checks).

Example::

    >>> check_command({"type": "hit", "cards": 2}, COMMAND_FIELDS["hit"])
    >>> try:
    ...     check_command({"type": "hit", "pad": "x"}, COMMAND_FIELDS["hit"])
    ... except Refusal as refusal:
    ...     (refusal.code, refusal.message)
    ('unknown_field', 'hit has no field "pad" (it has: player, cards, manual).')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unolauncher.rules.checks import (  # the checks (re-exported: daemon/commands.py builds its table from them)
    MAX_CARDS,
    MAX_ID,
    MAX_NAME,
    MAX_PLAYERS,
    MAX_SCRIPT,
    Check,
    Problem,
    Text,
    array,
    boolean,
    either,
    fields,
    integer,
    join_path,
    label,
    mapping,
    name,
    text,
)
from unolauncher.rules.options import CUSTOMIZABLE, EJECTION_CUSTOM, checks
from unolauncher.rules.refusal import Refusal, refuse, short_repr
from unolauncher.strict_json import INT_MAX


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
                path, what, unknown = join_path(key, problem)
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

OPTIONS: dict[str, Check] = checks()  # from the option registry (options.py)
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
        "entropy": text(128),
        "commitment": text(64),
        "hash": text(64),
        "client": text(40),
        "at": integer(0, INT_MAX),
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

__all__ = [
    "COMMAND_FIELDS",
    "CUSTOMIZABLE",
    "EJECTION_CUSTOM",
    "FIELD_CODES",
    "MAX_ID",
    "MAX_NAME",
    "MAX_PLAYERS",
    "MAX_SCRIPT",
    "OPTIONS",
    "PLAYER",
    "Check",
    "Problem",
    "Refusal",
    "boolean",
    "check_command",
    "integer",
    "label",
    "text",
]
