// Rendering: plain DOM from the public state and the event history. No framework: the page must load fast
// on a phone over a Pi's Wi-Fi and stay readable in a year.
import { COLOURS, ITEM_KEYS, capitalise, cardElement, cardLabel, colourName, faceLabel, rulesetName } from "./cards.js";
import { CATALOGUE } from "./catalogue.js";
import { has, language, t, tParts } from "./i18n.js";
import { refusalText } from "./screen.js";

// The daemon's own sentence in English (it names who and what); the page's words for its code otherwise.
const refused = (ev) => (language() === "en" ? ev.message || ev.code : refusalText(ev));

// Whether commands can reach the table now (the MQTT link is up and the daemon online); set by main.js.
export const link = { up: false };

/** A control that sends a command: disabled while `blocked` (its own reason) or while the link is down. */
export function setBlocked(control, blocked) {
  control.dataset.command = "";
  control.dataset.blocked = blocked ? "1" : "";
  control.disabled = Boolean(blocked) || !link.up;
}

/** The link went up or down: every command control follows at once (its own reason still counts). */
export function applyLink(up) {
  link.up = up;
  for (const control of document.querySelectorAll("[data-command]")) {
    control.disabled = !up || control.dataset.blocked === "1";
  }
}

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function owedMap(state) {
  const owed = new Map();
  if (state && Array.isArray(state.owed)) {
    for (const entry of state.owed) {
      if (entry && entry.player) owed.set(entry.player, (owed.get(entry.player) || 0) + (entry.hits || 0));
    }
  }
  return owed;
}

// ---- banner ---------------------------------------------------------------------------------------------

const BANNER_QUESTIONS = { color: "banner.color", target: "banner.target", challenge: "banner.challenge" };

/** The message as nodes: each {player} (and {count}) in <strong>, wherever the language puts it. */
function strong(key, params, numClass = null) {
  return tParts(key, params).map((part) => (typeof part === "string" ? el("span", null, part)
    : el("strong", part.name === "count" ? numClass : null, part.text)));
}

/** The banner of the first open house entry whose rule has a template for it (rules/house_banner.py: the first
 * template whose `when` field and named fields the entry has), as { key, params, tone }; null if none. */
export function houseBanner(house) {
  if (!house || typeof house !== "object") return null;
  for (const [rule, entry] of Object.entries(house)) {
    if (!entry || typeof entry !== "object") continue;
    for (const banner of CATALOGUE.banners[rule] || []) {
      const fields = Object.values(banner.params || {});
      if ((banner.when && entry[banner.when] === undefined) || fields.some((f) => entry[f] === undefined)) continue;
      const params = {};
      for (const [name, field] of Object.entries(banner.params)) params[name] = entry[field];
      // a face as the referee names it ("draw-2", "wild draw-4"): shown by its name in the page's language
      for (const name of banner.faces || []) params[name] = faceLabel(String(params[name]).split(" ").pop());
      return { key: banner.key, params, tone: banner.tone === "hit" ? "hit" : "turn" };
    }
  }
  return null;
}

export function renderBanner(node, state, connected = true) {
  node.className = "banner";
  if (!state && !connected) {
    node.textContent = t("banner.connecting");
    node.classList.add("idle");
    return;
  }
  if (!state || !Array.isArray(state.players) || !state.players.length) {
    node.textContent = t("banner.no_game");
    node.classList.add("idle");
    return;
  }
  if (state.winner) {
    node.replaceChildren(el("span", "crown", "♛"), ...strong("banner.wins_game", { player: state.winner }));
    node.classList.add("win");
    return;
  }
  if (state.phase === "scoring" || state.phase === "between") {
    const who = state.pending && state.pending.player;
    node.textContent = state.phase === "scoring" ? t("banner.went_out", { player: who || t("banner.someone"), round: state.round })
      : t("banner.round_over", { round: state.round });
    node.classList.add("idle");
    return;
  }
  const pending = state.pending && typeof state.pending === "object" ? state.pending : null;
  if (pending && BANNER_QUESTIONS[pending.kind] && pending.player) {
    // The question itself is under the buttons (which never move): the banner says who must answer, and where.
    node.replaceChildren(...strong(BANNER_QUESTIONS[pending.kind], { player: pending.player }));
    node.classList.add("turn");
    return;
  }
  const house = houseBanner(state.house);
  if (house) {
    // A house rule's open situation (a stack to answer, …): the rule's own words, from the rule catalogue.
    node.replaceChildren(...strong(house.key, house.params, "big-num"));
    node.classList.add(house.tone);
    return;
  }
  const owed = Array.isArray(state.owed) && state.owed.find((o) => o && o.hits > 0);
  if (owed) {
    node.replaceChildren(...strong("banner.must_hit", { player: owed.player, count: owed.hits }, "big-num"));
    node.classList.add("hit");
    return;
  }
  if (state.current && state.chain) {
    // ATK-08: after a Skip or Reverse the same player may keep playing matching cards, or pass.
    node.replaceChildren(...strong("banner.chain", { player: state.current }));
    node.classList.add("turn");
    return;
  }
  if (state.current) {
    node.replaceChildren(...strong("banner.turn", { player: state.current }));
    node.classList.add("turn");
    return;
  }
  node.textContent = t("banner.report", { round: state.round ?? "" });
  node.classList.add("idle");
}

// ---- seats around the launcher -------------------------------------------------------------------------

export function renderTable(ring, center, state, onSeat) {
  for (const seat of ring.querySelectorAll(".seat")) seat.remove();
  renderCenter(center, state);
  if (!state || !Array.isArray(state.players)) return;
  const players = state.players;
  const owed = owedMap(state);
  const n = players.length;
  ring.classList.toggle("crowded", n >= 7); // smaller seats so ten fit around a phone-sized table
  players.forEach((player, i) => {
    // Seat 0 at the bottom, then clockwise on screen (y grows downwards, so +angle turns clockwise).
    const angle = Math.PI / 2 + (2 * Math.PI * i) / n;
    const seat = button(null, "seat", () => onSeat(player));
    // On an ellipse inset by half a seat (and its "to play" tag), so that no seat sticks out of the ring, whatever
    // shape the one-screen layout gives it (portrait: tall, landscape: the left half).
    seat.style.left = `calc(50% + ${Math.cos(angle).toFixed(4)} * (50% - var(--seat-dx, 46px)))`;
    seat.style.top = `calc(50% + ${Math.sin(angle).toFixed(4)} * (50% - var(--seat-dy, 42px)))`;
    seat.dataset.player = player;
    const hand = state.hands ? state.hands[player] : undefined;
    const hits = owed.get(player) || 0;
    if (player === state.current) seat.classList.add("current");
    if (hits) seat.classList.add("owes");
    if (state.winner === player) seat.classList.add("winner");
    seat.append(el("span", "seat-name", player));
    const handRow = el("span", "seat-hand");
    handRow.append(el("span", "mini-cards", ""), el("span", "hand-count", hand ?? "?"));
    handRow.title = Number.isInteger(hand) ? t("seat.hand", { count: hand }) : t("seat.label_unknown", { player });
    seat.append(handRow);
    if (hits) seat.append(el("span", "seat-owed", `${hits}`));
    if (state.uno_exposed === player) {
      // ATK-18: one card left and no UNO called yet — anyone may catch them until the next player acts.
      seat.append(el("span", "uno-flag warn", "UNO?"));
      seat.classList.add("exposed");
    } else if (hand === 1) {
      seat.append(el("span", "uno-flag", "UNO"));
    }
    seat.setAttribute("aria-label", (Number.isInteger(hand) ? t("seat.label", { player, count: hand }) : t("seat.label_unknown", { player }))
      + (hits ? t("seat.owes", { count: hits }) : "") + (player === state.current ? t("seat.to_play") : ""));
    ring.append(seat);
  });
}

function renderCenter(center, state) {
  center.replaceChildren();
  center.parentElement.querySelector(":scope > .center-meta")?.remove();
  const launcher = el("div", "launcher-core");
  launcher.append(el("span", "launcher-mouth"));
  center.append(launcher);
  if (!state || !state.players) return;
  const dir = el("div", state.direction === -1 ? "direction ccw" : "direction cw", state.direction === -1 ? "↺" : "↻");
  dir.title = t(state.direction === -1 ? "direction.ccw" : "direction.cw");
  dir.setAttribute("aria-label", t("direction.label", { direction: dir.title }));
  center.append(dir);
  if (state.color) {
    // The colour in play, impossible to miss from across the table: a thick ring around the launcher and its name.
    const band = el("div", `colour-band c-${state.color}`);
    band.id = "colour-in-play";
    band.dataset.color = state.color;
    band.setAttribute("aria-label", t("colour.in_play", { colour: colourName(state.color) }));
    band.append(el("span", "colour-name", colourName(state.color)));
    center.append(band);
  }
  if (state.top) {
    const top = el("div", "top-card");
    top.append(cardElement(state.top, "lg"));
    top.dataset.card = state.top;
    center.append(top);
  }
  // The rule set and round sit in the ring's corner, clear of the card and the colour band.
  center.parentElement.append(el("div", "center-meta", t("ring.meta", { ruleset: rulesetName(state.ruleset), round: state.round ?? 1 })));
}

// ---- hits owed (big numbers) ---------------------------------------------------------------------------

export function renderOwed(node, state) {
  node.replaceChildren();
  if (!state || !Array.isArray(state.owed)) return;
  for (const entry of state.owed) {
    if (!entry || !entry.hits) continue;
    const box = el("div", "owed-box");
    box.dataset.player = entry.player;
    box.append(el("span", "owed-num", entry.hits), el("span", "owed-label", t("owed.label", { player: entry.player, count: entry.hits })));
    node.append(box);
  }
}

// ---- what the referee waits for: a choice, a challenge, round scores, the next round, a reload ---------------

/** A `type="button"` button; `onClick` gets the button (the control a refusal is shown next to). */
export function button(text, className, onClick) {
  const b = el("button", className, text);
  b.type = "button";
  b.addEventListener("click", () => onClick(b));
  return b;
}

/** A button that sends a command (disabled while the link is down, see applyLink). */
export function commandButton(text, className, onClick) {
  const b = button(text, className, onClick);
  setBlocked(b, false);
  return b;
}

/** Fill the prompt box; `ctx` = {send, reloadRequested, goScores, catchPlayer, dealNext}. Returns whether anything is
 * asked. */
export function renderPrompt(box, body, state, ctx) {
  body.replaceChildren();
  const { send } = ctx;
  const pending = state && state.pending && typeof state.pending === "object" ? state.pending : null;
  const row = el("div", "chips");
  let title = null;
  let note = null; // a short explanation under the question
  if (pending) {
    const player = pending.player || state.current;
    const kind = String(pending.kind || pending.type || "choice");
    box.dataset.kind = kind;
    if (kind === "color") {
      // Which card asks (MK-12 Bob-omb, an Item Box with nothing to turn, a Wild turned up at the start).
      const key = { "bob-omb": "ask.bob_omb", "item-box": "ask.item_box_colour", start: "ask.start_colour" }[pending.reason];
      title = t(key || "ask.colour", { player });
      for (const colour of COLOURS) {
        const b = commandButton(colourName(colour), `swatch c-${colour}`, (b) => send({ type: "choose", player, color: colour }, b));
        b.dataset.color = colour;
        row.append(b);
      }
    } else if (kind === "target") {
      title = t(pending.reason === "green-shell" ? "ask.green_shell" : "ask.target", { player });
      for (const target of (state.players || []).filter((p) => p !== player)) {
        row.append(commandButton(target, "chip", (b) => send({ type: "choose", player, target }, b)));
      }
    } else if (kind === "challenge") {
      const by = pending.by || t("ask.the_player");
      title = t(pending.by ? "ask.challenge_by" : "ask.challenge", { player, by });
      row.append(commandButton(t("ask.accept4"), "btn", (b) => send({ type: "accept", player }, b)));
      if (state.mode === "table") {
        // MK-14 in table mode: the players look at the hand and report the outcome; say what each outcome means.
        note = t("ask.challenge_table", { by, player });
        row.append(commandButton(t("ask.guilty"), "btn", (b) => send({ type: "challenge", player, guilty: true }, b)));
        row.append(commandButton(t("ask.not_guilty"), "btn", (b) => send({ type: "challenge", player, guilty: false }, b)));
      } else {
        note = t("ask.challenge_full", { by, player });
        row.append(commandButton(t("ask.challenge_button"), "btn", (b) => send({ type: "challenge", player }, b)));
      }
    } else if (kind === "score") {
      title = t("ask.score", { player });
      row.append(button(t("ask.enter_scores"), "btn primary", () => ctx.goScores()));
    } else {
      title = t("ask.waiting", { player });
    }
  } else if (state && state.phase === "between") {
    box.dataset.kind = "next_round";
    title = t("ask.scored", { round: state.round });
    row.append(commandButton(t("ask.deal_next"), "btn primary", (b) => ctx.dealNext(b)));
  } else if (ctx.reloadRequested && state && state.phase === "playing") {
    box.dataset.kind = "reload";
    title = t("ask.reload");
    row.append(commandButton(t("ask.reloaded"), "btn primary", (b) => send({ type: "reload" }, b)));
  } else if (state && state.uno_exposed && state.phase === "playing") {
    // ATK-18 / MK-15: catchable until the next player acts — make it impossible to miss at the table.
    const exposed = state.uno_exposed;
    box.dataset.kind = "uno";
    title = t("ask.uno_exposed", { player: exposed });
    row.append(commandButton(t("ask.calls_uno", { player: exposed }), "btn uno", (b) => send({ type: "uno", player: exposed }, b)));
    row.append(button(t("ask.catch", { player: exposed }), "btn", () => ctx.catchPlayer(exposed)));
  }
  box.hidden = title === null;
  if (title === null) return false;
  body.append(el("p", "pending-title", title));
  if (note) body.append(el("p", "pending-note", note));
  body.append(row);
  return true;
}

// ---- event feed ----------------------------------------------------------------------------------------

const PENDING_WORDS = {
  color: "ev.pending_color", target: "ev.pending_target", challenge: "ev.pending_challenge", score: "ev.pending_score",
};

/** One readable line per event: [icon, text, tone, card]. Unknown types still show their fields. */
export function describeEvent(ev) {
  const player = ev.player;
  const n = (v) => (Number.isInteger(v) ? v : 0);
  const say = (key, params = {}) => t(key, { player, ...params });
  const short = (v) => String(v || "").slice(0, 12);
  const words = (v) => String(v || "").replaceAll("_", " ");
  switch (ev.type) {
    case "played": {
      const named = ev.color && String(ev.card).startsWith("wild") ? t("ev.played_colour", { colour: colourName(ev.color) }) : "";
      const target = ev.target ? t("ev.played_target", { target: ev.target }) : "";
      const extra = Array.isArray(ev.discarded) && ev.discarded.length ? t("ev.played_discarded", { count: ev.discarded.length }) : "";
      return ["▸", say("ev.played", { card: cardLabel(ev.card) }) + named + target + extra, "play", ev.card];
    }
    case "hit": {
      const c = n(ev.cards);
      return ["✸", c === 0 ? say("ev.hit_click") : say("ev.hit_cards", { count: c }), c ? "hit big" : "hit"];
    }
    case "fired":
      return ["⚙", t("ev.fired", { ms: ev.ran_ms ?? "?", count: n(ev.cards) }) + (ev.outcome && ev.outcome !== "ok" ? t("ev.fired_outcome", { outcome: words(ev.outcome) }) : ""), "quiet"];
    case "press":
      return ["●", player ? say("ev.press_by") : t("ev.press"), "quiet"];
    case "ignored_press":
      return ["●", t("ev.ignored_press"), "quiet"];
    case "lockout":
      return ["⊘", t("ev.lockout"), "quiet"];
    case "press_refused":
      return ["⊘", t(ev.reason === "lid_open" ? "ev.press_refused_lid" : ev.reason === "disabled" ? "ev.press_refused_off" : "ev.press_refused"), "bad"];
    case "launcher_disabled":
      return ["⏻", ev.by ? t("ev.disabled_by", { by: ev.by }) : t("ev.disabled"), "bad"];
    case "launcher_enabled":
      return ["⏻", ev.by ? t("ev.enabled_by", { by: ev.by }) : t("ev.enabled"), "info"];
    case "rejected":
      return ["⊘", t("ev.rejected", { message: refused(ev) }), "bad"];
    case "turn":
      return ["➜", say(ev.again ? "ev.turn_again" : "ev.turn"), "quiet"];
    case "game_started":
      return ["✦", t("ev.game_started", { ruleset: rulesetName(ev.ruleset), players: (ev.players || []).join(", ") }), "info"];
    case "dealer_chosen":
      return ["❖", t("ev.dealer_chosen", { player: ev.dealer }), "quiet"];
    case "round_started":
      return ["❖", t("ev.round_started", { round: ev.round ?? "", player: ev.dealer, card: cardLabel(ev.starter) }), "info", ev.starter];
    case "went_out":
      return ["⚑", say("ev.went_out"), "win"];
    case "round_ended":
      return ["⚑", t("ev.round_ended", { player: ev.winner, points: n(ev.points) }), "win"];
    case "game_over":
      return ["♛", t("ev.game_over", { player: ev.winner }), "win"];
    case "uno_called":
      return ["❢", say("ev.uno_called"), "uno"];
    case "caught":
      return ["⚠", say("ev.caught", { target: ev.target }), "bad"];
    case "penalty": {
      const amount = ev.hits ? t("count.hits", { count: ev.hits }) : t("count.cards", { count: n(ev.cards) });
      return ["⚠", say(ev.reason === "uno" ? "ev.penalty_uno" : ev.reason === "suggestion" ? "ev.penalty_suggestion" : "ev.penalty", { amount }), "bad"];
    }
    case "owed":
      return ["✸", ev.until_card ? say("ev.owed_until") : say("ev.owed", { count: n(ev.hits) }), "hit"];
    case "direction":
      return ["⇄", t(ev.direction === -1 ? "ev.direction_ccw" : "ev.direction_cw"), "quiet"];
    case "chain":
      return ["⇉", say("ev.chain"), "quiet"];
    case "traded":
      return ["⇋", say("ev.traded", { target: ev.target }), "info"];
    case "rotated":
      return ["⟳", say("ev.rotated"), "info"];
    case "skipped":
      return ["⊘", say("ev.skipped"), "quiet"];
    case "drew":
      return ["▸", say("ev.drew", { count: n(ev.count) }), "quiet"];
    case "passed":
      return ["➜", say("ev.passed"), "quiet"];
    case "dispense":
      return ["⇪", say("ev.dispense", { count: n(ev.count) }), "quiet"];
    case "pending":
      return ["?", say("ev.pending", { what: t(PENDING_WORDS[ev.kind] || "hit.an_answer") }), "info"];
    case "color_chosen":
      return ["◐", say("ev.color_chosen", { colour: colourName(ev.color) }), "info"];
    case "target_chosen":
      return ["◎", say("ev.target_chosen", { target: ev.target }), "info"];
    case "item": {
      const item = ITEM_KEYS.has(ev.item) ? t(`item.${ev.item}`) : t("item.some");
      return ["?", ev.card ? t("ev.item_from", { item, card: cardLabel(ev.card) }) : t("ev.item", { item }), "info", ev.card];
    }
    case "challenged":
      return ["⚖", say(ev.guilty ? "ev.challenged_guilty" : "ev.challenged_not_guilty", { target: ev.target }), "info"];
    case "accepted":
      return ["✓", say("ev.accepted"), "quiet"];
    case "reload_request":
      return ["⇪", t("ev.reload_request"), "bad"];
    case "reloaded":
    case "reshuffled":
      return ["↻", t(`ev.${ev.type}`, { count: n(ev.cards) }), "info"];
    case "undone": {
      const c = ev.command || {};
      // A hit taken back: its cards are in someone's hand, the referee no longer counts them there — say so.
      if (c.type === "hit" && n(c.cards)) return ["↶", t(c.player ? "ev.undone_hit" : "ev.undone_hit_anon", { player: c.player, count: n(c.cards) }), "bad"];
      const what = has(`cmd.${c.type}`) ? t(`cmd.${c.type}`) : words(c.type);
      return ["↶", c.type ? t("ev.undone_what", { what: c.card ? `${what} ${cardLabel(c.card)}` : what }) : t("ev.undone"), "info"];
    }
    case "jam":
      return ["⚠", t("ev.jam"), "bad"];
    case "magazine_empty":
      return ["⚠", t("ev.magazine_empty"), "bad"];
    case "max_run":
      return ["⚠", t("ev.max_run"), "bad"];
    case "fault":
      return ["⚠", ev.message ? t("ev.fault_message", { message: ev.message }) : t("ev.fault"), "bad"];
    case "launcher_connected":
      return ["⚙", t("ev.launcher_connected"), "quiet"];
    case "uno_button":
      return ["❢", t("ev.uno_button"), "quiet"];
    case "dispensed":
      return ["⇪", say("ev.dispensed", { count: n(ev.cards) }) + (n(ev.cards) < n(ev.wanted) ? t("ev.dispensed_short", { missing: n(ev.wanted) - n(ev.cards) }) : ""), "quiet"];
    case "dispense_skipped":
      return ["⇪", say("ev.dispense_skipped", { count: n(ev.wanted) }), "info"];
    case "lid_open":
      return ["◠", t("ev.lid_open"), "quiet"];
    case "lid_closed":
      return ["◡", t("ev.lid_closed"), "quiet"];
    case "ejection_commit":
      return ["#", t(ev.reason === "free" ? "ev.commit_free" : "ev.commit_undo", { hash: short(ev.commitment) }), "quiet"];
    case "ejection_reveal":
      // Why the secret came out early, in the page's words (a reason the page has no words for is shown as sent).
      const why = has(`ev.reveal.${ev.reason}`) ? t(`ev.reveal.${ev.reason}`) : words(ev.reason);
      return ["#", t("ev.reveal", { reason: why, hash: short(ev.secret) }), "quiet"];
    case "ejection_entropy":
      return ["#", t("ev.entropy"), "quiet"];
    case "ejection_entropy_commit":
      return ["#", t("ev.entropy_commit"), "quiet"];
    case "ejection_entropy_revealed":
      return ["#", t("ev.entropy_revealed"), "quiet"];
    case "ejection_entropy_withheld":
      return ["⚠", t("ev.entropy_withheld"), "bad"];
    case "ejection_carry":
      return ["#", t("ev.carry", { player: player || t("ev.the_next_player") }), "quiet"];
    case "ejection_lid":
      return ["#", t("ev.ejection_lid"), "quiet"];
    case "hit_failed":
      return ["⚠", player ? say("ev.hit_failed_owed", { reason: words(ev.reason) }) : t("ev.hit_failed", { reason: words(ev.reason) }), "bad"];
    case "event_too_large":
      return ["⚠", t("ev.event_too_large", { type: words(ev.original_type || "") }), "bad"];
    case "unattributed_hit":
      return ["✸", t("ev.unattributed", { count: n(ev.cards) }), "bad"];
    case "hit_refused":
      return ["⚠", say("ev.hit_refused", { count: n(ev.cards), message: refused(ev) }), "bad"];
    default: // a newer daemon's event: its name in words, never its raw fields
      return ["•", t("ev.other", { type: capitalise(words(ev.type || "event")) }), "quiet"];
  }
}

export function feedItem(ev) {
  const [icon, text, tone, card] = describeEvent(ev);
  const li = el("li", `feed-item tone-${tone.split(" ").join(" tone-")}`);
  li.dataset.type = ev.type;
  if (Number.isInteger(ev.seq)) li.dataset.seq = String(ev.seq);
  li.append(el("span", "ev-icon", icon));
  if (card) li.append(cardElement(card, "sm"));
  li.append(el("span", "ev-text", text));
  const when = typeof ev.ts === "number" ? new Date(ev.ts > 1e12 ? ev.ts : ev.ts * 1000) : new Date();
  const time = el("time", "ev-time", when.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }));
  li.append(time);
  return li;
}

// ---- scores --------------------------------------------------------------------------------------------

export function renderScores(node, state, history) {
  node.replaceChildren();
  if (!state || !Array.isArray(state.players)) {
    node.append(el("p", "muted", t("scores.no_game")));
    return;
  }
  const scores = state.scores || {};
  const target = state.target_score || 500;
  const ranked = [...state.players].sort((a, b) => (scores[b] || 0) - (scores[a] || 0));
  const table = el("table", "score-table");
  const head = el("tr");
  head.append(el("th", null, ""), el("th", "left", t("scores.player")));
  let prev = {};
  // Points per round = difference of the running totals each round_ended carries (one entry per round: a rescore
  // after an undo replaced the first), the last five rounds.
  const perRound = history.rounds.map((r, i) => {
    const totals = r.totals || {};
    const diff = {};
    for (const p of state.players) diff[p] = (totals[p] || 0) - (prev[p] || 0);
    prev = totals;
    return { round: Number.isInteger(r.round) ? r.round : i + 1, diff };
  }).slice(-5);
  for (const r of perRound) head.append(el("th", "num", t("scores.round", { round: r.round })));
  head.append(el("th", "num", t("scores.total")));
  table.append(head);
  ranked.forEach((player, i) => {
    const row = el("tr");
    if (state.winner === player) row.classList.add("winner");
    row.append(el("td", "rank", i === 0 && (scores[player] || 0) > 0 ? "♛" : String(i + 1)));
    const nameCell = el("td", "left");
    nameCell.append(el("span", null, player));
    const bar = el("span", "score-bar");
    const fill = el("span", "score-fill");
    fill.style.width = `${Math.min(100, (100 * (scores[player] || 0)) / target)}%`;
    bar.append(fill);
    nameCell.append(bar);
    row.append(nameCell);
    for (const r of perRound) row.append(el("td", "num muted", r.diff[player] ? `+${r.diff[player]}` : "–"));
    row.append(el("td", "num total", scores[player] || 0));
    table.append(row);
  });
  node.append(table);
  node.append(el("p", "muted small", t("scores.footer", { count: target, round: state.round ?? 1 })));
}

export function scoreInputs(node, state) {
  const winner = state.pending && state.pending.kind === "score" ? state.pending.player : null;
  const existing = [...node.querySelectorAll("input")].map((i) => i.name).join("|");
  if (existing === state.players.join("|") && node.dataset.round === String(state.round)) return; // keep the typing
  node.replaceChildren();
  node.dataset.round = String(state.round);
  for (const player of state.players) {
    const label = el("label", "inline", player);
    const input = el("input");
    input.type = "number";
    input.min = "0";
    input.step = "1";
    input.inputMode = "numeric";
    input.name = player;
    input.placeholder = player === winner ? "0" : t("scores.points");
    if (player === winner) input.value = "0"; // went out: nothing left in hand
    label.append(input);
    node.append(label);
  }
}

/** The hand values typed in the score form, or the sentence saying what is missing. */
export function readScores(node) {
  const hands = {};
  for (const input of node.querySelectorAll("input")) {
    const text = input.value.trim();
    if (text === "") return { error: t("scores.missing", { player: input.name }) };
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) return { error: t("scores.whole", { player: input.name }) };
    hands[input.name] = value;
  }
  return { hands };
}

// ---- launcher ------------------------------------------------------------------------------------------

export function renderLauncher(node, status, history, { empty = false } = {}) {
  node.replaceChildren();
  const tiles = el("div", "tiles");
  const mood = empty ? ["jam", t("launcher.empty")] : !status ? ["unknown", t("launcher.unknown")] :
    status.enabled === false ? ["stopped", t("launcher.stopped")] :
    status.jammed ? ["jam", t("launcher.jammed")] :
    status.lid_open ? ["lid", t("launcher.lid")] :
    status.running || status.motor_on ? ["run", t("launcher.firing")] : ["ok", t("launcher.ready")];
  const moodTile = el("div", `tile mood mood-${mood[0]}`);
  moodTile.append(el("span", "tile-label", status && status.backend ? t("launcher.backend", { backend: has(`backend.${status.backend}`) ? t(`backend.${status.backend}`) : status.backend }) : t("launcher.name")), el("span", "tile-value", mood[1]));
  tiles.append(moodTile);
  const magazine = status && Number.isInteger(status.magazine_estimate) ? status.magazine_estimate : null;
  const magTile = el("div", "tile");
  magTile.append(el("span", "tile-label", t("launcher.magazine")), el("span", "tile-value big-num", magazine === null ? "?" : `~${magazine}`));
  tiles.append(magTile);
  const hits = history.hits;
  const total = hits.reduce((s, h) => s + h.cards, 0);
  const blanks = hits.filter((h) => h.cards === 0).length;
  const statTile = el("div", "tile wide");
  statTile.append(
    el("span", "tile-label", t("launcher.this_game")),
    el("span", "tile-value", [t("count.hits", { count: hits.length }), t("count.cards", { count: total }),
      t("launcher.clicks", { percent: hits.length ? Math.round((100 * blanks) / hits.length) : 0 })].join(" · ")),
  );
  tiles.append(statTile);
  node.append(tiles);
  node.append(histogram(hits));
  const last = el("ol", "last-hits");
  last.setAttribute("aria-label", t("launcher.last_hits"));
  for (const hit of hits.slice(-8).reverse()) {
    const li = el("li", hit.cards ? "fired" : "click");
    li.append(el("span", "who", hit.player || "?"), el("span", "n", hit.cards ? `+${hit.cards}` : t("press.click")));
    last.append(li);
  }
  if (hits.length) {
    node.append(el("h3", null, t("launcher.last_hits")));
    node.append(last);
  }
}

function histogram(hits) {
  const wrap = el("figure", "histogram");
  const cap = el("figcaption", null, t(hits.length ? "launcher.histogram" : "launcher.histogram_none"));
  const counts = new Map();
  let max = 0;
  for (const h of hits) {
    const bucket = Math.min(h.cards, 8);
    counts.set(bucket, (counts.get(bucket) || 0) + 1);
    max = Math.max(max, bucket);
  }
  const highest = Math.max(1, ...counts.values());
  const bars = el("div", "bars");
  for (let k = 0; k <= Math.max(max, 4); k += 1) {
    const n = counts.get(k) || 0;
    const col = el("div", "bar-col");
    const bar = el("span", "bar");
    bar.style.height = `${(100 * n) / highest}%`;
    bar.title = t("launcher.bar", { n, count: k });
    col.append(el("span", "bar-n", n || ""), bar, el("span", "bar-k", k === 8 ? "8+" : k));
    col.dataset.k = String(k);
    col.dataset.n = String(n);
    bars.append(col);
  }
  wrap.append(cap, bars);
  return wrap;
}
