"""The catalogues: every language has every announcement the English one has, with no placeholder English lacks,
every plural form its language needs, and every announcement renders in every language for any count."""

from __future__ import annotations

import copy

import pytest

from unolauncher.voice import catalogue
from unolauncher.voice.catalogue import (
    CATALOGUES,
    COUNTED,
    EN,
    LANGUAGES,
    PRIORITY,
    Message,
    placeholders,
    plural_forms_needed,
    render,
)

PARAMS = {"player": "Ann", "target": "Bob", "winner": "Cy", "hits": 2, "points": 120}


def problems(catalogues: dict[str, dict[str, Message]]) -> list[str]:
    """What keeps the catalogues from being complete (empty: complete)."""
    found = []
    english = catalogues["en"]
    for language, messages in catalogues.items():
        for code, message in english.items():
            if code not in messages:
                found.append(f"{language} lacks {code}")
                continue
            extra = placeholders(messages[code]) - placeholders(message)
            if extra:
                found.append(f"{language}.{code} has placeholders English lacks: {sorted(extra)}")
            if code in COUNTED:
                forms = messages[code]
                needed = set(plural_forms_needed(language))
                if not isinstance(forms, dict) or not needed <= set(forms):
                    found.append(f"{language}.{code} lacks plural forms {sorted(needed - set(forms or {}))}")
            elif isinstance(messages[code], dict):
                found.append(f"{language}.{code} has plural forms but counts nothing")
        for code in messages:
            if code not in english:
                found.append(f"{language} has {code}, which English lacks")
    return found


def test_every_catalogue_is_complete() -> None:
    assert problems(CATALOGUES) == []
    assert set(LANGUAGES) == {"en", "de", "be", "hy", "tl"}
    assert set(EN) == set(PRIORITY), "every announcement has a priority"


def test_the_completeness_check_finds_a_missing_key_and_a_foreign_placeholder() -> None:
    broken = copy.deepcopy(CATALOGUES)
    del broken["hy"]["jammed"]
    broken["de"]["turn"] = "{player}, du bist am Zug, {seat}."
    del broken["be"]["must_hit"]["few"]  # type: ignore[union-attr]
    assert problems(broken) == [
        "de.turn has placeholders English lacks: ['seat']",
        "be.must_hit lacks plural forms ['few']",
        "hy lacks jammed",
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_announcement_renders_for_every_count(language: str) -> None:
    for code in EN:
        for count in range(0, 130):
            text = render(language, code, {**PARAMS, "hits": count, "points": count})
            assert "{" not in text and "}" not in text, (language, code, text)
            if code in COUNTED:
                assert str(count) in text or count == 1, (language, code, text)


def test_belarusian_counts_take_their_own_forms() -> None:
    said = {n: render("be", "must_hit", {"player": "Ала", "hits": n}) for n in (1, 2, 5, 11, 21, 22, 25)}
    assert said[1].endswith("1 раз.") and said[21].endswith("21 раз.")
    assert said[2].endswith("2 разы.") and said[22].endswith("22 разы.")
    assert said[5].endswith("5 разоў.") and said[11].endswith("11 разоў.") and said[25].endswith("25 разоў.")
    assert render("be", "round_won", {"winner": "Ян", "points": 3}).endswith("3 ачкі.")


def test_a_name_with_braces_is_said_as_it_is() -> None:
    assert render("en", "turn", {"player": "{hits}"}) == "{hits}, your turn."


def test_spoken_languages_are_catalogue_languages_and_tagalog_has_no_voice() -> None:
    assert set(catalogue.SPOKEN) <= set(LANGUAGES)
    assert "tl" not in catalogue.SPOKEN
