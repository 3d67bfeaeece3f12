"""The dashboard in five languages (en, de, be, hy, tl), in real headless Chromium against ``unolauncher run``.

- Every catalogue has exactly English's keys, no placeholder English lacks, and a form for each plural category its
  language uses for whole numbers (Intl.PluralRules in Chromium); every key the scripts name exists.
- For each language, a scripted UNO Attack round and a Mario Kart round (every question the page asks, a refusal,
  the other views, the sheets): the visible text and the screen-reader labels are scanned for English left over
  (docs/languages.md: how), and at 360×640 no text overflows its box. Screenshots go to ``docs/img/languages-*.png``
  with ``UPDATE_SCREENSHOTS=1`` (else to ``test-artifacts/``).
- Belarusian's plurals (one / few / many) on the page; the language follows the phone, the switcher overrides it and
  is remembered across reloads.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from support.net import wait_until

from .conftest import TABLE, PhoneFactory, TableHandle
from .games import PLAYERS, four_players, run
from .test_dashboard import live
from .test_one_screen import state_at_least

LANGUAGES = ["en", "de", "be", "hy", "tl"]
STATIC = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static"
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SMALL_PHONE = {"width": 360, "height": 640}
# A refused play, worded by the page from the refusal's code and params (English: the daemon's own sentence).
REFUSED = {
    "en": "It is ann's turn.",
    "de": "ann ist am Zug.",
    "be": "Зараз ход: ann.",
    "hy": "Հերթը՝ ann։",
    "tl": "Turn ni ann ngayon.",
}

# Words that are the same in every language: the players' names, the games' and the languages' own names, units
# and technical names a player may be shown (a broker's address, a hash).
ALLOWED = {
    *PLAYERS,
    TABLE,
    "uno",
    "attack",
    "mario",
    "kart",
    "english",
    "deutsch",
    "tagalog",
    "ms",
    "mqtt",
    "websocket",
    "wi-fi",
    "gpio",
    "id",
}
# Common English words that are in no catalogue sentence but would betray a hard-coded English string.
COMMON_ENGLISH = {
    "the",
    "and",
    "for",
    "with",
    "from",
    "not",
    "has",
    "have",
    "you",
    "your",
    "this",
    "that",
    "there",
    "what",
    "who",
    "when",
    "will",
    "was",
    "are",
    "is",
    "it",
    "of",
    "to",
    "in",
    "on",
    "at",
    "by",
    "no",
    "yes",
    "or",
    "be",
    "do",
}
WORD = re.compile(r"(?<![0-9A-Za-z])[A-Za-z][A-Za-z'’]+(?![0-9A-Za-z])")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
URL = re.compile(r"\S+://\S+")

# The visible text of the page (text nodes of rendered elements, the options of visible selects) and what a screen
# reader says of visible elements (aria-label, title, placeholder). A hash in <code> is not words.
VISIBLE_TEXT = """() => {
  const out = [];
  const shown = (el) => el && el.checkVisibility({ visibilityProperty: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.data.trim();
    const el = node.parentElement;
    if (!text || !shown(el) || el.closest("code, option")) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("body *")) {
    if (!shown(el)) continue;
    for (const name of ["aria-label", "title", "placeholder"]) {
      if (el.getAttribute(name)) out.push(el.getAttribute(name));
    }
    if (el.tagName === "SELECT") for (const o of el.options) out.push(o.text);
  }
  return out;
}"""

# Every rendered block (not inline) element that holds text itself: its content must fit its box (a word wider than
# a button, a label pushed out of its tile). Inline elements are measured through their block.
OVERFLOWING = """() => {
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const style = getComputedStyle(el);
    if (style.display === "inline" || style.display === "contents") continue;
    const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.data.trim())
      || [...el.children].some((c) => getComputedStyle(c).display === "inline" && c.textContent.trim());
    if (!own || ["auto", "scroll"].includes(style.overflowX)) continue;
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || r.right > innerWidth + 1 || r.left < -1)
      bad.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className}: "${el.textContent.trim().slice(0, 60)}" `
        + `scroll ${el.scrollWidth} > box ${el.clientWidth} (right ${Math.round(r.right)})`);
  }
  return bad;
}"""


def catalogue(page: Any, code: str) -> dict[str, Any]:
    return dict(page.evaluate("async (c) => (await import(`./js/lang/${c}.js`)).default", code))


def whole_number_categories(page: Any, code: str) -> set[str]:
    """The CLDR plural categories ``code`` uses for 0..1000 (what a count on the page can select)."""
    return set(
        page.evaluate(
            "(c) => { const r = new Intl.PluralRules(c);"
            " return [...new Set([...Array(1001).keys()].map((n) => r.select(n)))]; }",
            code,
        )
    )


def forms(message: Any) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [message]


def words_of(messages: dict[str, Any]) -> set[str]:
    return {w.lower() for m in messages.values() for text in forms(m) for w in WORD.findall(PLACEHOLDER.sub(" ", text))}


def read_catalogues(browser: Any, dashboard_url: str, categories: bool = False) -> dict[str, dict[str, Any]]:
    """Every language's message catalogue as the page loads it (and, with ``categories``, under ``_categories``
    the plural categories each language uses for a count)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(dashboard_url)
        found = {code: catalogue(page, code) for code in LANGUAGES}
        if categories:
            found["_categories"] = {code: sorted(whole_number_categories(page, code)) for code in LANGUAGES}
        return found
    finally:
        context.close()


@pytest.fixture(scope="module")
def catalogues(browser: Any, dashboard_url: str) -> dict[str, dict[str, Any]]:
    return read_catalogues(browser, dashboard_url, categories=True)


# ---- the catalogues ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_each_catalogue_has_englishs_keys_placeholders_and_plural_forms(
    catalogues: dict[str, dict[str, Any]], code: str
) -> None:
    english, other = catalogues["en"], catalogues[code]
    assert sorted(set(english) - set(other)) == [], f"{code} lacks keys"
    assert sorted(set(other) - set(english)) == [], f"{code} has keys English lacks"
    needed = set(catalogues["_categories"][code])
    problems = []
    for key, message in other.items():
        allowed = {p for text in forms(english[key]) for p in PLACEHOLDER.findall(text)}
        for text in forms(message):
            stray = set(PLACEHOLDER.findall(text)) - allowed
            if stray:
                problems.append(f"{key}: placeholder(s) {sorted(stray)} English lacks")
        if isinstance(english[key], dict) != isinstance(message, dict):
            problems.append(f"{key}: plural in one language, not in the other")
        elif isinstance(message, dict) and not needed <= set(message):
            problems.append(f"{key}: no form for {sorted(needed - set(message))}")
    assert problems == []


def test_belarusian_needs_and_has_three_forms_for_whole_numbers(catalogues: dict[str, dict[str, Any]]) -> None:
    assert {"one", "few", "many"} <= set(catalogues["_categories"]["be"])
    assert set(catalogues["be"]["count.cards"]) >= {"one", "few", "many"}


def keys_named_in_scripts() -> dict[str, set[str]]:
    """Every catalogue key a script names literally: ``t("…")``, ``tParts("…")``, ``has("…")`` and the key tables
    ("banner.color", ["#btn-draw", "actions.draw"], …), with the file that names it."""
    named: dict[str, set[str]] = {}
    literal = re.compile(r"""["']((?:[a-z_]+)\.[a-z0-9_\-]+)["']""")
    for path in sorted((STATIC / "js").glob("*.js")):
        for key in literal.findall(path.read_text()):
            named.setdefault(key, set()).add(path.name)
    from .test_page_words import keys_in_page  # index.html's data-i18n keys

    for key in keys_in_page():
        named.setdefault(key, set()).add("index.html")
    return named


def test_every_key_the_scripts_use_exists(catalogues: dict[str, dict[str, Any]]) -> None:
    english = catalogues["en"]
    namespaces = {key.split(".")[0] for key in english}
    named = {k: files for k, files in keys_named_in_scripts().items() if k.split(".")[0] in namespaces}
    assert len(named) > 300, "the scan found too few keys: has the lookup changed shape?"
    assert {k: sorted(f) for k, f in named.items() if k not in english} == {}
    # Keys built from a value (t(`face.${face}`)): every value the page can pass.
    from unolauncher.rules.cards import RULESETS

    built = [f"status.{k}" for k in ("connecting", "online", "reconnecting", "offline", "auth", "error")]
    built += [f"colour.{c}" for c in ("red", "yellow", "green", "blue", "wild")]
    built += [f"ruleset.{r}" for r in RULESETS]
    built += [f"item.{i}" for i in ("mushroom", "banana", "green-shell", "lightning", "bob-omb")]
    built += [
        f"face.{f}"
        for deck in RULESETS.values()
        for card in deck.deck
        if " " in card
        for f in [card.split(" ", 1)[1]]
        if not f.isdigit()
    ]
    from unolauncher.daemon.prepare import offered_presets
    from unolauncher.rules.options import REGISTRY

    built += [f"preset.{p}" for p in offered_presets("custom")]  # the setup form's presets, from the daemon
    built += [f"option.{o.name}" for o in REGISTRY if o.setup and isinstance(o.default, bool)]  # its switches
    from unolauncher.rules.house_rules import rules

    built += [b.key for rule in rules() for b in rule.banner()]  # a house rule's banner, from the rule catalogue
    from .test_reveal_words import reveal_reasons

    built += [f"ev.reveal.{r}" for r in reveal_reasons()]  # why a launcher secret came out early
    assert [k for k in built if k not in english] == []
    # And no message the page can never show: each is named, built from a value, or a refusal code's words.
    built_from = ("refusal.", "cmd.", "backend.", "glyph.", "awake.", "ev.reloaded", "ev.reshuffled")
    unused = [k for k in english if k not in named and k not in built and not k.startswith(built_from)]
    assert unused == []


def test_every_catalogue_is_in_the_offline_shell() -> None:
    from .test_offline_shell_list import shell_list

    files = {f"js/lang/{p.name}" for p in (STATIC / "js" / "lang").glob("*.js")}
    assert files == {f"js/lang/{c}.js" for c in LANGUAGES}
    assert files | {"js/i18n.js", "js/i18n-page.js"} <= shell_list()


# ---- the page in each language ----------------------------------------------------------------------------------


def open_in(phones: PhoneFactory, url: str, code: str | None, locale: str = "en-US") -> Any:
    """A 360×640 phone whose languages are ``locale``'s, with ``code`` chosen on it before (None: never chosen)."""
    context = phones.browser.new_context(
        viewport=SMALL_PHONE, device_scale_factor=1, has_touch=True, is_mobile=True, locale=locale
    )
    phones.contexts.append(context)
    if code is not None:
        context.add_init_script(f"localStorage.setItem('unolauncher.language', {json.dumps(code)})")
    page = phones.open(url, context)
    live(page)
    return page


class Scan:
    """Collects, per moment, English words left on a page meant to be in another language, and text that overflows."""

    def __init__(self, page: Any, code: str, catalogues: dict[str, dict[str, Any]], table: TableHandle) -> None:
        self.page, self.code, self.table = page, code, table
        own = words_of(catalogues[code])
        english = words_of(catalogues["en"]) | COMMON_ENGLISH
        self.suspect = (lambda w: w not in own) if code in ("be", "hy") else (lambda w: w in english and w not in own)
        self.english: list[str] = []
        self.overflow: list[str] = []
        self.moments = 0

    def __call__(self, moment: str, shot: bool = False) -> None:
        seq = self.table.state["seq"]
        assert wait_until(lambda: state_at_least(self.page, seq), 5), moment
        # The answers to the page's own `moves` questions for this state redraw the controls (in the reply's handler):
        # wait until none is awaited.
        self.page.wait_for_function("() => window.unoDashboard.moves.asked.size === 0", timeout=15_000)
        # A box shown or resized without new words (a tab opened) is fitted by a ResizeObserver, which runs in the
        # next frame's rendering: measure after two frames.
        self.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        self.moments += 1
        if self.code != "en":
            for text in self.page.evaluate(VISIBLE_TEXT):
                for word in WORD.findall(URL.sub(" ", text)):  # an address is not words
                    if word.lower() not in ALLOWED and self.suspect(word.lower()):
                        self.english.append(f"{moment}: {word!r} in {text!r}")
        self.overflow += [f"{moment}: {b}" for b in self.page.evaluate(OVERFLOWING)]
        if shot:
            out = DOCS_IMG if os.environ.get("UPDATE_SCREENSHOTS") else ARTIFACTS
            out.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(out / f"languages-{self.code}.png"))

    def views(self, moment: str) -> None:
        """Every tab, then back to the table."""
        for tab in ("feed", "scores", "launcher", "setup", "table"):
            self.page.click(f"[data-tab={tab}]")
            self(f"{moment}/{tab}")


def attack_round(scan: Scan, table: TableHandle) -> None:
    page = scan.page
    run(table, four_players("attack", ann=2))
    scan("attack-turn")
    page.click("#btn-play")  # the card picker
    expect(page.locator("#picker")).to_be_visible()
    page.locator("#picker-faces button:not([disabled])").first.click()
    scan("attack-picker")
    page.keyboard.press("Escape")
    refused = table.command({"type": "play", "player": "bob", "card": "red 7"})  # ann's turn: refused, ann named
    assert refused["code"] == "not_your_turn" and refused["params"] == {"player": "ann"}, refused
    # Refusals go to the phone that sent the command: the page's wording of this real reply is what it would show.
    assert page.evaluate("(r) => import('./js/screen.js').then((m) => m.refusalText(r))", refused) == REFUSED[scan.code]
    run(table, {"type": "play", "player": "ann", "card": "wild attack-attack", "color": "red", "target": "cy"})
    scan("attack-catch", shot=True)
    page.click("#catchable")  # the catch sheet
    expect(page.locator("#seat-sheet .catchers .chip").first).to_be_visible()
    scan("attack-catch-sheet")
    page.keyboard.press("Escape")
    run(table, {"type": "hit", "player": "cy", "cards": 112})  # the launcher runs dry: ATK-21 asks for a reload
    run(table, {"type": "catch", "player": "dee", "target": "ann"})
    scan("attack-hits-owed")
    for _ in range(2):
        run(table, {"type": "hit", "player": "ann", "cards": 0})
    run(table, {"type": "hit", "player": "cy", "cards": 0})
    scan("attack-reload")
    run(table, {"type": "reload"})
    run(table, {"type": "play", "player": "bob", "card": "red hit-2"})  # ATK-11: cy must hit twice
    scan("attack-hit-2")
    run(table, {"type": "hit", "player": "cy", "cards": 0})
    run(table, {"type": "hit", "player": "cy", "cards": 0})
    for player, card in (("dee", "red 8"), ("ann", "red 3")):
        run(table, {"type": "play", "player": player, "card": card})
    scan("attack-scores")
    scan.views("attack-scores")
    run(table, {"type": "score", "hands": {"bob": 40, "cy": 60, "dee": 80}})
    scan("attack-next-round")
    page.click("#pending-box[data-kind=next_round] .btn")  # table mode: the deal sheet
    expect(page.locator("#deal-sheet")).to_be_visible()
    scan("attack-deal-sheet")
    page.keyboard.press("Escape")
    scan.views("attack-end")


def mario_kart_round(scan: Scan, table: TableHandle) -> None:
    page = scan.page
    run(table, four_players("mario-kart", ann=2))
    scan("mk-start-colour")
    run(table, {"type": "choose", "player": "dee", "color": "red"})
    scan("mk-turn")
    run(table, {"type": "play", "player": "ann", "card": "wild draw-4", "color": "blue"})  # MK-13, one card left
    scan("mk-challenge")
    run(table, {"type": "challenge", "player": "bob", "guilty": False})
    run(table, {"type": "play", "player": "cy", "card": "wild item-box", "turned": "green 3"})  # MK-10
    scan("mk-green-shell")
    run(table, {"type": "choose", "player": "cy", "target": "bob"})
    run(table, {"type": "play", "player": "dee", "card": "wild item-box", "turned": "wild draw-4"})  # MK-12
    scan("mk-bob-omb")
    run(table, {"type": "choose", "player": "dee", "color": "red"})
    run(table, {"type": "play", "player": "ann", "card": "red 3"})
    scan("mk-scores")
    run(table, {"type": "score", "hands": {"bob": 40, "cy": 60, "dee": 80}})
    scan("mk-next-round")
    scan.views("mk-end")
    page.click("[data-tab=setup]")
    page.click("#setup-start")  # a game is running: the page asks first
    expect(page.locator("#confirm-new")).to_be_visible()
    scan("setup-confirm")
    page.keyboard.press("Escape")
    page.click("#conn")  # the connection sheet
    expect(page.locator("#settings")).to_be_visible()
    scan("settings")
    page.keyboard.press("Escape")


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_round_of_each_rule_set_shows_no_english_and_nothing_overflows(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, catalogues: dict[str, dict[str, Any]], code: str
) -> None:
    page = open_in(phones, dashboard_url, code)
    assert page.evaluate("document.documentElement.lang") == code
    scan = Scan(page, code, catalogues, table)
    attack_round(scan, table)
    mario_kart_round(scan, table)
    assert scan.moments > 30
    assert not scan.english, f"{len(scan.english)} English word(s) on the {code} page:\n" + "\n".join(scan.english)
    assert not scan.overflow, f"text overflowing its box on the {code} page at 360×640:\n" + "\n".join(scan.overflow)
    feed = page.locator("#feed .feed-item").all_inner_texts()
    assert len(feed) > 30  # the scan read a full feed, not an empty page


def test_belarusian_counts_take_one_few_and_many(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    page = open_in(phones, dashboard_url, "be")
    counts = [1, 2, 4, 5, 11, 14, 21, 22, 25, 101, 112]
    cards = page.evaluate("(ns) => ns.map((n) => window.unoI18n.t('count.cards', { count: n }))", counts)
    assert cards == [
        "1 карта",
        "2 карты",
        "4 карты",
        "5 карт",
        "11 карт",
        "14 карт",
        "21 карта",
        "22 карты",
        "25 карт",
        "101 карта",
        "112 карт",
    ]
    run(table, four_players("attack"))
    run(table, {"type": "play", "player": "ann", "card": "red hit-2"})  # ATK-11: bob hits twice
    expect(page.locator("#banner")).to_have_text("bob націскае 2 разы")
    expect(page.locator('.seat[data-player="ann"] .seat-hand')).to_have_attribute("title", "6 карт у руцэ")
    expect(page.locator('.seat[data-player="bob"] .seat-hand')).to_have_attribute("title", "7 карт у руцэ")
    run(table, {"type": "hit", "player": "bob", "cards": 1})
    expect(page.locator("#banner")).to_have_text("bob націскае 1 раз")
    expect(page.locator('#feed .feed-item[data-type="hit"]').first).to_contain_text("bob націскае — выпала 1 карта")


def test_the_phone_language_decides_and_the_switcher_is_remembered(phones: PhoneFactory, dashboard_url: str) -> None:
    german_phone = open_in(phones, dashboard_url, None, locale="de-DE")
    expect(german_phone.locator("[data-tab=table]")).to_have_text("◎Tisch")
    filipino_phone = open_in(phones, dashboard_url, None, locale="fil-PH")
    expect(filipino_phone.locator("[data-tab=table]")).to_have_text("◎Mesa")
    # On an English phone, choose Armenian in Setup: the page reloads in Armenian and stays so.
    page = open_in(phones, dashboard_url, None, locale="en-US")
    expect(page.locator("[data-tab=table]")).to_have_text("◎Table")
    page.click("[data-tab=setup]")
    with page.expect_navigation():
        page.select_option("#language select", "hy")
    live(page)
    expect(page.locator("[data-tab=table]")).to_have_text("◎Սեղան")
    expect(page.locator("#language select")).to_have_value("hy")
    page.reload()
    live(page)
    expect(page.locator("[data-tab=table]")).to_have_text("◎Սեղան")
    assert page.evaluate("document.documentElement.lang") == "hy"
    assert page.evaluate("localStorage.getItem('unolauncher.language')") == "hy"
