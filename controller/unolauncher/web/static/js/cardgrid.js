// Choosing one card of a deck: colour tabs, then the faces of that colour (the card picker's play, the card an Item
// Box turned over, the card turned up to start a round). Cards a grid should not offer are shown disabled.
import { COLOURS, deckOf, cardElement, cardLabel, colourName, faceLabel, parseCard } from "./cards.js";
import { button, el } from "./views.js";

/**
 *   const grid = new CardGrid(tabsNode, facesNode, { onPick: (card) => ..., enabled: (card) => true });
 *   grid.show("attack", { tab: "red", selected: null });
 */
export class CardGrid {
  constructor(tabs, faces, { onPick, enabled = () => true, why = () => "" }) {
    this.tabsNode = tabs;
    this.facesNode = faces;
    this.onPick = onPick;
    this.enabled = enabled; // card -> may it be chosen?
    this.why = why; // card -> the reason it may not (a tooltip)
    this.ruleset = "attack";
    this.tab = "red";
    this.selected = null;
  }

  deck() {
    return deckOf(this.ruleset, "attack");
  }

  show(ruleset, { tab, selected } = {}) {
    this.ruleset = ruleset || "attack";
    if (tab) this.tab = COLOURS.includes(tab) || tab === "wild" ? tab : "red";
    if (selected !== undefined) this.selected = selected;
    if (this.selected) this.tab = parseCard(this.selected).colour;
    this.render();
  }

  render() {
    this.tabsNode.replaceChildren();
    for (const colour of [...COLOURS, "wild"]) {
      const tab = button(colourName(colour), `colour-tab c-${colour}`, () => {
        this.tab = colour;
        this.render();
      });
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-selected", String(colour === this.tab));
      this.tabsNode.append(tab);
    }
    this.facesNode.replaceChildren();
    const deck = this.deck();
    const cards = this.tab === "wild" ? deck.wilds : deck.faces.map((face) => `${this.tab} ${face}`);
    for (const card of cards) {
      const face = button(null, "face", () => {
        this.selected = card;
        this.render();
        this.onPick(card);
      });
      face.dataset.card = card;
      const label = this.tab === "wild" ? cardLabel(card).replace(/^Wild ?/, "") || "Wild" : faceLabel(parseCard(card).face);
      face.append(cardElement(card, "md"), el("span", "face-label", label));
      face.disabled = !this.enabled(card);
      if (face.disabled) face.title = this.why(card);
      if (card === this.selected) face.setAttribute("aria-pressed", "true");
      this.facesNode.append(face);
    }
  }
}
