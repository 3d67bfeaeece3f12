// The card picker: colour, then face (only the faces the referee would take enabled), then the Wild's colour / the
// target.
import {
  COLOURS, deckOf, cardElement, cardLabel, colourName, faceLabel, needsColour, parseCard,
} from "./cards.js";
import { namesTarget } from "./catalogue.js";
import { CardGrid } from "./cardgrid.js";
import { button, setBlocked } from "./views.js";
import { t } from "./i18n.js";

export class Picker {
  /** `customAction()` returns the game's Wild Customizable action (from the state's `options`), if known;
   * `canPlay(player, card)` says whether the referee would take that card from that player now (its `moves` answer,
   * see moves.js), and `want(player)` asks for that answer when the picker shows another player. */
  constructor(dialog, { send, customAction = () => null, gameOptions = () => ({}), canPlay = () => true, want = () => {} }) {
    this.dialog = dialog;
    this.send = send;
    this.customAction = customAction;
    this.gameOptions = gameOptions; // the game's options: the house rules it plays (catalogue.js)
    this.canPlay = canPlay;
    this.want = want;
    this.discarded = [];
    this.turned = "";
    this.state = null;
    this.card = null;
    this.color = null;
    this.target = null;
    this.q = (sel) => dialog.querySelector(sel);
    this.grid = new CardGrid(this.q("#picker-colours"), this.q("#picker-faces"), {
      onPick: (card) => this.choose(card),
      enabled: (card) => this.canPlay(this.player(), card),
      why: () => t("picker.not_now"),
    });
    // Table mode, Wild Item Box: the card it turned over (MK-07), chosen the same way as any card.
    this.turnedGrid = new CardGrid(this.q("#picker-turned-colours"), this.q("#picker-turned-faces"), {
      onPick: (card) => {
        this.turned = card;
        this.renderFoot();
      },
    });
    this.q("#picker-send").addEventListener("click", (e) => this.submit(e.currentTarget));
    this.q("#picker-player").addEventListener("change", () => {
      this.clearRefusal(); // the refusal was about the player chosen before ("It is bob's turn")
      this.want(this.player());
      this.render();
    });
    this.q("#picker-discard-clear").addEventListener("click", () => {
      this.discarded = [];
      this.renderExtras();
    });
  }

  player() {
    return this.q("#picker-player").value;
  }

  tableMode() {
    return Boolean(this.state && this.state.mode === "table");
  }

  wantsTarget() {
    if (!this.card) return false;
    return namesTarget(this.card, this.customAction(), this.gameOptions()); // the daemon's action table (catalogue.js)
  }

  wantsDiscarded() {
    return Boolean(this.card && this.tableMode() && parseCard(this.card).face === "discard-all");
  }

  wantsTurned() {
    return Boolean(this.card && this.tableMode() && this.card === "wild item-box");
  }

  open(state) {
    if (!state || !state.players) return;
    this.state = state;
    this.card = this.color = this.target = null;
    this.discarded = [];
    this.turned = "";
    const inForce = state.color || parseCard(state.top).colour;
    const select = this.q("#picker-player");
    select.replaceChildren(...state.players.map((p) => new Option(p, p, false, p === state.current)));
    this.want(this.player());
    this.clearRefusal();
    this.grid.show(state.ruleset, { tab: COLOURS.includes(inForce) ? inForce : "red", selected: null });
    this.renderExtras();
    this.dialog.showModal();
  }

  /** A new state or a new answer from the referee: what may be played may have changed. */
  refresh(state) {
    this.state = state;
    if (!this.dialog.open) return;
    this.want(this.player());
    this.render();
  }

  deck() {
    return deckOf(this.state && this.state.ruleset, "attack");
  }

  render() {
    this.grid.show(this.state && this.state.ruleset, { selected: this.card });
    this.renderExtras();
  }

  choose(card) {
    this.card = card;
    this.color = null;
    this.target = null;
    this.discarded = [];
    this.turned = "";
    this.clearRefusal(); // a refusal was about the card chosen before
    this.renderExtras();
    // What the table must report about this card (the card an Item Box turned, a Discard All's other cards) comes
    // into view by itself: at 360×640 it starts below the sheet's fold, and the thumb should not have to find it.
    const extra = ["#picker-turned", "#picker-discarded"].map((sel) => this.q(sel)).find((box) => !box.hidden);
    if (extra) extra.scrollIntoView({ block: "start" });
  }

  renderExtras() {
    const wildBox = this.q("#picker-wild");
    const wantsColour = this.card && needsColour(this.card);
    wildBox.hidden = !wantsColour;
    const swatches = this.q("#picker-wild-colours");
    swatches.replaceChildren();
    if (wantsColour) {
      for (const colour of COLOURS) {
        const b = button(colourName(colour), `swatch c-${colour}`, () => {
          this.color = colour;
          this.renderExtras();
        });
        b.dataset.color = colour;
        if (colour === this.color) b.setAttribute("aria-pressed", "true");
        swatches.append(b);
      }
    }
    this.renderDiscarded();
    this.renderTurned();
    this.renderTargets();
  }

  renderDiscarded() {
    const box = this.q("#picker-discarded");
    box.hidden = !this.wantsDiscarded();
    const chips = this.q("#picker-discard-faces");
    chips.replaceChildren();
    if (box.hidden) return;
    const { colour } = parseCard(this.card);
    for (const face of this.deck().faces) {
      const card = `${colour} ${face}`;
      const b = button(null, "chip small-chip", () => {
        this.discarded.push(card);
        this.renderDiscarded();
      });
      b.dataset.card = card;
      b.append(cardElement(card, "sm"), document.createTextNode(` ${faceLabel(face)}`));
      chips.append(b);
    }
    this.q("#picker-discard-list").textContent = this.discarded.length
      ? this.discarded.map(cardLabel).join(", ") : t("picker.nothing_else");
  }

  renderTurned() {
    const box = this.q("#picker-turned");
    box.hidden = !this.wantsTurned();
    if (box.hidden) return;
    this.turnedGrid.show(this.state && this.state.ruleset, { selected: this.turned || null });
  }

  renderTargets() {
    const box = this.q("#picker-target");
    const wantsTarget = this.wantsTarget();
    box.hidden = !wantsTarget;
    const chips = this.q("#picker-targets");
    chips.replaceChildren();
    if (wantsTarget) {
      const player = this.q("#picker-player").value;
      for (const other of this.state.players.filter((p) => p !== player)) {
        const b = button(other, "chip", () => {
          this.target = other;
          this.renderTargets();
        });
        b.dataset.target = other;
        if (other === this.target) b.setAttribute("aria-pressed", "true");
        chips.append(b);
      }
    }
    this.renderFoot();
  }

  renderFoot() {
    const preview = this.q("#picker-preview");
    preview.replaceChildren();
    const ready = Boolean(
      this.card && this.canPlay(this.player(), this.card)
      && (!needsColour(this.card) || this.color) && (!this.wantsTarget() || this.target)
      && (!this.wantsTurned() || this.turned),
    );
    if (this.card) {
      preview.append(cardElement(this.card, "sm"));
      let text = cardLabel(this.card);
      if (this.color) text += t("ev.played_colour", { colour: colourName(this.color) });
      if (this.target) text += t("ev.played_target", { target: this.target });
      preview.append(document.createTextNode(` ${text}`));
    } else {
      preview.textContent = t("picker.pick");
    }
    setBlocked(this.q("#picker-send"), !ready);
  }

  clearRefusal() {
    const slot = this.dialog.querySelector(".refusal");
    slot.textContent = "";
    slot.classList.remove("shown");
  }

  submit(button) {
    const command = { type: "play", player: this.q("#picker-player").value, card: this.card };
    if (this.color) command.color = this.color;
    if (this.target) command.target = this.target;
    if (this.wantsDiscarded()) command.discarded = [...this.discarded];
    if (this.wantsTurned()) command.turned = this.turned;
    this.send(command, button, () => this.dialog.close("sent"));
  }
}
