"""The banner of an open house-rule situation comes from the rule itself (``HouseRule.banner``, sent in the rule
catalogue's ``banners``), and the page words any rule's entry the same way (``views.js``'s ``houseBanner``):

- every rule's banner message is in all five language catalogues, with the placeholders its template fills;
- a made-up rule's banner, taken through the daemon's own catalogue code, renders on the page as its message says
  (no page file names a rule).

Real Chromium against ``unolauncher run`` (the table fixture's daemon)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rules.test_house_banner import Curfew

from unolauncher.daemon import catalogue as catalogue_module
from unolauncher.rules.house_rules import rules

from .conftest import PhoneFactory, wait_for_catalogue
from .test_dashboard import live
from .test_languages import LANGUAGES, PLACEHOLDER, catalogue, forms

STATIC = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static"
PLAYERS = ["ann", "bob", "cy"]
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


@pytest.fixture(scope="module")
def catalogues(browser: Any, dashboard_url: str) -> dict[str, dict[str, Any]]:
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(dashboard_url)
        return {code: catalogue(tab, code) for code in LANGUAGES}
    finally:
        context.close()


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
