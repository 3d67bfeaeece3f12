"""What the box says, per language: one message per announcement code, with named parameters.

A message is a ``str.format`` template, or, when it counts something, a dict from CLDR plural category
(:mod:`~unolauncher.voice.plurals`) to template, chosen by the parameter named in :data:`COUNTED`. English is the
reference: every language has every English code and no placeholder the English message lacks
(``tests/voice/test_catalogue.py``). The terms come from the seed rule sheets of each language where the sheet has
one; docs/voice.md lists each term with its sheet and line, and the terms no sheet has (the launcher in the Mario
Kart sheets, which have none).

Tagalog (``tl``) is here for the dashboard's use (the browser can speak it); espeak-ng has no Tagalog voice, so the
box itself falls back to the launcher's chime for it (:data:`SPOKEN`).

Example::

    >>> render("en", "must_hit", {"player": "Bob", "hits": 2})
    'Bob must hit the launcher 2 times.'
    >>> render("be", "must_hit", {"player": "Ала", "hits": 5})
    'Ала, націсні на катапульту 5 разоў.'
"""

from __future__ import annotations

import string
from typing import Any

from unolauncher.voice.plurals import USED, plural_category

Message = str | dict[str, str]

# The code of every announcement, its priority (higher interrupts lower) and whether only the newest one matters
# (a newer one of the same group supersedes it: only the current turn is worth saying).
PRIORITY: dict[str, int] = {
    "turn": 1,
    "turn_again": 1,
    "must_hit": 2,
    "must_hit_until_card": 2,
    "uno_called": 2,
    "caught": 3,
    "round_won": 3,
    "game_won": 4,
    "launcher_empty": 5,
    "jammed": 5,
}
LATEST_ONLY: dict[str, str] = {"turn": "turn", "turn_again": "turn"}  # code -> the group a newer one supersedes

# The parameter whose number picks the plural form of a counted message.
COUNTED: dict[str, str] = {"must_hit": "hits", "round_won": "points"}

EN: dict[str, Message] = {
    "turn": "{player}, your turn.",
    "turn_again": "{player}, play again.",
    "must_hit": {
        "one": "{player} must hit the launcher once.",
        "other": "{player} must hit the launcher {hits} times.",
    },
    "must_hit_until_card": "{player}, hit the launcher until cards come out.",
    "uno_called": "{player} says UNO!",
    "caught": "{player} caught {target} without UNO!",
    "round_won": {
        "one": "{winner} wins the round and scores {points} point.",
        "other": "{winner} wins the round and scores {points} points.",
    },
    "game_won": "{winner} wins the game! Congratulations!",
    "launcher_empty": "The launcher is empty. Please reload it.",
    "jammed": "The launcher is jammed. Open the lid and clear the cards.",
}

# German: terms from the UNO Mario Kart sheet 001_e05382f47e1a7f3a.txt; "Kartenwerfer" is not on it (no launcher).
DE: dict[str, Message] = {
    "turn": "{player}, du bist am Zug.",
    "turn_again": "{player}, du bist noch einmal am Zug.",
    "must_hit": {
        "one": "{player} muss einmal auf den Kartenwerfer drücken.",
        "other": "{player} muss {hits} Mal auf den Kartenwerfer drücken.",
    },
    "must_hit_until_card": "{player}, drück auf den Kartenwerfer, bis Karten herauskommen.",
    "uno_called": "{player} ruft UNO!",
    "caught": "{player} hat {target} ohne UNO erwischt!",
    "round_won": {
        "one": "{winner} gewinnt die Runde und erhält {points} Punkt.",
        "other": "{winner} gewinnt die Runde und erhält {points} Punkte.",
    },
    "game_won": "{winner} gewinnt das Spiel! Herzlichen Glückwunsch!",
    "launcher_empty": "Der Kartenwerfer ist leer. Bitte nachladen.",
    "jammed": "Der Kartenwerfer klemmt. Deckel öffnen und die Karten lösen.",
}

# Belarusian: terms from the UNO Mario Kart sheet 000_d313b95a994ff99f.txt; "катапульта" is not on it (no launcher).
# Present tense and the imperative throughout: Belarusian past tense has a gender, and a name does not tell it.
BE: dict[str, Message] = {
    "turn": "{player}, твой ход.",
    "turn_again": "{player}, яшчэ адзін ход.",
    "must_hit": {
        "one": "{player}, націсні на катапульту {hits} раз.",
        "few": "{player}, націсні на катапульту {hits} разы.",
        "many": "{player}, націсні на катапульту {hits} разоў.",
    },
    "must_hit_until_card": "{player}, націскай на катапульту, пакуль не вылецяць карты.",
    "uno_called": "{player} кажа UNO!",
    "caught": "{player} ловіць {target} без UNO!",
    "round_won": {
        "one": "{winner} выйграе раунд і атрымлівае {points} ачко.",
        "few": "{winner} выйграе раунд і атрымлівае {points} ачкі.",
        "many": "{winner} выйграе раунд і атрымлівае {points} ачкоў.",
    },
    "game_won": "{winner} выйграе гульню! Віншуем!",
    "launcher_empty": "Катапульта пустая. Калі ласка, перазарадзіце яе.",
    "jammed": "Катапульту заклініла. Адкрыйце вечка і вызваліце карты.",
}

# Armenian: terms from the UNO Attack sheet 002_a4e651296fffb6fc.txt (գործարկիչ, its կոճակ, ռաունդ, միավոր, հերթ).
# A noun after a numeral stays singular in Armenian, so both plural forms read the same. Names stand apart
# (after "՝") rather than take case endings.
HY: dict[str, Message] = {
    "turn": "{player}, քո հերթն է։",
    "turn_again": "{player}, նորից քո հերթն է։",
    "must_hit": {
        "one": "{player}, սեղմիր գործարկիչի կոճակը {hits} անգամ։",
        "other": "{player}, սեղմիր գործարկիչի կոճակը {hits} անգամ։",
    },
    "must_hit_until_card": "{player}, սեղմիր գործարկիչի կոճակը, մինչև քարտերը դուրս գան։",
    "uno_called": "{player}՝ UNO։",
    "caught": "Բռնված է՝ {target}, առանց UNO-ի։ Բռնեց՝ {player}։",
    "round_won": {
        "one": "Ռաունդը հաղթեց՝ {winner}, {points} միավոր։",
        "other": "Ռաունդը հաղթեց՝ {winner}, {points} միավոր։",
    },
    "game_won": "Խաղը հաղթեց՝ {winner}։ Շնորհավորում ենք։",
    "launcher_empty": "Գործարկիչը դատարկ է։ Խնդրում ենք լիցքավորել այն։",
    "jammed": "Գործարկիչը խցանվել է։ Բացեք դուռը և հանեք քարտերը։",
}

# Tagalog: terms from the UNO Mario Kart sheet 004_4f24a95345e6c8ea.txt; "launcher" is not on it (no launcher).
TL: dict[str, Message] = {
    "turn": "{player}, ikaw na ang turn.",
    "turn_again": "{player}, isa pang turn.",
    "must_hit": {
        "one": "{player}, pindutin ang launcher nang {hits} beses.",
        "other": "{player}, pindutin ang launcher nang {hits} beses.",
    },
    "must_hit_until_card": "{player}, pindutin ang launcher hanggang may lumabas na card.",
    "uno_called": "Sumigaw si {player} ng UNO!",
    "caught": "Nahuli ni {player} si {target} na walang UNO!",
    "round_won": {
        "one": "Nanalo si {winner} ng round at nakakuha ng {points} puntos.",
        "other": "Nanalo si {winner} ng round at nakakuha ng {points} puntos.",
    },
    "game_won": "Si {winner} ang panalo! Binabati kita!",
    "launcher_empty": "Walang laman ang launcher. Pakilagyan ulit.",
    "jammed": "Naipit ang launcher. Buksan ang takip at alisin ang mga card.",
}

CATALOGUES: dict[str, dict[str, Message]] = {"en": EN, "de": DE, "be": BE, "hy": HY, "tl": TL}
LANGUAGES: tuple[str, ...] = tuple(CATALOGUES)

# The espeak-ng voice that speaks each language; a language missing here has no voice (the box chimes instead).
SPOKEN: dict[str, str] = {"en": "en", "de": "de", "be": "be", "hy": "hy"}


def placeholders(message: Message) -> set[str]:
    """The parameter names a message (every plural form of it) uses."""
    templates = message.values() if isinstance(message, dict) else [message]
    return {name for text in templates for _, name, _, _ in string.Formatter().parse(text) if name}


def plural_forms_needed(language: str) -> tuple[str, ...]:
    """The plural categories a counted message in ``language`` must provide."""
    return USED[language]


def render(language: str, code: str, params: dict[str, Any]) -> str:
    """The announcement ``code`` in ``language`` with ``params`` filled in (``KeyError`` for an unknown language,
    code or missing parameter)."""
    message = CATALOGUES[language][code]
    if isinstance(message, dict):
        count = params[COUNTED[code]]
        message = message[plural_category(language, int(count))]
    return message.format(**params)
