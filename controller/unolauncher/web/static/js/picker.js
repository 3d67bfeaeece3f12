// The card picker: colour, then face (only playable faces enabled), then the Wild's colour / the target.
import {
  COLOURS, DECKS, cardElement, cardLabel, capitalise, faceLabel, isPlayable, needsColour, needsTarget, parseCard,
} from "./cards.js";

export class Picker {
  constructor(dialog, { send }) {
    this.dialog = dialog;
    this.send = send;
    this.state = null;
    this.tab = "red";
    this.card = null;
    this.color = null;
    this.target = null;
    this.q = (sel) => dialog.querySelector(sel);
    this.q("#picker-send").addEventListener("click", (e) => this.submit(e.currentTarget));
    this.q("#picker-player").addEventListener("change", () => this.renderTargets());
  }

  open(state) {
    if (!state || !state.players) return;
    this.state = state;
    this.card = this.color = this.target = null;
    const inForce = state.color || parseCard(state.top).colour;
    this.tab = COLOURS.includes(inForce) ? inForce : "red";
    const select = this.q("#picker-player");
    select.replaceChildren(...state.players.map((p) => new Option(p, p, false, p === state.current)));
    this.clearRefusal();
    this.render();
    this.dialog.showModal();
  }

  refresh(state) {
    this.state = state;
    if (this.dialog.open) this.render();
  }

  deck() {
    return DECKS[this.state && this.state.ruleset] || DECKS.attack;
  }

  render() {
    const tabs = this.q("#picker-colours");
    tabs.replaceChildren();
    for (const colour of [...COLOURS, "wild"]) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = `colour-tab c-${colour}`;
      b.textContent = capitalise(colour);
      b.setAttribute("role", "tab");
      b.setAttribute("aria-selected", String(colour === this.tab));
      b.addEventListener("click", () => {
        this.tab = colour;
        this.render();
      });
      tabs.append(b);
    }
    const faces = this.q("#picker-faces");
    faces.replaceChildren();
    const deck = this.deck();
    const cards = this.tab === "wild" ? deck.wilds : deck.faces.map((f) => `${this.tab} ${f}`);
    for (const card of cards) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "face";
      b.dataset.card = card;
      b.append(cardElement(card, "md"));
      const label = document.createElement("span");
      label.className = "face-label";
      const { face } = parseCard(card);
      label.textContent = this.tab === "wild" ? cardLabel(card).replace(/^Wild ?/, "") || "Wild" : faceLabel(face);
      b.append(label);
      const playable = isPlayable(card, this.state);
      b.disabled = !playable;
      if (!playable) b.title = "Does not match the top card";
      if (card === this.card) b.setAttribute("aria-pressed", "true");
      b.addEventListener("click", () => {
        this.card = card;
        this.color = null;
        this.target = null;
        this.render();
      });
      faces.append(b);
    }
    this.renderExtras();
  }

  renderExtras() {
    const wildBox = this.q("#picker-wild");
    const wantsColour = this.card && needsColour(this.card);
    wildBox.hidden = !wantsColour;
    const swatches = this.q("#picker-wild-colours");
    swatches.replaceChildren();
    if (wantsColour) {
      for (const colour of COLOURS) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = `swatch c-${colour}`;
        b.textContent = capitalise(colour);
        b.dataset.color = colour;
        if (colour === this.color) b.setAttribute("aria-pressed", "true");
        b.addEventListener("click", () => {
          this.color = colour;
          this.renderExtras();
        });
        swatches.append(b);
      }
    }
    this.renderTargets();
  }

  renderTargets() {
    const box = this.q("#picker-target");
    const wantsTarget = this.card && needsTarget(this.card);
    box.hidden = !wantsTarget;
    const chips = this.q("#picker-targets");
    chips.replaceChildren();
    if (wantsTarget) {
      const player = this.q("#picker-player").value;
      for (const other of this.state.players.filter((p) => p !== player)) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "chip";
        b.textContent = other;
        b.dataset.target = other;
        if (other === this.target) b.setAttribute("aria-pressed", "true");
        b.addEventListener("click", () => {
          this.target = other;
          this.renderTargets();
        });
        chips.append(b);
      }
    }
    this.renderFoot();
  }

  renderFoot() {
    const preview = this.q("#picker-preview");
    preview.replaceChildren();
    const ready = this.card && (!needsColour(this.card) || this.color) && (!needsTarget(this.card) || this.target);
    if (this.card) {
      preview.append(cardElement(this.card, "sm"));
      let text = cardLabel(this.card);
      if (this.color) text += ` → ${this.color}`;
      if (this.target) text += ` at ${this.target}`;
      preview.append(document.createTextNode(` ${text}`));
    } else {
      preview.textContent = "Pick a card";
    }
    this.q("#picker-send").disabled = !ready;
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
    this.send(command, button, () => this.dialog.close("sent"));
  }
}
