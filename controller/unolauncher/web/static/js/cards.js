// Cards as PROTOCOL.md spells them ("red 7", "wild", "wild hit-4"): faces per rule set, labels. Which of
// them may be played now is the referee's answer (moves.js), never decided here.

import { CATALOGUE } from "./catalogue.js";
import { has, t } from "./i18n.js";

export const COLOURS = ["red", "yellow", "green", "blue"];

// Coloured faces and Wild cards of each rule set's deck ({ faces, wilds }): the daemon's, from the rule catalogue
// (`decks`, made from rules/cards.py), so the page keeps no copy; empty until the catalogue arrives.
export const DECKS = CATALOGUE.decks;
const NO_DECK = Object.freeze({ faces: [], wilds: [], values: {} });

/** The deck of `ruleset`, else of `fallback` (a page with no game yet), else none (no catalogue yet). */
export function deckOf(ruleset, fallback) {
  return DECKS[ruleset] || DECKS[fallback] || NO_DECK;
}

// Wilds that name a colour when played; the Item Box's colour comes from the turned card (MK-07).
const NO_COLOUR_WILDS = new Set(["item-box"]);

// The faces and items with a name in the catalogues (face.<face>, item.<item>; terms: docs/languages.md).
const FACE_KEYS = new Set([
  "skip", "reverse", "hit-2", "hit-4", "draw-2", "draw-4", "discard-all", "trade-hands", "attack-attack",
  "customizable", "all-hit", "hit-fire", "item-box",
]);
export const ITEM_KEYS = new Set(["mushroom", "banana", "green-shell", "lightning", "bob-omb"]);

/** "red" -> "Red" / "Rot" / "Чырвоны" …; an unknown colour as it came. */
export function colourName(colour) {
  return COLOURS.includes(colour) || colour === "wild" ? t(`colour.${colour}`) : capitalise(String(colour || ""));
}

/** "mario-kart" -> "UNO Mario Kart" (the game's name; "Classic UNO" is translated). */
export function rulesetName(ruleset) {
  // The rule sets themselves come from the daemon (catalogue.js); a name the catalogues lack shows as it came.
  return ruleset && has(`ruleset.${ruleset}`) ? t(`ruleset.${ruleset}`) : String(ruleset || "");
}

// Short glyphs for the small card faces drawn on screen.
const FACE_GLYPHS = {
  skip: "⊘",
  reverse: "⇄",
  "hit-2": "H2",
  "hit-4": "H4",
  "draw-2": "+2",
  "draw-4": "+4",
  "discard-all": "DA",
  "trade-hands": "⇋",
  "attack-attack": "AA",
  customizable: "✎",
  "all-hit": "ALL",
  "hit-fire": "HF",
  "item-box": "?",
};

/** Split a card string into its colour ("wild" for Wilds) and face ("" for a plain Wild). */
export function parseCard(card) {
  const text = String(card || "").trim().toLowerCase();
  const space = text.indexOf(" ");
  if (space < 0) return { colour: text, face: "" };
  return { colour: text.slice(0, space), face: text.slice(space + 1) };
}

export function faceLabel(face) {
  if (!face) return t("colour.wild");
  return FACE_KEYS.has(face) ? t(`face.${face}`) : face;
}

export function faceGlyph(face) {
  if (!face) return "W";
  // The letters on a card are the language's (glyph.<face>); the symbols are everyone's.
  return has(`glyph.${face}`) ? t(`glyph.${face}`) : FACE_GLYPHS[face] || face;
}

/** "red hit-2" -> "Red Hit 2", "wild attack-attack" -> "Wild Attack-Attack". */
export function cardLabel(card) {
  const { colour, face } = parseCard(card);
  if (colour === "wild") return face ? t("card.wild", { face: faceLabel(face) }) : t("colour.wild");
  return t("card.coloured", { colour: colourName(colour), face: faceLabel(face) });
}

export function capitalise(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : "";
}

export function needsColour(card) {
  const { colour, face } = parseCard(card);
  return colour === "wild" && !NO_COLOUR_WILDS.has(face);
}

/** Create the small on-screen card (a coloured rounded rectangle with its glyph). */
export function cardElement(card, size = "md") {
  const { colour, face } = parseCard(card);
  const el = document.createElement("span");
  el.className = `card card-${size} c-${COLOURS.includes(colour) ? colour : "wild"}`;
  el.title = cardLabel(card);
  el.setAttribute("aria-label", cardLabel(card));
  const glyph = document.createElement("span");
  glyph.className = "card-glyph";
  glyph.textContent = faceGlyph(face);
  el.append(glyph);
  return el;
}
