"""The page reads the card actions and the presets from the daemon's retained rule catalogue (``rules`` topic,
daemon/catalogue.py) and keeps no copy: in real Chromium, whether the picker asks for a target is the referee's
answer for every face and every Wild Customizable action, and the presets the fairness check uses are the
referee's."""

from __future__ import annotations

from pathlib import Path

from unolauncher.rules.cards import CARD_INFO, RULESETS
from unolauncher.rules.options import CUSTOM_ACTIONS
from unolauncher.rules.referee import Referee

from .conftest import PhoneFactory, wait_for_catalogue

STATIC = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static" / "js"


def referee_says(ruleset: str, custom: str | None, house: dict[str, bool]) -> dict[str, bool]:
    ref = Referee()
    options: dict[str, object] = {"customizable": {"action": custom}} if custom else {}
    options.update(house)
    ref.handle({"type": "new_game", "ruleset": ruleset, "players": ["a", "b"], "options": options})
    return {card: ref.play_choices(card)[1] for card in sorted(set(RULESETS[ruleset].deck))}


def test_the_picker_asks_for_a_target_exactly_when_the_referee_wants_one(
    phones: PhoneFactory, dashboard_url: str
) -> None:
    page = phones.open(dashboard_url)
    wait_for_catalogue(page)
    games: list[tuple[str, str | None, dict[str, bool]]] = [(r, None, {}) for r in RULESETS]
    games += [("attack", action, {}) for action in CUSTOM_ACTIONS]
    games += [(r, None, {"seven_zero": True}) for r in RULESETS]  # a house rule gives the 7 a target
    for ruleset, custom, house in games:
        expected = referee_says(ruleset, custom, house)
        got = page.evaluate(
            """async ([cards, custom, options]) => {
              const m = await import('./js/catalogue.js');
              return Object.fromEntries(cards.map((c) => [c, m.namesTarget(c, custom, options)]));
            }""",
            [list(expected), custom, house],
        )
        assert got == expected, (ruleset, custom, house, {c for c in got if got[c] != expected[c]})
    assert any(CARD_INFO[c][1] == "trade-hands" for c in RULESETS["attack-original"].deck)


def test_the_page_keeps_no_copy_of_the_target_cards_or_the_presets() -> None:
    for name in ("cards.js", "picker.js", "fairness.js"):
        text = (STATIC / name).read_text(encoding="utf-8")
        assert "NEEDS_TARGET" not in text and "CUSTOM_TARGET_ACTIONS" not in text, name
        assert "miss_hazard: [" not in text, name  # a preset's numbers
