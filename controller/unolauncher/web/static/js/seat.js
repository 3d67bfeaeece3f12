// A player's sheet: call UNO for them, or report that someone caught them without it (ATK-18, MK-15). Each button is
// off unless the referee lists that move for the player who would send it (moves.js).
import { commandButton, el, setBlocked } from "./views.js";
import { t } from "./i18n.js";

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
      this.dialog.querySelector("#seat-title").textContent = t("seat.who_calls");
      const chips = el("div", "chips");
      // Those who may call first (two cards or fewer); the others stay listed, greyed by the referee's answer.
      const few = (p) => (state.hands && state.hands[p] <= 2 ? 0 : 1);
      for (const p of [...state.players].sort((a, b) => few(a) - few(b))) {
        chips.append(this.offered(p, "chip", { type: "uno", player: p }, close));
      }
      actions.replaceChildren(chips);
      const exposed = state.uno_exposed;
      if (exposed) this.catchers(actions, exposed, close);
      return;
    }
    this.dialog.querySelector("#seat-title").textContent = player;
    actions.replaceChildren(this.offered(t("seat.calls", { player }), "btn uno wide", { type: "uno", player }, close));
    this.catchers(actions, player, close);
  }

  /** "`player` forgot UNO — caught by:" and a chip per other player (ATK-18, MK-15). */
  catchers(actions, player, close) {
    const state = this.state();
    actions.append(el("p", "muted small", t("seat.forgot", { player })));
    const chips = el("div", "chips catchers");
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

  /** Who the big UNO button calls it for without asking (the button shows the name): the one player who may call
   * (two cards or fewer) while nobody can be caught. With someone catchable the tap may be a catch, or another
   * player's own call: it asks, so it never credits a call to someone who did not make it (ATK-18). */
  unoShortcut() {
    const state = this.state();
    if (!state || !state.players || !state.hands || state.uno_exposed) return null;
    const few = state.players.filter((p) => state.hands[p] <= 2);
    return few.length === 1 ? few[0] : null;
  }

  /** The big UNO button: the one player who may call it, named on the button; else ask who calls (or who caught). */
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
