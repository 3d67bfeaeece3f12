"""index.html's words name their catalogue keys on the elements themselves (``data-i18n="key"`` for an element's own
text, ``data-i18n-<attribute>="key"`` for aria-label, title and placeholder; js/i18n-page.js reads them). Every such
key is in every language catalogue (``js/lang/*.js``); every element of index.html that holds words, and every
such attribute, names its key (an element added with English words and no key fails here); and the English written
in index.html is the English catalogue's, so the page reads the same before and after it is re-worded."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from .conftest import PhoneFactory
from .test_languages import LANGUAGES, read_catalogues

INDEX = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static" / "index.html"
ATTRIBUTES = ("aria-label", "title", "placeholder")  # js/i18n-page.js I18N_ATTRIBUTES
# Words that are the same in every language, or that a script replaces before anyone sees them.
SAME_EVERYWHERE = {"UNO", "UNO!", "connecting…"}
# Elements whose words a script replaces once the page runs (the banner says what the table is doing).
REWRITTEN = {"banner.waiting"}
LETTERS = re.compile(r"[^\W\d_]")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], line: int) -> None:
        self.tag, self.attrs, self.line = tag, attrs, line
        self.text: list[str] = []  # its own text nodes (not its children's)

    def __repr__(self) -> str:
        return f"<{self.tag}> line {self.line} {''.join(self.text).strip()!r}"


class Page(HTMLParser):
    """index.html's elements with their own text, in document order (<script>, <style> and <template> left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, self.getpos()[0])
        self.elements.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop().tag != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1].tag not in ("script", "style", "title"):
            self.open[-1].text.append(data)


def page() -> Page:
    parsed = Page()
    parsed.feed(INDEX.read_text(encoding="utf-8"))
    return parsed


def keys_in_page() -> dict[str, list[Element]]:
    named: dict[str, list[Element]] = {}
    for element in page().elements:
        for name in ("data-i18n", *(f"data-i18n-{a}" for a in ATTRIBUTES)):
            if name in element.attrs:
                named.setdefault(element.attrs[name], []).append(element)
    return named


@pytest.fixture(scope="module")
def catalogues(browser: Any, dashboard_url: str) -> dict[str, dict[str, Any]]:
    return read_catalogues(browser, dashboard_url)


def test_the_page_names_its_keys() -> None:
    assert len(keys_in_page()) > 80, "the scan found too few keys: has the attribute changed?"


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_key_the_page_names_is_in_every_catalogue(catalogues: dict[str, dict[str, Any]], code: str) -> None:
    missing = {key: elements for key, elements in keys_in_page().items() if key not in catalogues[code]}
    assert missing == {}, f"{code} lacks the words of these elements of index.html"


def test_every_element_with_words_names_its_key() -> None:
    bare: list[object] = []
    for element in page().elements:
        own = "".join(element.text).strip()
        if own and LETTERS.search(own) and own not in SAME_EVERYWHERE and "data-i18n" not in element.attrs:
            bare.append(element)
        for name in ATTRIBUTES:
            value = element.attrs.get(name, "")
            if "://" in value:  # an address (the broker's example), not words
                continue
            if LETTERS.search(value) and value not in SAME_EVERYWHERE and f"data-i18n-{name}" not in element.attrs:
                bare.append(f"{element!r} [{name}={value!r}]")
    assert bare == [], "index.html words with no data-i18n key: the page would show them in English"


def test_the_english_in_the_page_is_the_english_catalogue(catalogues: dict[str, dict[str, Any]]) -> None:
    english = catalogues["en"]
    differ = []
    for element in page().elements:
        key = element.attrs.get("data-i18n")
        if key is not None and key in english and "".join(element.text).strip() != english[key].strip():
            differ.append(f"{element!r}: catalogue says {english[key]!r}")
        for name in ATTRIBUTES:
            key = element.attrs.get(f"data-i18n-{name}")
            if key is not None and key in english and element.attrs.get(name, "") != english[key]:
                differ.append(f"{element!r} [{name}]: {element.attrs.get(name)!r}, catalogue says {english[key]!r}")
    assert differ == []


def test_a_german_page_shows_the_catalogues_words_on_every_named_element(
    phones: PhoneFactory, dashboard_url: str, catalogues: dict[str, dict[str, Any]]
) -> None:
    """In Chromium, with the phone set to German: each element's own text and attributes are the catalogue's."""
    tab = phones.open(dashboard_url)
    tab.evaluate("() => localStorage.setItem('unolauncher.language', 'de')")
    tab.reload()
    tab.wait_for_function("() => document.documentElement.lang === 'de'")
    shown = tab.evaluate(
        """(attributes) => [...document.querySelectorAll("[data-i18n]")].map((n) => [n.dataset.i18n,
             [...n.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE && c.data.trim())[0]?.data.trim() ?? ""])
           .concat(...attributes.map((a) => [...document.querySelectorAll(`[data-i18n-${a}]`)]
             .map((n) => [n.getAttribute(`data-i18n-${a}`), n.getAttribute(a)])))""",
        list(ATTRIBUTES),
    )
    german = catalogues["de"]
    assert len(shown) > 80
    assert [(key, text) for key, text in shown if text != german[key].strip() and key not in REWRITTEN] == []
