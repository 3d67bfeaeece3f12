"""The banner of an open house-rule situation comes from the rule itself (``HouseRule.banner``, sent in the rule
catalogue's ``banners``), and the page words any rule's entry the same way (``views.js``'s ``houseBanner``):

- every rule's banner message is in all five language catalogues, with the placeholders its template fills;
- a made-up rule's banner, taken through the daemon's own catalogue code, renders on the page as its message says
  (no page file names a rule);
- on a 360×640 phone with an open Draw Two stack, in every language: the banner is readable (not below fit.js's
  smallest size) and not cut, the turn's controls are all on screen without scrolling, and the answers are tapped:
  a Draw Two through the picker passes the sum on, then the Draw takes it.

Real Chromium against ``unolauncher run`` (the table fixture's daemon)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from rules.rigs import rig
from rules.test_house_banner import Curfew

from support.net import wait_until
from unolauncher.daemon import catalogue as catalogue_module
from unolauncher.rules.house_rules import rules

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue
from .test_dashboard import live
from .test_languages import LANGUAGES, PLACEHOLDER, forms, read_catalogues
from .test_one_screen import IN_VIEW, SCROLLS

STATIC = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static"
PLAYERS = ["ann", "bob", "cy"]
SMALL_PHONE = {"width": 360, "height": 640}
# fit.js's smallest size (SMALLEST: 70 % of the box's own size in app.css), and never below 12 px on a phone.
SMALLEST = 0.7
READABLE_PX = 12
# Rendered by views.js as the page does, and the language's own message for the same key and parameters.
RENDER = """async ({ state, key, params, faces }) => {
  const { renderBanner } = await import("./js/views.js");
  const { t } = await import("./js/i18n.js");
  const { faceLabel } = await import("./js/cards.js");
  const node = document.createElement("div");
  renderBanner(node, state);
  for (const name of faces) params[name] = faceLabel(String(params[name]).split(" ").pop());
  return [node.textContent, node.className, t(key, params)];
}"""
# The banner's font size, its size in app.css (without fit.js's inline size), and whether its words fit its box
# (fit.js's own test).
MEASURE = """(el) => {
  const shown = el.style.fontSize;
  el.style.fontSize = "";
  const base = parseFloat(getComputedStyle(el).fontSize);
  el.style.fontSize = shown;
  return { px: parseFloat(getComputedStyle(el).fontSize), base, height: el.offsetHeight,
           fits: el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1 };
}"""


@pytest.fixture(scope="module")
def catalogues(browser: Any, dashboard_url: str) -> dict[str, dict[str, Any]]:
    return read_catalogues(browser, dashboard_url)


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_rules_banner_is_worded_in_every_language(catalogues: dict[str, dict[str, Any]], code: str) -> None:
    banners = [b for rule in rules() for b in rule.banner()]
    assert banners, "no house rule declares a banner"
    for banner in banners:
        assert banner.key in catalogues[code], f"{code} lacks {banner.key}"
        for text in forms(catalogues[code][banner.key]):
            assert set(PLACEHOLDER.findall(text)) <= set(banner.params), (code, banner.key, text)


def test_no_page_file_names_a_house_rule() -> None:
    """The page words a rule's entry from the catalogue only: no script names a rule's ``house`` entry."""
    scripts = {p.name: p.read_text(encoding="utf-8") for p in (STATIC / "js").glob("*.js")}
    for rule in rules():
        assert [
            name for name, text in scripts.items() if f"house.{rule.name}" in text or f'"{rule.name}"' in text
        ] == []


def test_a_made_up_rules_banner_renders_with_no_page_change(
    phones: PhoneFactory, dashboard_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalogue_module, "house_rules", lambda: (*rules(), Curfew()))
    banners = catalogue_module.catalogue(())["banners"]  # the daemon's own code, with the made-up rule in it
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)
    page.evaluate("async (banners) => (await import('./js/catalogue.js')).setCatalogue({ banners })", banners)
    state = {"players": PLAYERS, "phase": "playing", "current": "ann", "house": {"curfew": {"who": "cy", "left": 3}}}
    shown, classes, message = page.evaluate(
        RENDER, {"state": state, "key": "banner.must_hit", "params": {"player": "cy", "count": 3}, "faces": []}
    )
    assert (shown, classes) == (message, "banner hit")
    assert "cy" in shown and "3" in shown
    # an entry its templates do not fit (no "who") leaves the turn's banner
    state["house"] = {"curfew": {"left": 3}}
    shown, classes, message = page.evaluate(
        RENDER, {"state": state, "key": "banner.turn", "params": {"player": "ann"}, "faces": []}
    )
    assert (shown, classes) == (message, "banner turn")


def small_phone(phones: PhoneFactory, url: str) -> Any:
    context = phones.browser.new_context(viewport=SMALL_PHONE, device_scale_factor=1, has_touch=True, is_mobile=True)
    phones.contexts.append(context)
    return phones.open(url, context)


def on_screen(page: Any, selector: str) -> None:
    locator = page.locator(selector).first
    expect(locator).to_be_visible()
    assert wait_until(lambda: locator.evaluate(IN_VIEW) == "ok", 5), (selector, locator.evaluate(IN_VIEW))


def tap(page: Any, selector: str) -> None:
    on_screen(page, selector)
    page.locator(selector).first.tap()


def test_an_open_stack_on_a_360_by_640_phone(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    hands = {
        "ann": ["red draw-2", "red 1", "red 2"],
        "bob": ["blue draw-2", "blue 1", "blue 2"],
        "cy": ["green 1", "green 2", "yellow 3"],
    }
    assert table.command(rig("classic", hands, "red 5", players=PLAYERS, options={"stacking": True}))["ok"]
    assert table.command({"type": "play", "player": "ann", "card": "red draw-2"})["ok"]
    assert table.state["house"] == {"stacking": {"kind": "draw-2", "player": "bob", "cards": 2}}
    page = small_phone(phones, dashboard_url)
    banner = page.locator("#banner")
    for code in LANGUAGES:
        page.evaluate("(code) => localStorage.setItem('unolauncher.language', code)", code)
        page.reload()
        live(page)
        wait_for_catalogue(page)
        expect(page.locator("html")).to_have_attribute("lang", code)
        _, _, message = page.evaluate(
            RENDER,
            {"state": {}, "key": "banner.stack_draw", "params": {"player": "bob", "card": "draw-2", "count": 2},
             "faces": ["card"]},
        )  # fmt: skip
        expect(banner).to_have_text(message)
        expect(banner).to_have_class("banner turn")
        # readable and not cut, once fit.js has sized it
        assert wait_until(lambda: banner.evaluate(MEASURE)["fits"], 5), (code, banner.evaluate(MEASURE))
        size = banner.evaluate(MEASURE)
        assert size["px"] >= max(READABLE_PX, SMALLEST * size["base"] - 0.1), (code, size)
        on_screen(page, "#banner")
        buttons = page.locator(".actions .btn:visible")
        assert buttons.count() >= 4, code  # Play, Draw, UNO!, Undo
        for i in range(buttons.count()):
            assert wait_until(lambda: buttons.nth(i).evaluate(IN_VIEW) == "ok", 5), (code, i)  # noqa: B023
        assert page.evaluate(SCROLLS) <= 0, (code, "the page scrolls")
        phones.shot(page, f"stack-360x640-{code}")
    # bob answers by tapping: Play, the blue tab, his Draw Two, Send; the stack passes to cy with the sum
    page.evaluate("() => localStorage.setItem('unolauncher.language', 'en')")
    page.reload()
    live(page)
    wait_for_catalogue(page)
    expect(banner).to_have_text("bob: stack a Draw 2 — or draw 2 cards")
    tap(page, "#btn-play")
    tap(page, "#picker .colour-tab.c-blue")
    tap(page, '#picker [data-card="blue draw-2"]')
    tap(page, "#picker-send")
    expect(page.locator("#picker")).to_be_hidden()
    expect(banner).to_have_text("cy: stack a Draw 2 — or draw 4 cards")
    # cy cannot answer: she taps Draw and takes the whole stack
    tap(page, "#btn-draw")
    expect(banner).to_have_text("ann’s turn")
    expect(page.locator('.seat[data-player="cy"] .hand-count')).to_have_text("7")
    assert "stacking" not in table.state.get("house", {})
