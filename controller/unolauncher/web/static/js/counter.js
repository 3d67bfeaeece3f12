// The scoring counter (table mode): tap each card left in a player's hand by its value (0–9, 20, 30, 40, 50 as the
// rule set counts them: ATK-20, MK-17) and the hand's points are added up for the score form. The number of cards
// tapped is checked against the hand size the referee tracks, so a card left out (or counted twice) shows.
import { deckOf, faceLabel } from "./cards.js";
import { t } from "./i18n.js";

/** Points of a face (or a whole Wild card) as `ruleset` scores it, from the daemon's rule catalogue (`decks`:
 * ATK-20, MK-17). cardValue("attack", "skip") === 20; cardValue("attack", "7") === 7 */
export function cardValue(ruleset, face) {
  return deckOf(ruleset, "classic").values[face];
}

/** The keypad of a rule set: each value once, with the cards that are worth it. */
export function keypad(ruleset) {
  const deck = deckOf(ruleset, "classic");
  const keys = new Map();
  for (const face of [...deck.faces, ...deck.wilds]) {
    const value = cardValue(ruleset, face);
    if (!keys.has(value)) keys.set(value, []);
    keys.get(value).push(face.startsWith("wild") ? (face === "wild" ? faceLabel("") : t("card.wild", { face: faceLabel(face.slice(5)) })) : faceLabel(face));
  }
  return [...keys.entries()].sort((a, b) => a[0] - b[0]).map(([value, cards]) => ({ value, cards }));
}

function node(tag, className, text) {
  const n = document.createElement(tag);
  if (className) n.className = className;
  if (text !== undefined) n.textContent = text;
  return n;
}

/** Add a counter under each player's field of the score form (`inputs`: #score-inputs), once per round. */
export function attachCounters(inputs, state) {
  if (!state || state.mode !== "table" || inputs.dataset.counters === String(state.round)) return;
  const keys = keypad(state.ruleset);
  if (!keys.length) return; // no rule catalogue (the decks) yet: attached when it arrives (main.js re-renders)
  inputs.dataset.counters = String(state.round);
  for (const input of inputs.querySelectorAll("input")) {
    const player = input.name;
    const held = state.hands ? state.hands[player] : undefined;
    if (held === 0) continue; // went out
    const box = node("div", "counter");
    box.dataset.player = player;
    const taps = [];
    const summary = node("p", "counter-sum small", "");
    const pad = node("div", "counter-keys");
    const show = () => {
      const total = taps.reduce((s, v) => s + v, 0);
      summary.textContent = taps.length ? t("counter.summary", { count: taps.length, cards: taps.join(" + "), total }) : t("counter.tap");
      if (Number.isInteger(held) && taps.length && taps.length !== held) {
        summary.append(node("strong", "counter-check bad", ` · ${t("counter.referee", { count: held })}`));
      } else if (Number.isInteger(held) && taps.length === held) {
        summary.append(node("span", "counter-check ok", ` · ✓ ${t("counter.all")}`));
      }
      if (taps.length) input.value = String(total);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    };
    for (const { value, cards } of keys) {
      const key = node("button", "counter-key", value >= 20 ? `+${value}` : String(value));
      key.type = "button";
      key.title = `${value}: ${cards.join(", ")}`;
      key.setAttribute("aria-label", t("counter.key", { player, value, cards: cards.join(", ") }));
      key.addEventListener("click", () => { taps.push(value); show(); });
      pad.append(key);
    }
    const back = node("button", "counter-key ghost", "↶");
    back.type = "button";
    back.setAttribute("aria-label", t("counter.back", { player }));
    back.addEventListener("click", () => { taps.pop(); if (!taps.length) input.value = ""; show(); });
    pad.append(back);
    const toggle = node("button", "btn small ghost counter-open", t("counter.open", { player }));
    toggle.type = "button";
    toggle.addEventListener("click", () => { box.hidden = !box.hidden; toggle.setAttribute("aria-expanded", String(!box.hidden)); });
    box.hidden = true;
    box.append(pad, summary);
    show();
    input.closest("label").after(toggle, box);
  }
}
