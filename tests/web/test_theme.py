"""Readable at the table: every piece of text on the table view, a question and the card picker has a contrast of at
least 4.5:1 against what is rendered behind it (WCAG 1.4.3, computed in Chromium from the computed styles, gradients
at their worst stop), in the dark theme and in the light one that follows the phone's setting; ten players' names are
shown whole. Real Chromium against ``unolauncher run``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PhoneFactory, TableHandle
from .test_dashboard import live

CONTRAST = (Path(__file__).parent / "contrast.js").read_text()
NAMES = ["Alexandra", "Ben", "Cleo", "Dev", "Eli", "Fatima", "Gus", "Hiro", "Ines", "Jo"]


def open_phone(phones: PhoneFactory, url: str, scheme: str) -> Any:
    context = phones.browser.new_context(viewport={"width": 360, "height": 640}, color_scheme=scheme)
    phones.contexts.append(context)
    page = phones.open(url, context)
    live(page)
    return page


def low_contrast(page: Any) -> list[str]:
    result = page.evaluate(CONTRAST)
    assert result["checked"] > 10, result  # the text really was measured
    return list(result["bad"])


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_text_contrast_is_at_least_4_5_to_1(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, scheme: str
) -> None:
    # A Mario Kart round starting on an Item Box: the start colour question with its four swatches (MK-07).
    assert table.command(
        {
            "type": "new_game",
            "ruleset": "mario-kart",
            "mode": "table",
            "players": NAMES[:4],
            "seed": 3,
            "deal": {"dealer": "Dev", "starter": "wild item-box"},
        }
    )["ok"]
    page = open_phone(phones, dashboard_url, scheme)
    expect(page.locator("#pending-box[data-kind=color] .swatch")).to_have_count(4)
    assert page.evaluate("matchMedia('(prefers-color-scheme: light)').matches") == (scheme == "light")
    assert low_contrast(page) == [], "question"
    page.locator("#pending-box .swatch[data-color=green]").click()
    expect(page.locator("#btn-play")).to_be_enabled()
    assert low_contrast(page) == [], "turn"
    page.click("#btn-play")
    expect(page.locator("#picker")).to_be_visible()
    assert low_contrast(page) == [], "picker"
    phones.shot(page, f"picker-{scheme}")


def test_ten_players_names_are_shown_whole(phones: PhoneFactory, dashboard_url: str, table: TableHandle) -> None:
    assert table.command(
        {
            "type": "new_game",
            "ruleset": "attack",
            "mode": "table",
            "players": NAMES,
            "seed": 4,
            "deal": {"dealer": "Jo", "starter": "red 5"},
        }
    )["ok"]
    page = open_phone(phones, dashboard_url, "dark")
    expect(page.locator(".seat")).to_have_count(10)
    cut = page.eval_on_selector_all(
        ".seat-name",
        "nodes => nodes.filter(n => n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1)"
        ".map(n => n.textContent)",
    )
    assert cut == []
    assert page.locator(".seat-name", has_text="Alexandra").inner_text() == "Alexandra"
    phones.shot(page, "ten-players")
