"""Players' names as people see them: two names that look the same are the same player, and a name must show.

Unicode lets one visible name be written many ways: composed or decomposed (``José`` as ``e`` + U+0301), compatibility
forms (``ﬁona``, full-width ``Ａnn``), and marks that show nothing (U+034F, variation selectors U+FE0F and U+E0100).
Names are compared by :func:`name_key`: NFKC-normalised, with the default-ignorable code points removed. A name whose
key shows nothing (U+3164, U+2800, U+115F, a lone U+0301) is refused.

Example::

    >>> name_key("Jose\\u0301") == name_key("José"), name_key("\\ufb01ona") == "fiona", name_key("\\uff21nn")
    (True, True, 'Ann')
    >>> names_problem(["ann", "a\\u034fnn"])
    'Player names must be distinct: "ann" and "a\\u034fnn" look the same.'
    >>> names_problem(["ann", "\\u3164"])
    'Player names must show at least one visible character.'
"""

from __future__ import annotations

import unicodedata

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) outside category Cf, which is removed as a whole below;
# plus U+2800 (braille blank), which shows nothing either.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0000, 0xE0FFF),
)
_NOTHING_TO_SEE = {"Mn", "Me", "Zs", "Zl", "Zp", "Cc", "Cf"}  # a combining mark alone shows nothing either


def _ignorable(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char) == "Cf" or any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def name_key(name: str) -> str:
    """What a name looks like: NFKC with the default-ignorable code points removed."""
    return "".join(c for c in unicodedata.normalize("NFKC", name) if not _ignorable(c))


def names_problem(players: list[str]) -> str | None:
    """One sentence when two names look the same or one shows nothing; None when the names are fine."""
    seen: dict[str, str] = {}
    for player in players:
        key = name_key(player)
        if not any(unicodedata.category(c) not in _NOTHING_TO_SEE for c in key):
            return "Player names must show at least one visible character."
        if key in seen:
            return f"Player names must be distinct: {seen[key]!r} and {player!r} look the same.".replace("'", '"')
        seen[key] = player
    return None
