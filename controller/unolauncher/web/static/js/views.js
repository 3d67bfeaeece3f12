// Rendering: plain DOM from the public state and the event history. No framework: the page must load fast
// on a phone over a Pi's Wi-Fi and stay readable in a year.
import { COLOURS, RULESETS, cardElement, cardLabel, capitalise } from "./cards.js";

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

const BANNER_QUESTIONS = {
  color: "chooses the colour",
  target: "chooses a player",
  challenge: "accepts or challenges the Draw Four",
};

export function renderBanner(node, state, connected = true) {
  node.className = "banner";
  if (!state && !connected) {
    node.textContent = "Connecting to the table…";
    node.classList.add("idle");
    return;
  }
  if (!state || !Array.isArray(state.players) || !state.players.length) {
    node.textContent = "No game yet — start one in Setup.";
    node.classList.add("idle");
    return;
  }
  if (state.winner) {
    node.replaceChildren(el("span", "crown", "♛"), el("strong", null, state.winner), el("span", null, " wins the game!"));
    node.classList.add("win");
    return;
  }
  if (state.phase === "scoring" || state.phase === "between") {
    const who = state.pending && state.pending.player;
    node.textContent = state.phase === "scoring" ? `${who || "Someone"} went out — round ${state.round} is over.` : `Round ${state.round} is over.`;
    node.classList.add("idle");
    return;
  }
  const pending = state.pending && typeof state.pending === "object" ? state.pending : null;
  if (pending && BANNER_QUESTIONS[pending.kind] && pending.player) {
    // The question itself is under the buttons (which never move): the banner says who must answer, and where.
    node.replaceChildren(el("strong", null, pending.player), el("span", null, ` ${BANNER_QUESTIONS[pending.kind]} ↓`));
    node.classList.add("turn");
    return;
  }
  const owed = Array.isArray(state.owed) && state.owed.find((o) => o && o.hits > 0);
  if (owed) {
    node.replaceChildren(
      el("strong", null, owed.player), el("span", null, " must hit "),
      el("strong", "big-num", owed.hits), el("span", null, owed.hits === 1 ? " time" : " times"),
    );
    node.classList.add("hit");
    return;
  }
  if (state.current && state.chain) {
    // ATK-08: after a Skip or Reverse the same player may keep playing matching cards, or pass.
    node.replaceChildren(el("strong", null, state.current), el("span", null, " may play again — or pass"));
    node.classList.add("turn");
    return;
  }
  if (state.current) {
    node.replaceChildren(el("strong", null, state.current), el("span", null, "’s turn"));
    node.classList.add("turn");
    return;
  }
  node.textContent = `Round ${state.round ?? ""} is over — report the hand values in Scores.`;
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
    handRow.title = `${hand ?? "?"} cards in hand`;
    seat.append(handRow);
    if (hits) seat.append(el("span", "seat-owed", `${hits}`));
    if (state.uno_exposed === player) {
      // ATK-18: one card left and no UNO called yet — anyone may catch them until the next player acts.
      seat.append(el("span", "uno-flag warn", "UNO?"));
      seat.classList.add("exposed");
    } else if (hand === 1) {
      seat.append(el("span", "uno-flag", "UNO"));
    }
    seat.setAttribute("aria-label", `${player}: ${hand ?? "unknown"} cards${hits ? `, owes ${hits} hits` : ""}${player === state.current ? ", to play" : ""}`);
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
  dir.title = state.direction === -1 ? "counter-clockwise" : "clockwise";
  dir.setAttribute("aria-label", `direction: ${dir.title}`);
  center.append(dir);
  if (state.color) {
    // The colour in play, impossible to miss from across the table: a thick ring around the launcher and its name.
    const band = el("div", `colour-band c-${state.color}`);
    band.id = "colour-in-play";
    band.dataset.color = state.color;
    band.setAttribute("aria-label", `${capitalise(state.color)} in play`);
    band.append(el("span", "colour-name", capitalise(state.color)));
    center.append(band);
  }
  if (state.top) {
    const top = el("div", "top-card");
    top.append(cardElement(state.top, "lg"));
    top.dataset.card = state.top;
    center.append(top);
  }
  // The rule set and round sit in the ring's corner, clear of the card and the colour band.
  center.parentElement.append(el("div", "center-meta", `${RULESETS[state.ruleset] || state.ruleset || ""} · round ${state.round ?? 1}`));
}

// ---- hits owed (big numbers) ---------------------------------------------------------------------------

export function renderOwed(node, state) {
  node.replaceChildren();
  if (!state || !Array.isArray(state.owed)) return;
  for (const entry of state.owed) {
    if (!entry || !entry.hits) continue;
    const box = el("div", "owed-box");
    box.dataset.player = entry.player;
    box.append(el("span", "owed-num", entry.hits), el("span", "owed-label", `${entry.player} · hit${entry.hits === 1 ? "" : "s"} owed`));
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
      title = pending.reason === "bob-omb" ? `Bob-omb: ${player} draws 2 and chooses the colour`
        : pending.reason === "item-box" ? `Item Box (nothing to turn): ${player} chooses the colour`
          : pending.reason === "start" ? `${player}: choose the colour to start with`
            : `${player}: choose the colour`;
      for (const colour of COLOURS) {
        const b = commandButton(capitalise(colour), `swatch c-${colour}`, (b) => send({ type: "choose", player, color: colour }, b));
        b.dataset.color = colour;
        row.append(b);
      }
    } else if (kind === "target") {
      title = pending.reason === "green-shell" ? `Green Shell: ${player} chooses who draws 1` : `${player}: choose a player`;
      for (const target of (state.players || []).filter((p) => p !== player)) {
        row.append(commandButton(target, "chip", (b) => send({ type: "choose", player, target }, b)));
      }
    } else if (kind === "challenge") {
      const by = pending.by || "the player";
      title = `${player}: challenge ${pending.by ? pending.by + "’s " : "the "}Wild Draw Four?`;
      row.append(commandButton("Accept +4", "btn", (b) => send({ type: "accept", player }, b)));
      if (state.mode === "table") {
        // MK-14 in table mode: the players look at the hand and report the outcome; say what each outcome means.
        note = `Guilty: ${by} held a card of the colour before the +4, so ${by} draws 4. `
          + `Not guilty: ${player} draws 6 and loses the turn. Accept: ${player} draws 4 and loses the turn.`;
        row.append(commandButton("Guilty", "btn", (b) => send({ type: "challenge", player, guilty: true }, b)));
        row.append(commandButton("Not guilty", "btn", (b) => send({ type: "challenge", player, guilty: false }, b)));
      } else {
        note = `Accept: ${player} draws 4 and loses the turn. Challenge: if ${by} held a card of the colour before `
          + `the +4, ${by} draws 4; if not, ${player} draws 6 and loses the turn.`;
        row.append(commandButton("Challenge", "btn", (b) => send({ type: "challenge", player }, b)));
      }
    } else if (kind === "score") {
      title = `${player} went out — report the hand values`;
      row.append(button("Enter scores", "btn primary", () => ctx.goScores()));
    } else {
      title = `Waiting for ${player}`;
    }
  } else if (state && state.phase === "between") {
    box.dataset.kind = "next_round";
    title = `Round ${state.round} is scored.`;
    row.append(commandButton("Deal the next round", "btn primary", (b) => ctx.dealNext(b)));
  } else if (ctx.reloadRequested && state && state.phase === "playing") {
    box.dataset.kind = "reload";
    title = "The launcher is empty: load the discard pile (all but the top card).";
    row.append(commandButton("Launcher reloaded", "btn primary", (b) => send({ type: "reload" }, b)));
  } else if (state && state.uno_exposed && state.phase === "playing") {
    // ATK-18 / MK-15: catchable until the next player acts — make it impossible to miss at the table.
    const exposed = state.uno_exposed;
    box.dataset.kind = "uno";
    title = `${exposed} has one card left and has not called UNO!`;
    row.append(commandButton(`${exposed} calls UNO`, "btn uno", (b) => send({ type: "uno", player: exposed }, b)));
    row.append(button(`Catch ${exposed}…`, "btn", () => ctx.catchPlayer(exposed)));
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
  color: "choose a colour",
  target: "choose a player",
  challenge: "accept or challenge the Wild Draw Four",
  score: "report the hand values",
};
const ITEM_NAMES = {
  mushroom: "Mushroom", banana: "Banana", "green-shell": "Green Shell", lightning: "Lightning", "bob-omb": "Bob-omb",
};

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One readable line per event: [icon, text, tone, card]. Unknown types still show their fields. */
export function describeEvent(ev) {
  const p = ev.player;
  const n = (v) => (Number.isInteger(v) ? v : 0);
  switch (ev.type) {
    case "played": {
      const named = ev.color && String(ev.card).startsWith("wild") ? ` → ${ev.color}` : "";
      const target = ev.target ? ` at ${ev.target}` : "";
      const extra = Array.isArray(ev.discarded) && ev.discarded.length ? ` (+${ev.discarded.length} discarded)` : "";
      return ["▸", `${p} played ${cardLabel(ev.card)}${named}${target}${extra}`, "play", ev.card];
    }
    case "hit": {
      const c = n(ev.cards);
      return ["✸", c === 0 ? `${p} hit — click, nothing came out` : `${p} hit — ${plural(c, "card")} came out`, c ? "hit big" : "hit"];
    }
    case "fired":
      return ["⚙", `Launcher ran ${ev.ran_ms ?? "?"} ms: ${plural(n(ev.cards), "card")}${ev.outcome && ev.outcome !== "ok" ? ` (${ev.outcome})` : ""}`, "quiet"];
    case "press":
      return ["●", `Button pressed${p ? ` by ${p}` : ""}`, "quiet"];
    case "ignored_press":
      return ["●", "Press ignored — the launcher is still running", "quiet"];
    case "lockout":
      return ["⊘", "Press ignored — nobody may hit now", "quiet"];
    case "press_refused":
      return ["⊘", `Press refused — ${ev.reason === "lid_open" ? "the lid is open" : ev.reason === "disabled" ? "the launcher is switched off" : ev.message || "the launcher refused it"}`, "bad"];
    case "launcher_disabled":
      return ["⏻", `Launcher switched off${ev.by ? ` by ${ev.by}` : ""} — presses are refused`, "bad"];
    case "launcher_enabled":
      return ["⏻", `Launcher switched on again${ev.by ? ` by ${ev.by}` : ""}`, "info"];
    case "rejected":
      return ["⊘", `Refused: ${ev.message || ev.code}`, "bad"];
    case "turn":
      return ["➜", ev.again ? `${p} plays again` : `${p}’s turn`, "quiet"];
    case "game_started":
      return ["✦", `New game: ${RULESETS[ev.ruleset] || ev.ruleset || ""} with ${(ev.players || []).join(", ")}`, "info"];
    case "dealer_chosen":
      return ["❖", `${ev.dealer} deals`, "quiet"];
    case "round_started":
      return ["❖", `Round ${ev.round ?? ""} dealt by ${ev.dealer} · starter ${cardLabel(ev.starter)}`, "info", ev.starter];
    case "went_out":
      return ["⚑", `${p} went out!`, "win"];
    case "round_ended":
      return ["⚑", `${ev.winner} wins the round (+${n(ev.points)})`, "win"];
    case "game_over":
      return ["♛", `${ev.winner} wins the game!`, "win"];
    case "uno_called":
      return ["❢", `${p} called UNO`, "uno"];
    case "caught":
      return ["⚠", `${p} caught ${ev.target} without UNO`, "bad"];
    case "penalty":
      return ["⚠", `${p}: penalty for ${ev.reason === "uno" ? "a missed UNO" : ev.reason === "suggestion" ? "suggesting a card" : "breaking a rule"} — ${ev.hits ? plural(ev.hits, "hit") : plural(n(ev.cards), "card")}`, "bad"];
    case "owed":
      return ["✸", `${p} must hit ${ev.until_card ? "until a card comes out" : plural(n(ev.hits), "time")}`, "hit"];
    case "direction":
      return ["⇄", `Direction is now ${ev.direction === -1 ? "counter-clockwise" : "clockwise"}`, "quiet"];
    case "chain":
      return ["⇉", `${p} may play another card`, "quiet"];
    case "traded":
      return ["⇋", `${p} traded hands with ${ev.target}`, "info"];
    case "rotated":
      return ["⟳", "Every hand passed to the next player", "info"];
    case "skipped":
      return ["⊘", `${p} is skipped`, "quiet"];
    case "drew":
      return ["▸", `${p} drew ${plural(n(ev.count), "card")}`, "quiet"];
    case "passed":
      return ["➜", `${p} passed`, "quiet"];
    case "dispense":
      return ["⇪", `Deal ${plural(n(ev.count), "card")} to ${p}`, "quiet"];
    case "pending":
      return ["?", `Waiting for ${p}: ${PENDING_WORDS[ev.kind] || "an answer"}`, "info"];
    case "color_chosen":
      return ["◐", `${p} chose ${ev.color}`, "info"];
    case "target_chosen":
      return ["◎", `${p} chose ${ev.target}`, "info"];
    case "item":
      return ["?", `Item Box: ${ITEM_NAMES[ev.item] || "an item"}${ev.card ? ` from ${cardLabel(ev.card)}` : ""}`, "info", ev.card];
    case "challenged":
      return ["⚖", `${p} challenged ${ev.target}: ${ev.guilty ? "guilty" : "not guilty"}`, "info"];
    case "accepted":
      return ["✓", `${p} accepted the Draw Four`, "quiet"];
    case "reload_request":
      return ["⇪", "Launcher empty — reload it with the discard pile", "bad"];
    case "reloaded":
    case "reshuffled":
      return ["↻", `${plural(n(ev.cards), "card")} reshuffled into the ${ev.type === "reloaded" ? "launcher" : "stock"}`, "info"];
    case "undone": {
      const c = ev.command || {};
      // A hit taken back: its cards are in someone's hand, the referee no longer counts them there — say so.
      if (c.type === "hit" && n(c.cards)) return ["↶", `Undone: ${c.player ? `${c.player}’s ` : ""}hit — put the ${plural(n(c.cards), "card")} back in the launcher`, "bad"];
      return ["↶", `Undone${c.type ? `: ${c.type}${c.card ? ` ${c.card}` : ""}` : ""}`, "info"];
    }
    case "jam":
      return ["⚠", ev.message || "Launcher jammed — open the lid and clear it", "bad"];
    case "magazine_empty":
      return ["⚠", ev.message || "The launcher is empty", "bad"];
    case "max_run":
      return ["⚠", "Launcher stopped: the motor ran for too long", "bad"];
    case "fault":
      return ["⚠", `Launcher problem${ev.message ? `: ${ev.message}` : ""}`, "bad"];
    case "launcher_connected":
      return ["⚙", "Launcher connected", "quiet"];
    case "uno_button":
      return ["❢", "UNO button pressed (nobody has one card left unannounced)", "quiet"];
    case "dispensed":
      return ["⇪", `Launcher dealt ${plural(n(ev.cards), "card")} to ${p}${n(ev.cards) < n(ev.wanted) ? ` — take ${n(ev.wanted) - n(ev.cards)} more by hand` : ""}`, "quiet"];
    case "dispense_skipped":
      return ["⇪", `${p}: draw ${plural(n(ev.wanted), "card")} by hand — the launcher was busy`, "info"];
    case "lid_open":
      return ["◠", "Lid opened", "quiet"];
    case "lid_closed":
      return ["◡", "Lid closed", "quiet"];
    case "ejection_commit":
      return ["#", `Launcher committed anew (${ev.reason === "free" ? "free play" : "after an undo"}): ${String(ev.commitment || "").slice(0, 12)}…`, "quiet"];
    case "ejection_reveal":
      return ["#", `Launcher secret revealed (${String(ev.reason || "").replaceAll("_", " ")}): ${String(ev.secret || "").slice(0, 12)}…`, "quiet"];
    case "ejection_entropy":
      return ["#", "A phone added randomness to the launcher", "quiet"];
    case "ejection_entropy_commit":
      return ["#", "A phone committed its randomness for this round", "quiet"];
    case "ejection_entropy_revealed":
      return ["#", "A phone revealed its randomness: mixed into this round", "quiet"];
    case "ejection_entropy_withheld":
      return ["⚠", "A phone committed randomness and never revealed it (the fairness check names it)", "bad"];
    case "ejection_carry":
      return ["#", `${p || "The next player"}: the next press fires the plan of the press that did not finish (not drawn again)`, "quiet"];
    case "ejection_lid":
      return ["#", "Lid opened: the launcher's press count restarts", "quiet"];
    case "hit_failed":
      return ["⚠", `${p || "The launcher"}: the run failed (${String(ev.reason || "").replaceAll("_", " ")}) — ${p ? "the hit is still owed" : "nothing was owed"}`, "bad"];
    case "unattributed_hit":
      return ["✸", `Launcher fired ${plural(n(ev.cards), "card")} with nobody to hit`, "bad"];
    case "hit_refused":
      return ["⚠", `${p}’s ${plural(n(ev.cards), "card")} not counted: ${ev.message}`, "bad"];
    default: // a newer daemon's event: its name in words, never its raw fields
      return ["•", capitalise(String(ev.type || "event").replaceAll("_", " ")), "quiet"];
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
  const time = el("time", "ev-time", when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }));
  li.append(time);
  return li;
}

// ---- scores --------------------------------------------------------------------------------------------

export function renderScores(node, state, history) {
  node.replaceChildren();
  if (!state || !Array.isArray(state.players)) {
    node.append(el("p", "muted", "No game yet."));
    return;
  }
  const scores = state.scores || {};
  const target = state.target_score || 500;
  const ranked = [...state.players].sort((a, b) => (scores[b] || 0) - (scores[a] || 0));
  const table = el("table", "score-table");
  const head = el("tr");
  head.append(el("th", null, ""), el("th", "left", "Player"));
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
  for (const r of perRound) head.append(el("th", "num", `R${r.round}`));
  head.append(el("th", "num", "Total"));
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
  node.append(el("p", "muted small", `First to ${target} points wins. Round ${state.round ?? 1}.`));
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
    input.placeholder = player === winner ? "0" : "points";
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
    if (text === "") return { error: `Enter the points left in ${input.name}'s hand (0 for the player who went out).` };
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) return { error: `${input.name}'s points must be a whole number, 0 or more.` };
    hands[input.name] = value;
  }
  return { hands };
}

// ---- launcher ------------------------------------------------------------------------------------------

export function renderLauncher(node, status, history, { empty = false } = {}) {
  node.replaceChildren();
  const tiles = el("div", "tiles");
  const mood = empty ? ["jam", "EMPTY — reload it on the Table view"] : !status ? ["unknown", "No launcher status yet"] :
    status.enabled === false ? ["stopped", "STOPPED — enable it on the Table view"] :
    status.jammed ? ["jam", "JAMMED — open the lid"] :
    status.lid_open ? ["lid", "Lid open"] :
    status.running || status.motor_on ? ["run", "Firing…"] : ["ok", "Ready"];
  const moodTile = el("div", `tile mood mood-${mood[0]}`);
  moodTile.append(el("span", "tile-label", status && status.backend ? `${status.backend} launcher` : "launcher"), el("span", "tile-value", mood[1]));
  tiles.append(moodTile);
  const magazine = status && Number.isInteger(status.magazine_estimate) ? status.magazine_estimate : null;
  const magTile = el("div", "tile");
  magTile.append(el("span", "tile-label", "Magazine (estimate)"), el("span", "tile-value big-num", magazine === null ? "?" : `~${magazine}`));
  tiles.append(magTile);
  const hits = history.hits;
  const total = hits.reduce((s, h) => s + h.cards, 0);
  const blanks = hits.filter((h) => h.cards === 0).length;
  const statTile = el("div", "tile wide");
  statTile.append(
    el("span", "tile-label", "This game"),
    el("span", "tile-value", `${plural(hits.length, "hit")} · ${plural(total, "card")} · ${hits.length ? Math.round((100 * blanks) / hits.length) : 0}% clicks`),
  );
  tiles.append(statTile);
  node.append(tiles);
  node.append(histogram(hits));
  const last = el("ol", "last-hits");
  last.setAttribute("aria-label", "Last hits");
  for (const hit of hits.slice(-8).reverse()) {
    const li = el("li", hit.cards ? "fired" : "click");
    li.append(el("span", "who", hit.player || "?"), el("span", "n", hit.cards ? `+${hit.cards}` : "click"));
    last.append(li);
  }
  if (hits.length) {
    node.append(el("h3", null, "Last hits"));
    node.append(last);
  }
}

function histogram(hits) {
  const wrap = el("figure", "histogram");
  const cap = el("figcaption", null, hits.length ? "Cards per hit, this game" : "Cards per hit, this game — no hits yet");
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
    bar.title = `${n} × ${k} card${k === 1 ? "" : "s"}`;
    col.append(el("span", "bar-n", n || ""), bar, el("span", "bar-k", k === 8 ? "8+" : k));
    col.dataset.k = String(k);
    col.dataset.n = String(n);
    bars.append(col);
  }
  wrap.append(cap, bars);
  return wrap;
}
