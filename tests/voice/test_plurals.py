"""The CLDR plural rules of the spoken languages, checked against the examples CLDR itself lists for each category
(``plurals.xml``'s ``@integer`` samples), and every count a table can announce falls into a category its language's
messages provide."""

from __future__ import annotations

import pytest

from unolauncher.voice.plurals import CATEGORIES, RULES, USED, plural_category

# CLDR's integer samples per language and category (the finite ones; "…" ranges cut at what is listed).
CLDR_SAMPLES: dict[str, dict[str, list[int]]] = {
    "en": {"one": [1], "other": [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 100, 1000, 10000]},
    "de": {"one": [1], "other": [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 100, 1000, 10000]},
    "be": {
        "one": [1, 21, 31, 41, 51, 61, 71, 81, 101, 1001],
        "few": [2, 3, 4, 22, 23, 24, 32, 33, 34, 42, 43, 44, 52, 53, 54, 62, 102, 1002],
        "many": [0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 100, 1000, 10000, 100000],
    },
    "hy": {"one": [0, 1], "other": [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 100, 1000, 10000]},
    "tl": {
        "one": [0, 1, 2, 3, 5, 7, 8, 10, 11, 12, 13, 15, 17, 18, 20, 21, 100, 1000, 10000],
        "other": [4, 6, 9, 14, 16, 19, 24, 26, 104, 1004],
    },
}


@pytest.mark.parametrize("language", sorted(CLDR_SAMPLES))
def test_each_rule_gives_cldrs_category_for_its_samples(language: str) -> None:
    for category, numbers in CLDR_SAMPLES[language].items():
        got = {n: plural_category(language, n) for n in numbers}
        assert all(c == category for c in got.values()), (language, category, got)


@pytest.mark.parametrize("language", sorted(RULES))
def test_every_count_up_to_a_thousand_falls_into_a_category_the_language_provides(language: str) -> None:
    seen = {plural_category(language, n) for n in range(0, 1001)}
    assert seen == set(USED[language]), (language, seen)
    assert seen <= set(CATEGORIES)


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        plural_category("be", -1)
