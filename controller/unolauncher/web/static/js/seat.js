// A player's sheet: call UNO for them, or report that someone caught them without it (ATK-18, MK-15). Each button is
// off unless the referee lists that move for the player who would send it (moves.js).
import { commandButton, el, setBlocked } from "./views.js";

export class SeatSheet {
  /** `allows(player, type, target)`: whether the referee lists the move; `want(player)`: ask it about a player. */
  constructor(dialog, { send, state, allows = () => true, want = () => {} }) {
    this.dialog = dialog;
    this.send = send;
    this.state = state;
    this.allows = allows;
    this.want = want;
    this.view = null; // what the open sheet shows: {player} (a seat) or {player: null} (who calls UNO?)
    this.offers = []; // [button, command] of the open sheet
    this.players = ""; // the players it was drawn for
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
    this.view = { player };
    this.render();
    this.dialog.showModal();
  }

  /** A new state or a new answer from the referee: the open sheet's buttons follow it. The same players keep the
   * same buttons (a tap in flight keeps its control, where its refusal will show); only their state changes. */
  refresh() {
    const state = this.state();
    if (!this.dialog.open || !this.view || !state || !state.players) return;
    if (state.players.join("\n") !== this.players) {
      this.render();
      return;
    }
    for (const p of state.players) this.want(p);
    for (const [b, command] of this.offers) setBlocked(b, !this.allows(command.player, command.type, command.target));
  }

  render() {
    const state = this.state();
    if (!state || !state.players) return;
    for (const p of state.players) this.want(p); // every button below is some player's move
    this.offers = [];
    this.players = state.players.join("\n");
    const close = () => this.dialog.close("sent");
    const actions = this.dialog.querySelector("#seat-actions");
    const player = this.view.player;
    if (player === null) {
      this.dialog.querySelector("#seat-title").textContent = "Who calls UNO?";
      const chips = el("div", "chips");
      for (const p of state.players) {
        chips.append(this.offered(p, "chip", { type: "uno", player: p }, close));
      }
      actions.replaceChildren(chips);
      return;
    }
    this.dialog.querySelector("#seat-title").textContent = player;
    actions.replaceChildren(this.offered(`${player} calls UNO`, "btn uno wide", { type: "uno", player }, close));
    actions.append(el("p", "muted small", `${player} forgot UNO — caught by:`));
    const chips = el("div", "chips");
    for (const other of state.players.filter((p) => p !== player)) {
      chips.append(this.offered(other, "chip", { type: "catch", player: other, target: player }, close));
    }
    actions.append(chips);
  }

  /** A button sending `command`, off unless the referee lists it. */
  offered(text, className, command, onOk) {
    const b = commandButton(text, className, (control) => this.send(command, control, onOk));
    setBlocked(b, !this.allows(command.player, command.type, command.target));
    this.offers.push([b, command]);
    return b;
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
    this.view = { player: null };
    this.render();
    this.dialog.showModal();
  }
}
