// A player's sheet: call UNO for them, or report that someone caught them without it (ATK-18, MK-15).
import { commandButton, el } from "./views.js";

export class SeatSheet {
  constructor(dialog, { send, state }) {
    this.dialog = dialog;
    this.send = send;
    this.state = state;
  }

  clear() {
    const slot = this.dialog.querySelector(".refusal");
    slot.textContent = "";
    slot.classList.remove("shown");
  }

  open(player) {
    const state = this.state();
    if (!state || !state.players) return;
    this.clear();
    this.dialog.querySelector("#seat-title").textContent = player;
    const actions = this.dialog.querySelector("#seat-actions");
    actions.replaceChildren();
    const close = () => this.dialog.close("sent");
    actions.append(commandButton(`${player} calls UNO`, "btn uno wide", (b) => this.send({ type: "uno", player }, b, close)));
    actions.append(el("p", "muted small", `${player} forgot UNO — caught by:`));
    const chips = el("div", "chips");
    for (const other of state.players.filter((p) => p !== player)) {
      chips.append(commandButton(other, "chip", (b) => this.send({ type: "catch", player: other, target: player }, b, close)));
    }
    actions.append(chips);
    this.dialog.showModal();
  }

  /** Who the big UNO button calls it for without asking: the one player holding one card, if there is one. */
  unoShortcut() {
    const state = this.state();
    if (!state || !state.players || !state.hands) return null;
    const onOne = state.players.filter((p) => state.hands[p] === 1);
    return onOne.length === 1 ? onOne[0] : null;
  }

  /** The big UNO button: whoever holds one card calls it; if that is not clear, ask. */
  callUno(control) {
    const state = this.state();
    if (!state || !state.players) return;
    const shortcut = this.unoShortcut();
    if (shortcut !== null) {
      this.send({ type: "uno", player: shortcut }, control);
      return;
    }
    this.clear();
    this.dialog.querySelector("#seat-title").textContent = "Who calls UNO?";
    const actions = this.dialog.querySelector("#seat-actions");
    const chips = el("div", "chips");
    for (const p of state.players) {
      chips.append(commandButton(p, "chip", (b) => this.send({ type: "uno", player: p }, b, () => this.dialog.close("sent"))));
    }
    actions.replaceChildren(chips);
    this.dialog.showModal();
  }
}
