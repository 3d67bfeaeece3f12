// Table mode deals with real cards: the phone asks who dealt and which card was turned up to start the discard pile,
// so the referee plays the table's round, not one it made up (PROTOCOL.md `deal`: {"dealer", "starter"}).
import { cardElement, cardLabel } from "./cards.js";
import { CardGrid } from "./cardgrid.js";
import { button, setBlocked } from "./views.js";
import { t } from "./i18n.js";

// MK-03 (and classic): a Wild Draw Four is never the starter; the table puts it back and turns another card.
const NEVER_STARTS = new Set(["wild draw-4"]);

export class DealSheet {
  constructor(dialog) {
    this.dialog = dialog;
    this.q = (sel) => dialog.querySelector(sel);
    this.dealer = null;
    this.starter = null;
    this.onDeal = null;
    this.grid = new CardGrid(this.q("#deal-colours"), this.q("#deal-faces"), {
      onPick: (card) => {
        this.starter = card;
        this.clearRefusal();
        this.renderFoot();
      },
      enabled: (card) => !NEVER_STARTS.has(card),
      why: () => t("deal.never_starts"),
    });
    this.q("#deal-send").addEventListener("click", (e) => this.onDeal({ dealer: this.dealer, starter: this.starter }, e.currentTarget));
  }

  /**
   * Ask for the deal. `onDeal({dealer, starter}, control)` sends the command (the sheet stays open until it is
   * accepted, so a refusal shows here).
   */
  open({ title, players, ruleset, dealer, onDeal }) {
    this.onDeal = onDeal;
    this.dealer = dealer;
    this.starter = null;
    this.q("#deal-title").textContent = title;
    const chips = this.q("#deal-dealers");
    chips.replaceChildren();
    for (const player of players) {
      const chip = button(player, "chip", () => {
        this.dealer = player;
        for (const other of chips.children) other.setAttribute("aria-pressed", String(other === chip));
      });
      chip.dataset.player = player;
      chip.setAttribute("aria-pressed", String(player === dealer));
      chips.append(chip);
    }
    this.grid.show(ruleset, { tab: "red", selected: null });
    this.clearRefusal();
    this.renderFoot();
    if (!this.dialog.open) this.dialog.showModal();
  }

  renderFoot() {
    const preview = this.q("#deal-preview");
    preview.replaceChildren();
    if (this.starter) preview.append(cardElement(this.starter, "sm"), document.createTextNode(` ${cardLabel(this.starter)}`));
    else preview.textContent = t("deal.tap");
    setBlocked(this.q("#deal-send"), !this.starter);
  }

  clearRefusal() {
    const slot = this.q(".refusal");
    slot.textContent = "";
    slot.classList.remove("shown");
  }

  close() {
    this.dialog.close("sent");
  }
}
