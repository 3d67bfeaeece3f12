// The table screen's extras (issue "the whole turn on one screen"): who can be caught without UNO, announced in
// the top bar whatever view is open (ATK-18, MK-15: until the next player starts), one tap from the catch sheet.
import { ITEM_KEYS, cardLabel } from "./cards.js";
import { has, language, t } from "./i18n.js";

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
  button.textContent = t("catch.button", { player: exposed });
  button.title = t("catch.title", { player: exposed });
  button.setAttribute("aria-label", button.title);
  button.onclick = () => open(exposed);
}

// ---- big short callouts for what a card did ----------------------------------------------------------------


/** The callout for a live event ("Ben skipped!", "Ben +2", "Green Shell → Dev draws 1"), or null if it says nothing
 * the table must notice. `command` is the command the event answered, when known (a table-mode undo's hit). */
export function calloutFor(ev) {
  const p = ev.player;
  const n = Number.isInteger(ev.count) ? ev.count : Number.isInteger(ev.cards) ? ev.cards : 0;
  switch (ev.type) {
    case "skipped":
      return t("callout.skipped", { player: p });
    case "direction":
      return t("callout.reverse");
    case "owed":
      return ev.until_card ? t("callout.hit_until", { player: p }) : t("callout.hit", { player: p, hits: ev.hits });
    case "drew":
      return n >= 2 ? t("callout.plus", { player: p, count: n }) : null; // a player's own single draw is routine
    case "caught":
      return t("callout.caught", { player: ev.target });
    case "item":
      return t("callout.item", { item: t(ITEM_KEYS.has(ev.item) ? `item.${ev.item}` : "item.box") });
    case "target_chosen":
      return t("callout.green_shell", { player: ev.target });
    case "challenged":
      return ev.guilty ? t("callout.guilty", { player: ev.target }) : t("callout.not_guilty", { player: p });
    case "traded":
      return `${p} ⇋ ${ev.target}`;
    case "hit":
      return n ? t("callout.plus", { player: p, count: n }) : null;
    case "undone": {
      const c = ev.command || {};
      const cards = Number.isInteger(c.cards) ? c.cards : 0;
      if (c.type === "hit" && cards) return t("callout.undo_hit", { count: cards });
      if (c.type === "play" && c.card) return t("callout.undo_play", { player: c.player, card: cardLabel(c.card) });
      return t("callout.undone");
    }
    case "went_out":
      return t("callout.out", { player: p });
    default:
      return null;
  }
}

/** Show `text` big over the table for a moment; callouts of one command stack (at most three lines). */
export function showCallout(node, text, at) {
  if (!text) return;
  const now = Date.now();
  // The effects of one command stand together: its events share the journal's `ts` (`at`), however far apart a busy
  // phone handles them (a Draw Two's "+2" was replaced by its "skipped!" when they came 400 ms apart under load).
  // Events without one fall back to arriving within 400 ms.
  const together = at !== undefined && at !== null
    ? node.dataset.at === String(at)
    : now - Number(node.dataset.since || 0) < 400;
  if (!node.hidden && together && node.children.length < 3) {
    node.append(Object.assign(document.createElement("span"), { textContent: text }));
  } else {
    node.replaceChildren(Object.assign(document.createElement("span"), { textContent: text }));
    node.dataset.since = String(now);
    node.dataset.at = at !== undefined && at !== null ? String(at) : "";
  }
  node.hidden = false;
  clearTimeout(node._timer);
  node._timer = setTimeout(() => { node.hidden = true; }, 2600);
}

// ---- why HIT is off ------------------------------------------------------------------------------------------

/** Why nobody may hit now (shown on the HIT button, which is off), or null if someone may. */
export function hitBlocker(state, { reloadRequested = false, stopped = false } = {}) {
  if (stopped) return t("hit.stopped");
  if (!state || !Array.isArray(state.players) || !state.players.length) return t("hit.no_game");
  if (state.winner) return t("hit.game_over");
  if (state.phase === "scoring") return t("hit.scoring");
  if (state.phase === "between") return t("hit.between");
  if (state.phase !== "playing") return t("hit.no_round");
  if (reloadRequested) return t("hit.reload");
  const pending = state.pending && typeof state.pending === "object" ? state.pending : null;
  if (pending) return t("hit.waiting", { player: pending.player || t("hit.an_answer") });
  const owes = Array.isArray(state.owed) && state.owed.some((o) => o && o.hits > 0);
  if (!owes && state.chain) return t("hit.chain", { player: state.current });
  return null;
}

// ---- refusals in the players' words ---------------------------------------------------------------------------

/** A refusal for the players in the page's language, worded from the daemon's `code` (and `params`, when sent):
 * English keeps the daemon's own sentence, which names who and what (less rule codes and configuration keys); the
 * other languages word the code, or say "refused" for a code they have no words for. */
export function refusalText(reply) {
  const key = `refusal.${reply.code}`;
  const params = reply.params && typeof reply.params === "object" ? reply.params : null;
  if (language() !== "en" && params && has(`${key}_named`)) {
    // The daemon named who or what (docs/protocol.md: params): say it, a card by its name in this language.
    return t(`${key}_named`, { ...params, card: typeof params.card === "string" ? cardLabel(params.card) : "" });
  }
  if (language() !== "en" || reply.code === "rigged_not_allowed") return has(key) ? t(key) : t("refusal.generic");
  return plainRefusal(reply);
}

/** A refusal for the players: no rule codes, no configuration keys ("(option suggestion_penalty)"). */
export function plainRefusal(reply) {
  if (reply.code === "rigged_not_allowed") return t("refusal.rigged_not_allowed");
  if (language() !== "en") return refusalText(reply);
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
    banner.textContent = t("link.no_table", { table: app.config.table });
    banner.dataset.noTable = "1";
  }, ms);
}
