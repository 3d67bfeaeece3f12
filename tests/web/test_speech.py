"""This phone speaks the table's news (js/speech.js) through Chromium's real speech synthesis API.

Headless Chromium has the API but no voices here, so the voices a phone would have are given to the page
(``getVoices``) and what the page hands to ``speak`` is recorded instead of sounding: the call, its text and its
language are what can be checked without a loudspeaker. The spoken lines are the box's own (voice/catalogue.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from support.net import wait_until

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue
from .games import four_players, run
from .test_dashboard import live
from .test_languages import LANGUAGES

# The phone's voices, and every utterance the page hands to the synthesizer (recorded, not played).
FAKE_VOICES = """(voices) => {
  window.spoken = [];
  speechSynthesis.getVoices = () => voices;
  speechSynthesis.speak = (u) => window.spoken.push({ text: u.text, lang: u.lang });
}"""


def phone(phones: PhoneFactory, url: str, code: str, voices: list[dict[str, Any]] | None) -> Any:
    context = phones.browser.new_context(viewport={"width": 360, "height": 640}, locale="en-US")
    phones.contexts.append(context)
    context.add_init_script(f"localStorage.setItem('unolauncher.language', {json.dumps(code)})")
    if voices is not None:
        context.add_init_script(f"({FAKE_VOICES})({json.dumps(voices)})")
    page = phones.open(url, context)
    live(page)
    wait_for_catalogue(page)  # the lines it speaks come from the daemon's rule catalogue
    return page


def spoken(page: Any) -> list[dict[str, str]]:
    return list(page.evaluate("window.spoken"))


def heard(page: Any, reply: dict[str, Any]) -> None:
    """The page has handled the command's last event: it hands a line to the synthesizer in the same handler that
    adds the event's feed row, so from here on a line it was going to say is in ``window.spoken``."""
    expect(page.locator(f'#feed .feed-item[data-seq="{reply["seq"]}"]')).to_have_count(1)


def new_attack_game(table: TableHandle) -> None:
    run(table, four_players("attack"))


def test_off_by_default_then_says_the_news_in_the_pages_language_and_stays_on(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    page = phone(
        phones,
        dashboard_url,
        "de",
        [
            {"name": "Anna", "lang": "de-DE", "localService": True},
            {"name": "Samantha", "lang": "en-US", "localService": True},
        ],
    )
    new_attack_game(table)
    run(table, {"type": "play", "player": "ann", "card": "red hit-2"})  # ATK-11: bob must hit twice
    expect(page.locator("#banner")).to_contain_text("bob")
    assert spoken(page) == []  # off: nothing said
    page.click("[data-tab=setup]")
    page.check("#speech input")
    expect(page.locator(".speech-state")).to_have_text("Stimme: Anna")
    run(table, {"type": "hit", "player": "bob", "cards": 0})
    run(table, {"type": "hit", "player": "bob", "cards": 0})  # bob's hits done: cy's turn
    assert wait_until(lambda: {"text": "cy, du bist am Zug.", "lang": "de-DE"} in spoken(page), 5), spoken(page)
    run(table, {"type": "play", "player": "cy", "card": "red hit-2"})
    assert wait_until(
        lambda: {"text": "dee muss 2 Mal auf den Kartenwerfer drücken.", "lang": "de-DE"} in spoken(page), 5
    ), spoken(page)
    page.reload()  # remembered on this phone
    live(page)
    expect(page.locator("#speech input")).to_be_checked()
    page.click("[data-tab=setup]")
    page.uncheck("#speech input")
    run(table, {"type": "hit", "player": "dee", "cards": 0})
    heard(page, run(table, {"type": "hit", "player": "dee", "cards": 0}))
    assert spoken(page) == []  # a fresh page after the reload, switched off: silent


def test_no_voice_for_the_language_says_so_and_speaks_nothing(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    page = phone(phones, dashboard_url, "hy", [{"name": "Samantha", "lang": "en-US", "localService": True}])
    page.click("[data-tab=setup]")
    page.check("#speech input")
    expect(page.locator(".speech-state")).to_have_text("Այս հեռախոսը այս լեզվի համար ձայն չունի. ոչինչ չի ասվում։")
    new_attack_game(table)
    heard(page, run(table, {"type": "play", "player": "ann", "card": "red hit-2"}))
    expect(page.locator("#banner")).to_contain_text("bob")
    assert spoken(page) == []


def test_a_filipino_voice_speaks_tagalog(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    page = phone(phones, dashboard_url, "tl", [{"name": "Blessica", "lang": "fil-PH", "localService": False}])
    page.click("[data-tab=setup]")
    page.check("#speech input")
    new_attack_game(table)
    run(table, {"type": "play", "player": "ann", "card": "red 5"})
    assert wait_until(lambda: {"text": "bob, ikaw na ang turn.", "lang": "fil-PH"} in spoken(page), 5), spoken(page)


def test_the_real_api_without_a_voice(phones: PhoneFactory, dashboard_url: str) -> None:
    """No voices given: the panel says what this Chromium really has."""
    page = phone(phones, dashboard_url, "en", None)
    assert page.evaluate("typeof speechSynthesis.speak") == "function"
    voices = page.evaluate("speechSynthesis.getVoices().filter((v) => v.lang.startsWith('en')).length")
    page.click("[data-tab=setup]")
    page.check("#speech input")
    state = page.locator(".speech-state")
    if voices:
        expect(state).to_contain_text("Voice: ")
    else:
        expect(state).to_have_text("This phone has no voice for this language: nothing is spoken.")


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_phone_says_the_boxs_lines(phones: PhoneFactory, dashboard_url: str, code: str) -> None:
    from unolauncher.voice.catalogue import CATALOGUES, COUNTED, render

    page = phone(phones, dashboard_url, code, [])
    for kind in CATALOGUES[code]:
        for n in (0, 1, 2, 5, 21, 112, 1000):
            params: dict[str, Any] = {"player": "ann", "target": "bob", "winner": "cy", "hits": n, "points": n}
            said = page.evaluate("async ([k, p]) => (await import('./js/speech.js')).line(k, p)", [kind, params])
            assert said == render(code, kind, params), (code, kind, n)
    assert set(COUNTED) <= set(CATALOGUES[code])


def test_the_page_keeps_no_copy_of_the_boxs_lines() -> None:
    """One source: no voice line is written in the page's scripts or catalogues."""
    from pathlib import Path

    from unolauncher.voice.catalogue import CATALOGUES

    static = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static" / "js"
    scripts = "".join(p.read_text(encoding="utf-8") for p in sorted(static.rglob("*.js")))
    assert '"say.' not in scripts
    messages = [m for lang in CATALOGUES.values() for m in lang.values()]
    lines = [t for m in messages for t in (m.values() if isinstance(m, dict) else [m])]
    assert [line for line in lines if line in scripts] == []
