// The dashboard: one MQTT link, the table's public state, the event feed, and the controls that send commands.
import { TableLink } from "./link.js";
import { Picker } from "./picker.js";
import { Setup } from "./setup.js";
import { SeatSheet } from "./seat.js";
import { History } from "./history.js";
import { DealSheet } from "./deal.js";
import { Fairness } from "./fairness.js";
import { setCatalogue } from "./catalogue.js";
import { MoveBook } from "./moves.js";
import { Freshness } from "./freshness.js";
import { attachCounters } from "./counter.js";
import { AtTheTable } from "./awake.js";
import { loadLanguage, t } from "./i18n.js";
import { languagePanel, translatePage } from "./i18n-page.js";
import { keepFitting } from "./fit.js";
import { Speech } from "./speech.js";
import { renderCatchable, calloutFor, showCallout, hitBlocker, plainRefusal, watchForTable } from "./screen.js";
import {
  renderTable, renderOwed, renderBanner, renderPrompt, feedItem, renderScores, renderLauncher, scoreInputs, readScores,
  applyLink, setBlocked, link,
} from "./views.js";

const SETTINGS_KEY = "unolauncher.connection";
const REPLY_TIMEOUT_MS = 6000;
const FEED_LIMIT = 200;
const MINI_FEED = 4;
const BACKFILL = 60; // events asked for on a first visit, so the feed and the histogram are not empty
const SEEN_LIMIT = 5000;

const $ = (id) => document.getElementById(id);

const app = {
  config: {},
  link: null,
  state: null,
  launcher: null,
  daemonOnline: null,
  connected: false, // the MQTT link to the broker is up
  unconfirmed: false, // a command was in flight when the link dropped: it was discarded, not sent later
  liveFrom: null, // seq of the first state after (re)connecting: events up to it are history (no animation, no badge)
  maxSeq: null, // highest event seq received
  minSeq: null, // lowest event seq received (the first-visit backfill ends there)
  backfilled: false,
  stateSeq: null, // seq of the last retained state
  seen: new Set(), // event seqs already shown (QoS 1 redelivery and resends can arrive twice)
  resendAsked: 0, // highest seq a resend was already asked up to
  reloadRequested: false,
  reloadSeq: 0, // seq of the event that set reloadRequested
  history: null,
  fairness: null, // the phone's own check of every revealed round (fairness.js)
  moves: null, // the referee's answer to "what may this player do now" (moves.js): the controls follow it
  pending: new Map(), // command id -> {control, timer, onOk}
  view: "table",
  unseen: 0,
  events: 0,
};
// Read-only hooks for the browser tests (state, seqs, connection) — nothing here changes behaviour.
window.unoDashboard = app;
window.unoBoot?.started(); // every script arrived (js/boot.js)

// ---- settings (remembered on the phone) -------------------------------------------------------------------

function loadSettings() {
  try {
    return JSON.parse(localStorage.getItem(SETTINGS_KEY) || sessionStorage.getItem(SETTINGS_KEY) || "null") || {};
  } catch {
    return {};
  }
}

// ---- connection -------------------------------------------------------------------------------------------

function connect() {
  if (app.link) app.link.close();
  const saved = loadSettings();
  const url = saved.url || app.config.mqtt_url;
  if (!url) {
    openSettings(t("link.enter_address"));
    return;
  }
  app.link = new TableLink(
    { url, base: app.config.base, username: saved.username, password: saved.password, mqtt5: app.config.mqtt5 },
    {
      status: onStatus,
      online: (up) => {
        app.daemonOnline = up;
        updateLink();
      },
      state: onState,
      event: onEvent,
      reply: onReply,
      launcher: (status) => {
        app.launcher = status;
        renderLauncherView();
        renderStop();
      },
      sensors: (values) => app.setup.suggestPreset(values.next_preset), // Home Assistant may have chosen it
      alive: (beat) => app.fresh.alive(beat),
      rules: onRules,
      dropped: onDropped,
    },
  );
}

/** The daemon's rule catalogue (catalogue.js): presets, card actions; the fairness marks may have waited for it. */
function onRules(data) {
  setCatalogue(data);
  document.body.dataset.presets = "ready"; // for the browser tests: the catalogue is in
  if (app.state) renderAll(); // a house rule's banner and the decks' faces come from it
  if (!app.fairness) return;
  app.fairness.recheck();
  app.fairness.render($("fairness"));
}

const STATUS_KINDS = new Set(["connecting", "online", "reconnecting", "offline", "auth", "error"]);

function onStatus(kind, detail) {
  const pill = $("conn");
  pill.dataset.state = kind;
  pill.textContent = STATUS_KINDS.has(kind) ? t(`status.${kind}`) : kind;
  pill.title = detail || t("status.settings");
  document.body.classList.toggle("disconnected", kind !== "online");
  app.connected = kind === "online";
  app.fresh.connected(app.connected);
  if (app.connected) {
    app.liveFrom = null; // what arrives first now is history: the retained state, then the catch-up
    delete document.body.dataset.liveFrom;
  }
  updateLink();
  if (kind === "auth") openSettings(detail || t("link.needs_login"));
  if (!app.state) {
    renderBanner($("banner"), null, kind === "online");
    // Never connected after a while: most likely a wrong address (or a broker listening on 127.0.0.1 only).
    if (kind === "reconnecting" && performance.now() > 6000 && app.link) {
      $("banner").textContent = t("link.unreachable", { url: app.link.options.url, status: t("status.reconnecting") });
      $("banner").classList.add("wrap"); // no game on screen yet: the whole sentence, on as many lines as it takes
    }
  }
  if (kind === "online") {
    watchForTable(app, $("banner")); // a mistyped ?table= id says "no such table"
    app.resendAsked = 0; // a new connection may have missed anything: allow catching up again
    if (!performance.getEntriesByName("uno-connected").length) performance.mark("uno-connected");
  }
}

/** Commands can reach the table only with the link up and the daemon not known to be offline. While they cannot,
 * every control that sends one is disabled and the notice says why; the moment they can, all of it clears. */
function updateLink() {
  const daemonDown = app.daemonOnline === false;
  const silent = app.connected && !daemonDown && app.fresh.silent; // no `alive` for 2.5 s (freshness.js)
  const up = app.connected && !daemonDown && !silent;
  const was = link.up;
  applyLink(up);
  const notice = $("link-notice");
  // While the page is still making its first connection the buttons are off, but there is nothing to explain yet.
  const starting = $("conn").dataset.state === "connecting" && !daemonDown;
  notice.hidden = up || starting;
  if (!up) {
    const why = !app.connected
      ? t("link.no_connection") : silent ? t("link.silent") : t("link.daemon_offline");
    const dropped = app.unconfirmed ? ` ${t("link.dropped")}` : "";
    notice.textContent = `${why} ${t("link.not_later")}${dropped}`;
  } else if (!was) {
    app.unconfirmed = false;
    for (const slot of document.querySelectorAll(".refusal")) clearSlot(slot); // stale: about the time before
    app.moves.reset(); // a question asked before the outage may never be answered: ask again
    if (app.state) renderAll();
  }
}

/** The link dropped with commands in flight: MQTT.js would send them after the reconnect; they were discarded. */
function onDropped() {
  for (const [id, entry] of app.pending) {
    clearTimeout(entry.timer);
    entry.control?.classList.remove("busy");
    app.pending.delete(id);
    app.unconfirmed = true;
  }
  updateLink();
}

// ---- incoming --------------------------------------------------------------------------------------------

/** Whether a retained state (a JSON object: TableLink drops anything else) looks like PROTOCOL.md's public state
 * (a bad one is ignored, not rendered). */
function plausibleState(state) {
  if ("players" in state && !(Array.isArray(state.players) && state.players.every((p) => typeof p === "string"))) return false;
  if ("hands" in state && (typeof state.hands !== "object" || Array.isArray(state.hands))) return false;
  if ("owed" in state && !Array.isArray(state.owed)) return false;
  return true;
}

function onState(state) {
  if (!plausibleState(state)) {
    console.warn("ignoring a state message that is not a table state", state);
    return;
  }
  const before = app.state;
  app.state = state;
  if (before && (before.current !== state.current || before.phase !== state.phase)) {
    clearRefusal($("btn-play")); // "It is bob's turn" is stale once the turn moved on
  }
  if (Number.isInteger(state.seq)) {
    if (app.liveFrom === null) {
      app.liveFrom = state.seq;
      document.body.dataset.liveFrom = String(state.seq); // the browser tests wait for it before making news
    }
    app.stateSeq = state.seq;
    // Give the live events of the same command a moment to arrive; whatever is still missing then was lost
    // while this phone was away (or this is a first visit): ask the daemon to send it again.
    setTimeout(() => catchUp(state.seq), 400);
  }
  if (state.phase !== "playing") app.reloadRequested = false;
  app.moves.reset(); // what anyone may do is asked again for this state (askMoves, from renderTableView)
  renderAll();
  app.atTable.update(state); // keep the screen on during a game; this phone's player's turn/hit alerts
  if (!performance.getEntriesByName("uno-state").length) performance.mark("uno-state");
  document.body.dataset.hasState = "1";
  if (Number.isInteger(state.seq)) document.body.dataset.seq = String(state.seq); // the browser tests wait for it
}

function catchUp(upTo) {
  if (!app.link || !app.link.connected || upTo <= 0) return;
  if (!app.backfilled) {
    // First visit: fetch the recent past (before the first live event) so the feed, the histogram and the
    // round scores are not empty. One resend returns everything from `from` on; duplicates are dropped by seq.
    app.backfilled = true;
    const firstSeen = app.minSeq === null ? upTo + 1 : app.minSeq;
    const from = Math.max(1, firstSeen - BACKFILL);
    if (from < firstSeen) {
      app.resendAsked = Math.max(app.resendAsked, upTo);
      app.link.send({ type: "resend", from });
    }
    return;
  }
  // Back after an outage: whatever the retained state has and this page has not seen.
  if (app.maxSeq !== null && app.maxSeq < upTo && upTo > app.resendAsked) {
    app.resendAsked = upTo;
    app.link.send({ type: "resend", from: app.maxSeq + 1 });
  }
}

function onEvent(event) {
  if (typeof event.type !== "string") {
    console.warn("ignoring an event without a type", event);
    return;
  }
  const seq = Number.isInteger(event.seq) ? event.seq : null;
  if (seq !== null) {
    if (app.seen.has(seq)) return; // already shown (QoS 1 redelivery, or a resend another phone asked for)
    app.seen.add(seq);
    if (app.seen.size > SEEN_LIMIT) app.seen.delete(app.seen.values().next().value);
    if (app.maxSeq !== null && seq > app.maxSeq + 1 && seq - 1 > app.resendAsked) {
      addFeedNote(t("feed.missed", { count: seq - app.maxSeq - 1 }));
      app.resendAsked = seq - 1;
      app.link.send({ type: "resend", from: app.maxSeq + 1 });
    }
    if (app.maxSeq === null || seq > app.maxSeq) app.maxSeq = seq;
    if (app.minSeq === null || seq < app.minSeq) app.minSeq = seq;
  }
  app.events += 1;
  // Live = newer than the state this page started from; older events (the catch-up after a reload, a new phone or
  // a reconnect) are history: shown in the feed, but no "+n" rising from a seat and nothing counted as unread.
  const live = seq !== null && app.liveFrom !== null && seq > app.liveFrom;
  const before = app.reloadRequested;
  // The newest of a reload request and a reload decides (a backfilled older game_started must not clear it).
  const at = seq ?? Number.MAX_SAFE_INTEGER;
  const reloadNews = event.type === "reload_request" || ["reloaded", "reshuffled", "game_started"].includes(event.type);
  if (reloadNews && at >= app.reloadSeq) {
    app.reloadSeq = at;
    app.reloadRequested = event.type === "reload_request";
  }
  app.history.observeEvent(event);
  // For the browser tests: the game whose hits and rounds the page now keeps.
  if (app.history.data.startSeq !== null) document.body.dataset.game = String(app.history.data.startSeq);
  app.fairness.observeEvent(event);
  addFeed(event, seq, live);
  if (live) showCallout($("callout"), calloutFor(event), event.ts); // one command's events share ts
  if (live) app.speech.hear(event); // this phone speaks the news, if asked to (speech.js)
  if (live && event.type === "hit" && seq === app.maxSeq) showLastHit(event);
  if (before !== app.reloadRequested) {
    renderTableView();
    renderLauncherView();
  }
  if (app.history.changedByLastEvent) {
    renderLauncherView();
    renderScoresView();
  } else if (app.fairness.changed) {
    app.fairness.render($("fairness"));
  }
}

function onReply(reply) {
  if (app.fairness.takeReply(reply)) return app.fairness.changed && app.fairness.render($("fairness"));
  if (app.moves.take(reply)) {
    renderMoveControls();
    app.picker.refresh(app.state);
    app.seat.refresh();
    return;
  }
  const entry = app.pending.get(reply.id);
  if (!entry) return void app.fresh.late(reply, showRefusal); // another phone's, or one given up on: stale says why
  app.pending.delete(reply.id);
  clearTimeout(entry.timer);
  entry.control?.classList.remove("busy");
  if (reply.ok === false) showRefusal(entry.control, plainRefusal(reply));
  else {
    clearRefusal(entry.control);
    entry.onOk?.();
  }
}

// ---- outgoing --------------------------------------------------------------------------------------------

/** Send a command; its refusal (if any) appears next to `control`. Never while the link is down (nothing waits). */
function send(command, control, onOk) {
  clearRefusal(control);
  if (!link.up || !app.link || !app.link.connected) return null; // the controls are off and the notice says why
  const id = app.fresh.track(app.link.send(app.fresh.stamp(command, app.stateSeq)), control); // freshness.js
  control?.classList.add("busy");
  const timer = setTimeout(() => {
    if (!app.pending.has(id)) return;
    app.pending.delete(id);
    control?.classList.remove("busy");
    showRefusal(control, t("link.no_answer"));
  }, REPLY_TIMEOUT_MS);
  app.pending.set(id, { control, timer, onOk });
  return id;
}

function refusalSlot(control) {
  if (!control) return null;
  const scope = control.closest("[data-refusal-scope]");
  return scope ? scope.querySelector(":scope > .refusal") : null;
}

function showRefusal(control, message) {
  const slot = refusalSlot(control);
  if (!slot) {
    addFeedNote(message);
    return;
  }
  slot.textContent = message;
  slot.classList.add("shown");
}

function clearSlot(slot) {
  slot.textContent = "";
  slot.classList.remove("shown");
}

function clearRefusal(control) {
  const slot = refusalSlot(control);
  if (slot) clearSlot(slot);
}

// ---- rendering -------------------------------------------------------------------------------------------

/** The emergency stop is on: the daemon's retained launcher status says so (whoever stopped it: this phone,
 * another one, Home Assistant). Unknown (no status yet, or a daemon without the stop) counts as not stopped, so
 * the STOP button is there from the start. */
function launcherStopped() {
  return Boolean(app.launcher && app.launcher.enabled === false);
}

function isVirtual() {
  return app.config.launcher === "virtual" || (app.launcher && app.launcher.backend === "virtual");
}

function renderAll() {
  renderTableView();
  renderScoresView();
  renderLauncherView();
  app.picker.refresh(app.state);
  app.seat.refresh();
}

function renderTableView() {
  const state = app.state;
  renderBanner($("banner"), state, Boolean(app.link && app.link.connected));
  renderTable($("ring"), $("ring-center"), state, (player) => app.seat.open(player));
  renderOwed($("owed"), state);
  renderCatchable($("catchable"), state, (player) => app.seat.open(player));
  renderPrompt($("pending-box"), $("pending-body"), state, {
    send,
    reloadRequested: app.reloadRequested,
    goScores: () => showView("scores"),
    catchPlayer: (player) => app.seat.open(player),
    dealNext,
  });
  const playing = Boolean(state && state.phase === "playing" && state.current);
  const attack = Boolean(state && String(state.ruleset || "").startsWith("attack"));
  $("press-box").hidden = !isVirtual() || !state || !state.players || (state.ruleset && !attack);
  if (state) {
    const owed = Array.isArray(state.owed) && state.owed.length ? state.owed[0].player : null;
    const who = playing ? owed || state.current : null;
    const why = hitBlocker(state, { reloadRequested: app.reloadRequested, stopped: launcherStopped() });
    $("press-who").textContent = why || (who ? t("press.for", { player: who }) : "");
  }
  // Which buttons exist depends on the rule set only, so nothing moves during a game: Draw is for the draw rules;
  // Pass is always there (in UNO Attack it only ends a Skip/Reverse chain, ATK-08, and is off otherwise).
  const drawRules = Boolean(state && state.ruleset && !attack);
  $("btn-draw").hidden = !drawRules;
  renderMoveControls();
  setBlocked($("btn-undo"), !state || !state.players);
  renderStop(); // HIT's own state
}

/** The table's game buttons: off unless the referee listed the move for the player it is sent for (moves.js). Ask,
 * then follow the answer; an answer redraws only these (and the open sheets), never the table around them. */
function renderMoveControls() {
  const state = app.state;
  const playing = Boolean(state && state.phase === "playing" && state.current);
  const current = playing ? state.current : null;
  const unoFor = playing ? app.seat.unoShortcut() : null; // the big UNO button's player, when it needs no question
  askMoves(current, unoFor);
  setBlocked($("btn-play"), !app.moves.canPlayAny(current));
  setBlocked($("btn-draw"), !app.moves.allows(current, "draw"));
  setBlocked($("btn-pass"), !app.moves.allows(current, "pass"));
  setBlocked($("btn-uno"), !playing || (unoFor !== null && !app.moves.allows(unoFor, "uno")));
  $("uno-who").textContent = unoFor ? ` ${unoFor}` : playing ? "…" : ""; // whom one tap calls it for, or "asks"
}

/** Ask the referee what these players may do now (each once per state; nothing is sent while the link is down). */
function askMoves(...players) {
  if (!link.up) return;
  for (const player of players) app.moves.want(player);
}

/** The emergency stop's row: STOP while the launcher may run; "Launcher stopped" and Enable while it may not. */
function renderStop() {
  const stopped = launcherStopped();
  const box = $("estop");
  // A refusal shown while stopped (e.g. the enable could not be journalled) is history once it runs again.
  if (box.dataset.stopped === "true" && !stopped) clearRefusal($("btn-stop"));
  box.dataset.stopped = String(stopped);
  $("btn-stop").hidden = stopped;
  $("estop-stopped").hidden = !stopped;
  setBlocked($("btn-stop"), stopped);
  setBlocked($("btn-enable"), !stopped);
  // Off while the daemon would refuse it (stopped) or nobody may hit (the reason is on the button: hitBlocker).
  setBlocked($("press"), stopped || hitBlocker(app.state, { reloadRequested: app.reloadRequested }) !== null);
}

function renderScoresView() {
  renderScores($("scores"), app.state, app.history);
  app.fairness.render($("fairness"));
  const scoring = Boolean(app.state && app.state.phase === "scoring" && app.state.players);
  $("score-form").hidden = !scoring;
  if (scoring) scoreInputs($("score-inputs"), app.state);
  if (scoring) attachCounters($("score-inputs"), app.state); // tap the cards left, the hand's points add up
  setBlocked($("score-form").querySelector("button[type=submit]"), !scoring);
}

function renderLauncherView() {
  renderLauncher($("launcher"), app.launcher, app.history, { empty: app.reloadRequested });
  // The daemon's lid/load commands drive the simulated toy (demo and tests); a real launcher has a real lid.
  $("virtual-controls").hidden = !isVirtual();
  $("btn-lid").textContent = t(app.launcher && app.launcher.lid_open ? "launcher.close_lid" : "launcher.open_lid");
  setBlocked($("btn-lid"), false);
  setBlocked($("btn-load"), false);
}

function addFeed(event, seq, live) {
  const li = feedItem(event);
  const feed = $("feed");
  // Newest first; a re-sent older event slots in by seq instead of landing on top.
  let before = feed.firstElementChild;
  if (seq !== null) {
    while (before && !(before.dataset.seq && Number(before.dataset.seq) < seq)) before = before.nextElementSibling;
  }
  feed.insertBefore(li, before);
  $("feed-empty").hidden = true;
  while (feed.children.length > FEED_LIMIT) feed.lastElementChild.remove();
  // The table view's short list skips routine lines (turns, skips) that the banner and seats already show.
  const newest = !li.previousElementSibling || li.previousElementSibling.classList.contains("note");
  if (newest && !li.classList.contains("tone-quiet")) {
    $("mini-feed").prepend(li.cloneNode(true));
    while ($("mini-feed").children.length > MINI_FEED) $("mini-feed").lastElementChild.remove();
  }
  if (live && app.view !== "feed") {
    app.unseen += 1;
    $("feed-badge").textContent = app.unseen > 99 ? "99+" : String(app.unseen);
    $("feed-badge").hidden = false;
  }
}

/** A short-lived "+n" rising from the hitter's seat: the moment the cards land. It lives in the ring, not in
 * the seat, because a state update re-renders the seats. */
function showLastHit(event) {
  const n = Number.isInteger(event.cards) ? event.cards : 0;
  const seatEl = document.querySelector(`.seat[data-player="${CSS.escape(event.player || "")}"]`);
  if (!seatEl) return;
  const flash = document.createElement("span");
  flash.className = n ? "hit-flash fired" : "hit-flash";
  flash.textContent = n ? `+${n}` : t("press.click");
  flash.style.left = seatEl.style.left;
  flash.style.top = seatEl.style.top;
  $("ring").append(flash);
  setTimeout(() => flash.remove(), 2500);
}

function addFeedNote(text) {
  const li = document.createElement("li");
  li.className = "feed-item note";
  li.textContent = text;
  $("feed").prepend(li);
  $("feed-empty").hidden = true;
}

// ---- views and controls ----------------------------------------------------------------------------------

function showView(name) {
  app.view = name;
  for (const section of document.querySelectorAll(".view")) section.hidden = section.dataset.view !== name;
  for (const tab of document.querySelectorAll("[data-tab]")) {
    if (tab.dataset.tab === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (name === "feed") {
    app.unseen = 0;
    $("feed-badge").hidden = true;
  }
  window.scrollTo(0, 0);
}

function openSettings(reason) {
  const form = $("settings-form");
  const saved = loadSettings();
  form.url.value = saved.url || app.config.mqtt_url || "";
  form.username.value = saved.username || "";
  form.password.value = saved.password || "";
  $("settings-reason").textContent = reason || "";
  $("settings-reason").classList.toggle("shown", Boolean(reason));
  if (!$("settings").open) $("settings").showModal();
}

function wireControls() {
  for (const tab of document.querySelectorAll("[data-tab]")) tab.addEventListener("click", () => showView(tab.dataset.tab));
  $("conn").addEventListener("click", () => openSettings(""));
  $("settings").addEventListener("close", () => {
    if ($("settings").returnValue !== "save") return;
    const form = $("settings-form");
    const url = form.url.value.trim();
    const settings = {
      url: url === app.config.mqtt_url ? "" : url, // follow the daemon's address unless the user changed it
      username: form.username.value.trim(),
      password: form.password.value,
    };
    localStorage.removeItem(SETTINGS_KEY);
    sessionStorage.removeItem(SETTINGS_KEY);
    (form.remember.checked ? localStorage : sessionStorage).setItem(SETTINGS_KEY, JSON.stringify(settings));
    connect();
  });
  $("settings-forget").addEventListener("click", () => {
    localStorage.removeItem(SETTINGS_KEY);
    sessionStorage.removeItem(SETTINGS_KEY);
    const form = $("settings-form");
    form.username.value = "";
    form.password.value = "";
    form.url.value = app.config.mqtt_url || "";
  });

  $("press").addEventListener("click", (e) => send({ type: "press" }, e.currentTarget));
  $("btn-play").addEventListener("click", () => app.picker.open(app.state));
  $("btn-uno").addEventListener("click", (e) => app.seat.callUno(e.currentTarget));
  $("btn-draw").addEventListener("click", (e) => send({ type: "draw", player: app.state?.current }, e.currentTarget));
  $("btn-pass").addEventListener("click", (e) => send({ type: "pass", player: app.state?.current }, e.currentTarget));
  $("btn-undo").addEventListener("click", (e) => send({ type: "undo" }, e.currentTarget));
  $("btn-lid").addEventListener("click", (e) => send({ type: "lid", open: !(app.launcher && app.launcher.lid_open) }, e.currentTarget));
  $("btn-load").addEventListener("click", (e) => send({ type: "load", cards: 40 }, e.currentTarget));
  // The emergency stop: one tap, no question (the state changes when the daemon's launcher status says so).
  $("btn-stop").addEventListener("click", (e) => send({ type: "disable", by: "dashboard" }, e.currentTarget));
  $("btn-enable").addEventListener("click", (e) => confirmEnable(e.currentTarget));
  $("score-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const control = $("score-form").querySelector("button[type=submit]");
    const { hands, error } = readScores($("score-inputs"));
    if (error) {
      showRefusal(control, error); // an empty field is not a zero: "ann wins the round (+0)" was never true
      return;
    }
    send({ type: "score", hands }, control, () => {
      for (const input of $("score-inputs").querySelectorAll("input")) input.value = "";
    });
  });
  $("score-inputs").addEventListener("input", () => clearRefusal($("score-form").querySelector("button[type=submit]")));
}

// ---- starting a game, dealing a round ---------------------------------------------------------------------

function runningGame() {
  const s = app.state;
  return Boolean(s && Array.isArray(s.players) && ["playing", "scoring", "between"].includes(s.phase) && !s.winner);
}

/** Setup's Start game: ask before ending a running game; with real cards, ask for the deal; then send. */
function startGame(command, control) {
  const go = () => {
    if (command.mode !== "table") {
      send(command, control, () => showView("table"));
      return;
    }
    app.deal.open({
      title: t("deal.first"),
      players: command.players,
      ruleset: command.ruleset,
      dealer: command.players[command.players.length - 1], // the first listed player plays first
      onDeal: (deal, dealControl) => send({ ...command, deal }, dealControl, () => {
        app.deal.close();
        showView("table");
      }),
    });
  };
  if (!runningGame()) {
    go();
    return;
  }
  const s = app.state;
  const leader = [...s.players].sort((a, b) => (s.scores?.[b] || 0) - (s.scores?.[a] || 0))[0];
  const params = { round: s.round, players: s.players.join(", "), leader, points: s.scores?.[leader] };
  $("confirm-new-text").textContent = t(s.scores && s.scores[leader] ? "confirm.new_text_lead" : "confirm.new_text", params);
  const dialog = $("confirm-new");
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "replace") go();
  }, { once: true });
  dialog.showModal();
}

/** Enable launcher: re-arming a motor next to fingers asks first; the refusal, if any, shows next to `control`. */
function confirmEnable(control) {
  const dialog = $("confirm-enable");
  // Closed without an answer (Escape, the back gesture), a dialog keeps its previous returnValue in browsers that
  // follow the older spec (Chromium clears it): never take an earlier "enable" for this one's.
  dialog.returnValue = "";
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "enable") send({ type: "enable", by: "dashboard" }, control);
  }, { once: true });
  dialog.showModal();
}

/** "Deal the next round": with real cards the table says who deals and which card was turned up. */
function dealNext(control) {
  const s = app.state;
  if (!s || s.mode !== "table") {
    send({ type: "next_round" }, control);
    return;
  }
  const seat = s.players.indexOf(s.dealer);
  app.deal.open({
    title: t("deal.round", { round: (s.round || 0) + 1 }),
    players: s.players,
    ruleset: s.ruleset,
    dealer: s.players[(seat + 1) % s.players.length], // MK-02: the deal passes to the left
    onDeal: (deal, dealControl) => send({ type: "next_round", deal }, dealControl, () => app.deal.close()),
  });
}

async function loadConfig() {
  try {
    // Same request as the <link rel="preload"> in index.html, so the preloaded response is used (the server
    // marks it no-store, so it is never stale).
    const response = await fetch("config.json", { mode: "cors", credentials: "same-origin" });
    if (response.ok) return await response.json();
  } catch (err) {
    console.warn("no config.json", err);
  }
  return {};
}

async function main() {
  const [config] = await Promise.all([loadConfig(), loadLanguage()]);
  translatePage(); // index.html's own words (English as written)
  const params = new URLSearchParams(location.search);
  // ?table=t2 lets one phone watch another table on the same broker.
  const table = params.get("table") || config.table || "default";
  config.table = table;
  config.base = params.get("table") ? `unolauncher/${table}/` : config.base || `unolauncher/${table}/`;
  app.config = config;
  $("table-name").textContent = config.title || `· ${table}`;
  app.history = new History(table);
  app.fairness = new Fairness((command) => (app.link && app.link.connected ? app.link.send(command) : null));
  app.fresh = new Freshness(() => updateLink());
  app.moves = new MoveBook((command) => (app.link && app.link.connected ? app.link.send(command) : null));
  app.picker = new Picker($("picker"), {
    send,
    // The game's options not at their defaults come with every state (public state `options`), so a page loaded
    // mid-game, whose history no longer holds the game_started event, still knows them.
    customAction: () => app.state?.options?.customizable?.action ?? null,
    gameOptions: () => app.state?.options || {},
    canPlay: (player, card) => app.moves.canPlay(player, card),
    want: (player) => askMoves(player),
  });
  app.setup = new Setup($("setup-form"), { start: startGame });
  app.atTable = new AtTheTable($("view-setup"));
  languagePanel($("this-phone") || $("view-setup")); // the language switcher, in "This phone"
  app.speech = new Speech();
  app.speech.panel($("this-phone") || $("view-setup"));
  keepFitting(document.body); // long words drawn smaller instead of cut off (fit.js)
  $("setup-seed").hidden = config.allow_rigged !== true; // a table that refuses a chosen seed does not offer one
  app.deal = new DealSheet($("deal-sheet"));
  app.seat = new SeatSheet($("seat-sheet"), {
    send,
    state: () => app.state,
    allows: (player, type, target) => app.moves.allows(player, type, target),
    want: (player) => askMoves(player),
  });
  wireControls();
  updateLink();
  renderTableView();
  renderScoresView();
  renderLauncherView();
  if (typeof mqtt === "undefined") {
    onStatus("error", t("link.no_library"));
    return;
  }
  connect();
}

main();
