"""CLDR plural categories for whole numbers, one small pure function per language.

The rules are the Unicode CLDR plural rules (``plurals.xml``), written out for non-negative integers only (``v = 0``:
announcements count hits and points, never fractions), where ``n = i``:

- ``en``, ``de``: one: ``i = 1``; other: everything else.
- ``be``: one: ``n % 10 = 1 and n % 100 != 11``; few: ``n % 10 = 2..4 and n % 100 != 12..14``;
  many: ``n % 10 = 0 or n % 10 = 5..9 or n % 100 = 11..14``; other: fractions only (never for an integer).
- ``hy``: one: ``i = 0,1``; other: everything else.
- ``tl`` (as ``fil``): one: ``v = 0 and i = 1,2,3`` or ``v = 0 and i % 10 != 4,6,9``; other: everything else.

Example::

    >>> [plural_category("be", n) for n in (1, 2, 5, 11, 21, 22, 112)]
    ['one', 'few', 'many', 'many', 'one', 'few', 'many']
    >>> plural_category("hy", 0), plural_category("en", 0)
    ('one', 'other')
"""

from __future__ import annotations

from collections.abc import Callable

# Every category a catalogue may use, in CLDR's order.
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


def _english(n: int) -> str:
    return "one" if n == 1 else "other"


def _belarusian(n: int) -> str:
    last, last_two = n % 10, n % 100
    if last == 1 and last_two != 11:
        return "one"
    if 2 <= last <= 4 and not 12 <= last_two <= 14:
        return "few"
    return "many"  # n % 10 = 0 or 5..9, or n % 100 = 11..14: every other whole number


def _armenian(n: int) -> str:
    return "one" if n in (0, 1) else "other"


def _tagalog(n: int) -> str:
    return "one" if n in (1, 2, 3) or n % 10 not in (4, 6, 9) else "other"


RULES: dict[str, Callable[[int], str]] = {
    "en": _english,
    "de": _english,  # German's rule for integers is English's
    "be": _belarusian,
    "hy": _armenian,
    "tl": _tagalog,
}

# The categories each language's integers can fall into (what a plural message in that language must provide).
USED: dict[str, tuple[str, ...]] = {
    "en": ("one", "other"),
    "de": ("one", "other"),
    "be": ("one", "few", "many"),
    "hy": ("one", "other"),
    "tl": ("one", "other"),
}


def plural_category(language: str, n: int) -> str:
    """The CLDR plural category of the whole number ``n`` (≥ 0) in ``language``; ``KeyError`` for a language
    without rules here."""
    if n < 0:
        raise ValueError(f"plural categories are for counts (0 or more), got {n}")
    return RULES[language](n)
