"""Cards, decks and card values for every rule set (RULES.md ATK-01, ATK-02, ATK-20, MK-01, MK-17, classic).

A card is the lowercase string of PROTOCOL.md: ``"red 7"``, ``"blue hit-2"``, ``"wild"``, ``"wild draw-4"``.
Everything here is precomputed once into plain dicts so the referee's hot path is a dict lookup.

Example::

    >>> from unolauncher.rules.cards import DECKS, card_info, RULESETS
    >>> len(DECKS["attack"]), len(DECKS["classic"])
    (112, 108)
    >>> card_info("red hit-2")
    ('red', 'hit-2')
    >>> RULESETS["attack"].values["wild hit-4"]
    40
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
COLOR_SET = frozenset(COLORS)
NUMBERS_1_9: tuple[str, ...] = tuple(str(n) for n in range(1, 10))


def card_info(card: str) -> tuple[str | None, str]:
    """(colour, face) of a card; a Wild has colour ``None`` and its whole string as face."""
    if card.startswith("wild"):
        return None, card
    color, _, face = card.partition(" ")
    return color, face


def _colored(per_color: list[tuple[str, int]]) -> list[str]:
    return [f"{color} {face}" for color in COLORS for face, count in per_color for _ in range(count)]


def _attack_deck() -> list[str]:
    # ATK-01: numbers 1–9 twice (no 0), 1 Reverse, 2 Hit 2, 2 Skip, 2 Discard All per colour; 4+4+3+1 Wilds.
    per_color = [(n, 2) for n in NUMBERS_1_9] + [("reverse", 1), ("hit-2", 2), ("skip", 2), ("discard-all", 2)]
    wilds = ["wild"] * 4 + ["wild attack-attack"] * 4 + ["wild customizable"] * 3 + ["wild hit-4"]
    return _colored(per_color) + wilds


def _attack_original_deck() -> list[str]:
    # ATK-02: numbers 1–9 twice, 2 Hit 2, 2 Reverse, 2 Skip, 1 Discard All, 1 Trade Hands;
    # 4 Wild, 2 All Hit, 2 Hit Fire.
    per_color = [(n, 2) for n in NUMBERS_1_9] + [
        ("hit-2", 2),
        ("reverse", 2),
        ("skip", 2),
        ("discard-all", 1),
        ("trade-hands", 1),
    ]
    wilds = ["wild"] * 4 + ["wild all-hit"] * 2 + ["wild hit-fire"] * 2
    return _colored(per_color) + wilds


def _mario_kart_deck() -> list[str]:
    # MK-01: per colour 0 once, 1–9 twice, 2 Draw Two, 2 Reverse, 2 Skip; 4 Wild Draw Four, 8 Wild Item Box.
    per_color = [("0", 1)] + [(n, 2) for n in NUMBERS_1_9] + [("draw-2", 2), ("reverse", 2), ("skip", 2)]
    return _colored(per_color) + ["wild draw-4"] * 4 + ["wild item-box"] * 8


def _classic_deck() -> list[str]:
    # Classic: per colour one 0, two each of 1–9, Skip, Reverse, Draw Two; 4 Wild, 4 Wild Draw Four.
    per_color = [("0", 1)] + [(n, 2) for n in NUMBERS_1_9] + [("skip", 2), ("reverse", 2), ("draw-2", 2)]
    return _colored(per_color) + ["wild"] * 4 + ["wild draw-4"] * 4


def _values(deck: list[str], by_face: dict[str, int]) -> dict[str, int]:
    values: dict[str, int] = {}
    for card in set(deck):
        _, face = card_info(card)
        values[card] = int(face) if face.isdigit() else by_face[face]
    return values


_ATTACK_VALUES = {
    "reverse": 20,
    "skip": 20,
    "hit-2": 20,
    "discard-all": 30,
    "trade-hands": 30,
    "wild hit-4": 40,
    "wild": 50,
    "wild attack-attack": 50,
    "wild customizable": 50,
    "wild all-hit": 50,
    "wild hit-fire": 50,
}  # ATK-20
_MK_VALUES = {"draw-2": 20, "skip": 20, "reverse": 20, "wild item-box": 50, "wild draw-4": 50, "wild": 50}  # MK-17


@dataclass(frozen=True)
class Ruleset:
    """A rule set's deck (canonical order), its card values and its family (``attack`` or ``draw``)."""

    name: str
    deck: tuple[str, ...]
    values: dict[str, int]
    counts: dict[str, int]
    attack: bool  # True: draws are launcher hits (ATK-*); False: draws come from a stock (MK-*, classic)

    def __contains__(self, card: object) -> bool:
        return card in self.counts


def _ruleset(name: str, deck: list[str], by_face: dict[str, int], attack: bool) -> Ruleset:
    return Ruleset(name, tuple(deck), _values(deck, by_face), dict(Counter(deck)), attack)


RULESETS: dict[str, Ruleset] = {
    "attack": _ruleset("attack", _attack_deck(), _ATTACK_VALUES, True),
    "attack-original": _ruleset("attack-original", _attack_original_deck(), _ATTACK_VALUES, True),
    "mario-kart": _ruleset("mario-kart", _mario_kart_deck(), _MK_VALUES, False),
    "classic": _ruleset("classic", _classic_deck(), _MK_VALUES, False),
}
DECKS: dict[str, tuple[str, ...]] = {name: rs.deck for name, rs in RULESETS.items()}

# Every card string of every deck -> (colour, face). The referee looks cards up here instead of parsing.
CARD_INFO: dict[str, tuple[str | None, str]] = {card: card_info(card) for rs in RULESETS.values() for card in rs.deck}

# MK-01: the item of a turned card, by its colour; every Wild is a Bob-omb.
ITEMS: dict[str | None, str] = {
    "red": "mushroom",
    "yellow": "banana",
    "green": "green-shell",
    "blue": "lightning",
    None: "bob-omb",
}


def matches(card: str, color: str | None, top: str) -> bool:
    """ATK-04 / MK-05, the matching rule (the only place it is written): may ``card`` be played on ``top`` with
    ``color`` in force? A Wild always may; a coloured card must have that colour or the top card's number or symbol.
    ``color`` is ``None`` only while no colour is in force (an Item Box in table mode): then anything goes.

    >>> matches("red 7", "blue", "blue 7"), matches("red 7", "blue", "blue 5"), matches("wild hit-4", "red", "red 1")
    (True, False, True)

    :data:`PLAYABLE_ON` holds the same rule as a table, (colour, top) -> the cards that match:

    >>> sorted(PLAYABLE_ON["green"]["red 3"].intersection(["red 3", "green 9", "blue 3", "blue 4", "wild"]))
    ['blue 3', 'green 9', 'red 3', 'wild']
    """
    card_color, face = CARD_INFO[card]
    return card_color is None or color is None or card_color == color or face == CARD_INFO[top][1]


def _playable_table() -> dict[str | None, dict[str, frozenset[str]]]:
    """Colour in force -> top card -> every card that :func:`matches` it. The top card counts only by its face, so
    ``matches`` runs once per (colour, face, card): about a millisecond at import (tests/rules/test_legal_moves.py
    checks the table against ``matches`` for every pair).

    Equal sets are one object: with no colour in force every face allows every card, and on any Wild top a colour
    allows the same cards, so 120 sets (about 270 KB, most of this module's memory in every daemon) are 69. The
    sets are the same size as before, so a lookup or an intersection costs what it did."""
    tops_by_face: dict[str, list[str]] = {}
    for card, (_, face) in CARD_INFO.items():
        tops_by_face.setdefault(face, []).append(card)
    shared: dict[frozenset[str], frozenset[str]] = {}
    table: dict[str | None, dict[str, frozenset[str]]] = {}
    for color in (*COLORS, None):
        table[color] = by_top = {}
        for tops in tops_by_face.values():
            cards = frozenset(card for card in CARD_INFO if matches(card, color, tops[0]))
            by_top.update(dict.fromkeys(tops, shared.setdefault(cards, cards)))
    return table


# ``PLAYABLE_ON[color][top]``: the matching rule as a table, for the hot paths (the play and draw fast paths, the bots,
# legal_moves): two plain dict lookups and a set membership, or one intersection with a hand.
PLAYABLE_ON = _playable_table()


def dealer_draw_value(card: str) -> int:
    """MK-02: the value of a card drawn to choose the dealer (number = face value, action cards and Wilds = 0)."""
    _, face = CARD_INFO[card]
    return int(face) if face.isdigit() else 0
