// The table screen's extras (issue "the whole turn on one screen"): who can be caught without UNO, announced in
// the top bar whatever view is open (ATK-18, MK-15: until the next player starts), one tap from the catch sheet.

/**
 *   renderCatchable(document.getElementById("catchable"), state, (player) => seatSheet.open(player));
 */
export function renderCatchable(button, state, open) {
  const exposed = state && state.phase === "playing" ? state.uno_exposed : null;
  button.hidden = !exposed;
  if (!exposed) {
    button.onclick = null;
    return;
  }
  button.textContent = `Catch ${exposed}!`;
  button.title = `${exposed} has one card left and has not called UNO: tap to catch them (or let them call it).`;
  button.setAttribute("aria-label", button.title);
  button.onclick = () => open(exposed);
}

// ---- big short callouts for what a card did ----------------------------------------------------------------

export const ITEM_NAMES = {
  mushroom: "Mushroom", banana: "Banana", "green-shell": "Green Shell", lightning: "Lightning", "bob-omb": "Bob-omb",
};

/** The callout for a live event ("Ben skipped!", "Ben +2", "Green Shell → Dev draws 1"), or null if it says nothing
 * the table must notice. `command` is the command the event answered, when known (a table-mode undo's hit). */
export function calloutFor(ev) {
  const p = ev.player;
  const n = Number.isInteger(ev.count) ? ev.count : Number.isInteger(ev.cards) ? ev.cards : 0;
  switch (ev.type) {
    case "skipped":
      return `${p} skipped!`;
    case "direction":
      return "Reverse!";
    case "owed":
      return ev.until_card ? `${p}: hit until a card comes out` : `${p}: hit ×${ev.hits}`;
    case "drew":
      return n >= 2 ? `${p} +${n}` : null; // a player's own single draw is routine
    case "caught":
      return `${ev.target} caught without UNO!`;
    case "item":
      return `${ITEM_NAMES[ev.item] || "Item Box"}!`;
    case "target_chosen":
      return `Green Shell → ${ev.target} draws 1`;
    case "challenged":
      return ev.guilty ? `Guilty! ${ev.target} draws 4` : `Not guilty: ${p} draws 6`;
    case "traded":
      return `${p} ⇋ ${ev.target}`;
    case "hit":
      return n ? `${p} +${n}` : null;
    case "undone": {
      const c = ev.command || {};
      const cards = Number.isInteger(c.cards) ? c.cards : 0;
      if (c.type === "hit" && cards) return `Undone: put the ${cards === 1 ? "card" : `${cards} cards`} back in the launcher`;
      if (c.type === "play" && c.card) return `Undone: ${c.player} takes ${c.card} back`;
      return "Undone";
    }
    case "went_out":
      return `${p} is out!`;
    default:
      return null;
  }
}

/** Show `text` big over the table for a moment; callouts of one command stack (at most three lines). */
export function showCallout(node, text) {
  if (!text) return;
  const now = Date.now();
  if (!node.hidden && now - Number(node.dataset.since || 0) < 400 && node.children.length < 3) {
    node.append(Object.assign(document.createElement("span"), { textContent: text }));
  } else {
    node.replaceChildren(Object.assign(document.createElement("span"), { textContent: text }));
    node.dataset.since = String(now);
  }
  node.hidden = false;
  clearTimeout(node._timer);
  node._timer = setTimeout(() => { node.hidden = true; }, 2600);
}

// ---- why HIT is off ------------------------------------------------------------------------------------------

/** Why nobody may hit now (shown on the HIT button, which is off), or null if someone may. */
export function hitBlocker(state, { reloadRequested = false, stopped = false } = {}) {
  if (stopped) return "launcher stopped";
  if (!state || !Array.isArray(state.players) || !state.players.length) return "no game yet";
  if (state.winner) return "the game is over";
  if (state.phase === "scoring") return "round over — enter the scores";
  if (state.phase === "between") return "between rounds — deal the next round";
  if (state.phase !== "playing") return "no round is being played";
  if (reloadRequested) return "launcher empty — reload it first";
  const pending = state.pending && typeof state.pending === "object" ? state.pending : null;
  if (pending) return `waiting for ${pending.player || "an answer"}`;
  const owes = Array.isArray(state.owed) && state.owed.some((o) => o && o.hits > 0);
  if (!owes && state.chain) return `${state.current} plays again or passes`;
  return null;
}

// ---- refusals in the players' words ---------------------------------------------------------------------------

const PLAIN = {
  rigged_not_allowed: "This table does not take a chosen seed or deal: it shuffles and draws its own.",
};

/** A refusal for the players: no rule codes, no configuration keys ("(option suggestion_penalty)"). */
export function plainRefusal(reply) {
  if (PLAIN[reply.code]) return PLAIN[reply.code];
  const message = String(reply.message || reply.code || "Refused.");
  return message
    .replace(/\s*\([^()]*(?:\b[a-z]+_[a-z_]+\b|\[[a-z_]+\])[^()]*\)/g, "")
    .replace(/\s*\((?:ATK|MK)-\d\d\)|\s*(?:ATK|MK)-\d\d:?/g, "")
    .trim();
}

// ---- a mistyped table id ---------------------------------------------------------------------------------------

/** Connected to the broker, yet after `ms` there is neither a retained state nor a status for this table: no daemon
 * ever ran a table by that name here. Say so instead of showing what looks like an empty live table. */
export function watchForTable(app, banner, ms = 3000) {
  clearTimeout(watchForTable.timer);
  watchForTable.timer = setTimeout(() => {
    if (!app.connected || app.state || app.daemonOnline !== null) return;
    banner.className = "banner wrap idle";
    banner.textContent = `No such table: “${app.config.table}” — nothing on this broker has that name. Check the table id in the address.`;
    banner.dataset.noTable = "1";
  }, ms);
}
