"""The faces of each rule set's deck reach the page from the daemon's rule catalogue (``decks``, made from
``rules/cards.py``); ``cards.js`` keeps no copy. Complete: in Python, each rule set's faces in every colour plus its
Wild cards are exactly the deck's cards, each listed once; in real Chromium against ``unolauncher run``, the page's
decks (``cards.js`` ``deckOf``, what the picker, the deal sheet and the score counter draw) are the same cards, the
score counter's card values (``counter.js`` ``cardValue``) are the referee's, and every face has its name in all five
languages."""

from __future__ import annotations

from typing import Any

import pytest

from unolauncher.daemon.catalogue import catalogue, deck_faces
from unolauncher.rules.cards import COLORS, RULESETS

from .conftest import PhoneFactory, wait_for_catalogue
from .test_dashboard import live
from .test_languages import LANGUAGES

# The page's decks, each as its cards, and each face's name in every language (faceLabel falls back to the face).
PAGE_DECKS = """async ({ rulesets, languages }) => {
  const { COLOURS, deckOf } = await import("./js/cards.js");
  const { cardValue } = await import("./js/counter.js");
  const decks = {};
  const values = {};
  for (const ruleset of rulesets) {
    const deck = deckOf(ruleset);
    decks[ruleset] = [...deck.faces.flatMap((face) => COLOURS.map((c) => `${c} ${face}`)), ...deck.wilds];
    values[ruleset] = Object.fromEntries(decks[ruleset].map((card) =>
      [card, cardValue(ruleset, card.startsWith("wild") ? card : card.split(" ").slice(1).join(" "))]));
  }
  const named = {};
  for (const code of languages) {
    const words = (await import(`./js/lang/${code}.js`)).default;
    named[code] = Object.values(decks).flat().map((card) => card.split(" ").slice(1).join(" ").replace(/^wild ?/, ""))
      .filter((face) => face && !/^\\d$/.test(face) && !(`face.${face}` in words));
  }
  return { decks, values, unnamed: named };
}"""


def cards(deck: dict[str, list[str]]) -> list[str]:
    return [f"{colour} {face}" for face in deck["faces"] for colour in COLORS] + deck["wilds"]


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_each_decks_faces_are_its_cards_each_once(ruleset: str) -> None:
    deck = deck_faces()[ruleset]
    assert len(set(deck["faces"])) == len(deck["faces"]) and len(set(deck["wilds"])) == len(deck["wilds"])
    assert sorted(cards(deck)) == sorted(set(RULESETS[ruleset].deck))
    assert all(card.startswith("wild") for card in deck["wilds"])
    assert catalogue(())["decks"][ruleset] == deck
    # What each card is worth at the round's end (ATK-20, MK-17), for the score counter: the rule set's own values.
    worth = {card: deck["values"][card if card.startswith("wild") else card.split(" ", 1)[1]] for card in cards(deck)}
    assert worth == RULESETS[ruleset].values


def test_the_page_draws_the_catalogues_decks(phones: PhoneFactory, dashboard_url: str) -> None:
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)
    shown: dict[str, Any] = page.evaluate(PAGE_DECKS, {"rulesets": list(RULESETS), "languages": LANGUAGES})
    for ruleset, deck in RULESETS.items():
        assert sorted(shown["decks"][ruleset]) == sorted(set(deck.deck)), ruleset
        assert shown["values"][ruleset] == deck.values, ruleset  # the score counter's values are the referee's
    assert shown["unnamed"] == {code: [] for code in LANGUAGES}
