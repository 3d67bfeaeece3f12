// The phone checks the launcher itself (docs/ejection.md, "Checking a round"): from the events it received, it
// recomputes every press of every revealed round — the commitment is sha256 of the secret, each press's draw is
// HMAC-SHA256(key, "press:i:player") — and shows a mark per round. It also adds this phone's own randomness to each
// round once its commitment is out, by commit-then-reveal (docs/fairness.md): it sends sha256 of its entropy at
// once, the entropy itself once the table's commit window has closed (no tap), and says per round whether its own
// contribution is in the mix the round used, was refused (and why), or was left out.
//
// Hashing comes from the vendored @noble/hashes (audited, no dependencies), not WebCrypto: crypto.subtle exists
// only in secure contexts (https or localhost), and the dashboard is served over plain http on the table's network.
import { sha256 } from "../vendor/noble-hashes/sha2.js";
import { hmac } from "../vendor/noble-hashes/hmac.js";
import { bytesToHex, utf8ToBytes } from "../vendor/noble-hashes/utils.js";
import { CATALOGUE } from "./catalogue.js";
import { has, t } from "./i18n.js";

// The ejection presets' tables come from the daemon (its retained rule catalogue, catalogue.js); no copy here.
export const PRESETS = CATALOGUE.presets;
const SPIN_UP_MS = 150;
const MS_PER_CARD = 110;
const MAX_PLAN_RUN_MS = 4000;
const PLAN_FIELDS = ["fire", "cards", "run_ms", "power", "suspense_ms"];
const OPERATIONS = new Set(["press", "ejection_lid", "ejection_entropy", "ejection_carry"]);
const SENT_KEY = "unolauncher.entropy-mine";
const CLIENT_KEY = "unolauncher.entropy-client";
const REVEAL_MARGIN_MS = 200; // after the table's commit window: the reveal must not arrive before it closes
const MAX_EARLY_RETRIES = 10;

const presses = (n) => t("fair.presses", { count: n });
const hmacHex = (key, message) => bytesToHex(hmac(sha256, utf8ToBytes(key), utf8ToBytes(message)));
export const commitmentOf = (secret) => bytesToHex(sha256(utf8ToBytes(secret)));

/** A preset's parameters (a custom table as the referee reads it: card counts may be strings), and the launcher's
 * measured ms per card (`selftest --calibrate`; 110 when the commitment names none). */
function params(preset, custom, msPerCard) {
  const p = preset === "custom" ? custom : PRESETS[preset];
  if (!p || typeof p !== "object") return null;
  const sequence = Array.isArray(p.sequence) ? p.sequence : [];
  // One spelling per count, as the referee refuses any other (docs/ejection.md): "4", never "04" or "٤".
  if (!Object.keys(p.cards || {}).every((n) => /^[1-9][0-9]?$/.test(n))) return null;
  const weights = Object.entries(p.cards || {}).map(([n, w]) => [Number.parseInt(n, 10), Number(w)])
    .filter(([, w]) => w > 0).sort((a, b) => a[0] - b[0]);
  let total = 0;
  const cumulative = weights.map(([n, w]) => [n, (total += w)]);
  return {
    miss: p.miss_hazard || (sequence.length ? [0.0] : null),
    repeat: p.hit_repeat || [0.2],
    cumulative,
    suspenseChance: p.suspense_chance || 0,
    suspense: p.suspense_ms || [0, 0],
    sequence: new Set(sequence),
    period: p.period || (sequence.length ? Math.max(...sequence) : 0),
    msPerCard: Number.isInteger(msPerCard) ? msPerCard : MS_PER_CARD,
  };
}

/** The plan of the next press (docs/ejection.md, "How one press is decided") and the model state after it. */
function plan(model, state, player) {
  const digest = hmacHex(state.key, `press:${state.press}:${player ?? ""}`);
  const u = [0, 16, 32, 48].map((i) => Number(BigInt(`0x${digest.slice(i, i + 16)}`)) * 2 ** -64);
  const sinceLid = state.sinceLid + 1;
  let fire;
  if (model.sequence.size) {
    fire = model.sequence.has(((sinceLid - 1) % model.period) + 1);
  } else {
    const p = state.run > 0 ? model.repeat[Math.min(state.run, model.repeat.length) - 1]
      : model.miss[Math.min(-state.run, model.miss.length - 1)];
    fire = u[0] < p;
  }
  const next = { ...state, press: state.press + 1, sinceLid, run: fire ? Math.max(state.run, 0) + 1 : Math.min(state.run, 0) - 1 };
  const result = { fire, cards: 0, run_ms: 0, power: 1.0, suspense_ms: 0, draw: digest.slice(0, 16) };
  if (fire) {
    const target = u[1] * model.cumulative[model.cumulative.length - 1][1];
    const found = model.cumulative.find(([, c]) => target < c);
    result.cards = (found || model.cumulative[model.cumulative.length - 1])[0];
    if (u[2] < model.suspenseChance) {
      const [low, high] = model.suspense;
      result.suspense_ms = Math.trunc(low + u[3] * (high - low));
    }
    result.run_ms = Math.min(MAX_PLAN_RUN_MS, SPIN_UP_MS + result.cards * model.msPerCard);
  }
  return [result, next];
}

/**
 * Check one revealed commitment from its operations (press, lid, entropy events in seq order).
 * Returns {status: "verified" | "mismatch" | "incomplete", detail, presses}.
 */
export function checkRound(round) {
  if (commitmentOf(round.secret) !== round.commitment) {
    return { status: "mismatch", detail: "the revealed secret does not match the commitment", presses: 0 };
  }
  if (round.preset !== "custom" && !Object.keys(PRESETS).length) {
    return { status: "incomplete", detail: "the table's presets have not arrived yet", presses: 0 };
  }
  const model = params(round.preset, round.custom, round.ms_per_card);
  if (!model || !model.miss || !model.cumulative.length) return { status: "mismatch", detail: `unknown preset ${round.preset}`, presses: 0 };
  const ops = [...round.ops].sort((a, b) => a.seq - b.seq);
  const seen = ops.filter((e) => e.type === "press").length;
  if (seen < round.presses) return { status: "incomplete", detail: `${round.presses - seen} press(es) not received yet`, presses: seen };
  // The streak goes on from the game's previous commitment (docs/ejection.md): a restart would let dry presses
  // outlast the preset's bound across a round boundary.
  const legacy = round.run === undefined && round.since_lid === undefined;
  const start = legacy ? [0, 0] : [round.run, round.since_lid];
  if (!start.every(Number.isInteger) || start[1] < 0) return { status: "mismatch", detail: "its starting streak is malformed", presses: 0 };
  if (!legacy && round.expected && (round.expected[0] !== start[0] || round.expected[1] !== start[1])) {
    return { status: "mismatch", detail: `it starts at run ${start[0]}, the game's previous commitment left run ${round.expected[0]} (since_lid ${round.expected[1]}): the dry-press streak restarted`, presses: 0 };
  }
  let state = { key: round.secret, press: 0, run: start[0], sinceLid: start[1] };
  const made = new Map(); // index -> the press as recorded (an aborted or undone one fires again: docs/fairness.md)
  const carried = new Map(); // index -> why its plan is owed again
  const notes = [];
  const same = (a, b) => a.player === b.player && a.draw === b.draw && PLAN_FIELDS.every((f) => (a.plan || {})[f] === (b.plan || {})[f]);
  for (const op of ops) {
    const due = state.press;
    if (op.type === "ejection_carry") {
      if (!made.has(op.index)) return { status: "mismatch", detail: `press ${op.index} carried but never made`, presses: due };
      carried.set(op.index, op.reason);
      notes.push(`press ${op.index} ${op.reason === "undone" ? "undone (re-pressed with its plan)" : `aborted (${op.reason})`}`);
      continue;
    }
    if (op.type === "press" && op.retry === true) {
      if (!carried.has(op.index) || !same(made.get(op.index), op)) {
        return { status: "mismatch", detail: `press ${op.index} repeated without the plan it owed`, presses: due };
      }
      carried.delete(op.index);
      continue;
    }
    if (op.type === "press") made.set(op.index, op);
    if (op.type === "press") {
      if (op.index !== due) return { status: "mismatch", detail: `press ${op.index} where press ${due} was due`, presses: due };
      const [wanted, next] = plan(model, state, typeof op.player === "string" ? op.player : null);
      const recorded = op.plan || {};
      const diffs = PLAN_FIELDS.filter((f) => recorded[f] !== wanted[f]).map((f) => `${f} ${recorded[f]} (expected ${wanted[f]})`);
      if (op.draw !== wanted.draw) diffs.unshift("its draw");
      if (diffs.length) return { status: "mismatch", detail: `press ${due}: ${diffs.join(", ")}`, presses: due };
      state = next;
    } else {
      if (op.press !== due) return { status: "mismatch", detail: `${op.type} at press ${op.press}, press ${due} was due`, presses: due };
      if (op.type === "ejection_lid") state = { ...state, sinceLid: 0 };
      else {
        if (typeof op.hash === "string" && (!(round.commits || new Map()).has(op.hash) || commitmentOf(String(op.entropy)) !== op.hash)) {
          return { status: "mismatch", detail: "entropy in the key that no phone committed to", presses: due };
        }
        state = { ...state, key: hmacHex(state.key, `entropy:${op.entropy}`) };
      }
    }
  }
  if (state.press !== round.presses) return { status: "mismatch", detail: `${state.press} presses, the reveal says ${round.presses}`, presses: state.press };
  notes.push(...(round.withheld || []).map((c) => t("fair.withheld", { client: c })));
  if (legacy) notes.push(t("fair.legacy_streak"));
  if (round.manual) notes.unshift(t("fair.manual_note", { count: round.manual }));
  const status = round.rigged ? "rigged" : round.manual ? "manual" : "verified";
  return { status, detail: notes.join(", "), presses: state.press };
}

/** (run, since_lid) after a commitment's recorded presses and lid openings (public: no secret needed). */
export function streakAfter(round) {
  let run = Number.isInteger(round.run) ? round.run : 0;
  let sinceLid = Number.isInteger(round.since_lid) ? round.since_lid : 0;
  for (const op of [...round.ops].sort((a, b) => a.seq - b.seq)) {
    if (op.type === "press" && op.retry !== true) {
      const fired = (op.plan || {}).fire === true;
      run = fired ? Math.max(run, 0) + 1 : Math.min(run, 0) - 1;
      sinceLid += 1;
    } else if (op.type === "ejection_lid") sinceLid = 0;
  }
  return [run, sinceLid];
}

export class Fairness {
  /** `sendRaw(command)` publishes a command and returns its id (or null when the link is down); the page hands
   * every reply to `takeReply` so that this phone reads the table's answer to its own entropy. */
  constructor(sendRaw) {
    this.sendRaw = sendRaw;
    this.rounds = new Map(); // commitment -> {commitment, label, preset, custom, rigged, ops, commits, withheld, secret, presses, seq, result}
    this.changed = false;
    this.sentIds = new Map(); // command id -> {commitment, kind: "commit" | "reveal", tries}
    this.mine = new Map(); // commitment -> {entropy, hash, status, detail}: this phone's own contribution
    this.client = null;
    this.gameStarts = []; // seqs of game_started: a game's first commitment opens with no streak
    try {
      this.mine = new Map(JSON.parse(sessionStorage.getItem(SENT_KEY) || "[]"));
      this.client = sessionStorage.getItem(CLIENT_KEY);
    } catch {
      // storage disabled: a reload forgets this phone's contributions (an unrevealed one shows as withheld)
    }
    if (!this.client || !/^[A-Za-z0-9_-]{1,40}$/.test(this.client)) {
      this.client = `phone-${bytesToHex(crypto.getRandomValues(new Uint8Array(6)))}`;
      try { sessionStorage.setItem(CLIENT_KEY, this.client); } catch { /* see above */ }
    }
  }

  /** Every event the page receives (main.js drops duplicates by seq). */
  observeEvent(event) {
    this.changed = false;
    const key = event.commitment;
    const seq = Number.isInteger(event.seq) ? event.seq : 0;
    if (event.type === "game_started") this.gameStarts.push(seq); // the streak starts again with a game
    if (typeof key !== "string") return;
    if (event.type === "round_started" || event.type === "ejection_commit") {
      const label = event.type === "round_started" ? t("fair.round", { round: event.round })
        : event.reason === "free" ? t("fair.free") : t("fair.after_undo", { round: event.round });
      const round = this.rounds.get(key) || { commitment: key, ops: [], commits: new Map(), withheld: [], manual: 0, secret: null, presses: 0, result: null };
      Object.assign(round, {
        label, preset: event.preset, custom: event.custom, ms_per_card: event.ms_per_card, rigged: event.rigged === true, seq,
        run: event.run, since_lid: event.since_lid,
      });
      this.rounds.set(key, round);
      // An old round seen in a backfill may be over already: the entropy names its commitment, and the table refuses
      // it unless that one is still open.
      if (!round.rigged && round.secret === null) this.contribute(key);
    } else {
      const round = this.rounds.get(key);
      if (!round) return; // opened before this page's first event: not checkable from here
      const mine = this.mine.get(key);
      if (event.type === "hit" && event.manual === true) {
        round.manual += 1; // a count someone sent, not the launcher's plan (docs/fairness.md)
      } else if (event.type === "ejection_entropy_commit") {
        round.commits.set(event.hash, event.client);
        if (mine && mine.hash === event.hash && mine.status === "committing") {
          this.setMine(key, "committed", "");
          setTimeout(() => this.reveal(key, 0), (Number(event.reveal_after_ms) || 500) + REVEAL_MARGIN_MS);
        }
      } else if (event.type === "ejection_entropy_withheld") {
        round.withheld.push(String(event.client));
        if (mine && mine.hash === event.hash) this.setMine(key, "left out", "the first press came before this phone's reveal");
      } else if (OPERATIONS.has(event.type)) {
        round.ops.push(event);
        if (event.type === "ejection_entropy" && mine && mine.hash === event.hash) this.setMine(key, "in the mix", "");
        if (event.type === "press" && event.index === 0 && mine && mine.status !== "in the mix" && mine.status !== "refused") {
          this.setMine(key, "left out", "the round's first press came without it");
        }
      } else if (typeof event.secret === "string") Object.assign(round, { secret: event.secret, presses: event.presses });
      else if (event.type !== "ejection_entropy_revealed") return;
    }
    const round = this.rounds.get(key);
    if (round && round.secret !== null) {
      round.expected = this.expectedStart(round);
      round.result = checkRound(round);
    }
    this.changed = true;
  }

  /** The streak `round` must open with, from what this phone saw: none after a game_started, else where the
   * commitment opened just before it ended (when this phone saw all of it); undefined when it cannot tell. */
  expectedStart(round) {
    const before = [...this.rounds.values()].filter((r) => r.seq < round.seq);
    const previous = before.reduce((a, r) => (!a || r.seq > a.seq ? r : a), null);
    const game = Math.max(-1, ...this.gameStarts.filter((s) => s < round.seq));
    if (game >= 0 && (!previous || game > previous.seq)) return [0, 0];
    if (!previous || previous.secret === null || !previous.result || previous.result.status === "incomplete") return undefined;
    return streakAfter(previous);
  }

  /** Check every revealed round again (the presets arrived after their events). */
  recheck() {
    // In seq order: a round's expected streak comes from the result of the one before it.
    const rounds = [...this.rounds.values()].sort((a, b) => a.seq - b.seq);
    for (const round of rounds) {
      if (round.secret === null) continue;
      round.expected = this.expectedStart(round);
      round.result = checkRound(round);
    }
    this.changed = true;
  }

  /** This phone's randomness for an open commitment, once: 128 bits from the browser's CSPRNG, committed first. */
  contribute(commitment) {
    if (this.mine.has(commitment)) return;
    const entropy = bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
    const hash = commitmentOf(entropy);
    const id = this.sendRaw({ type: "entropy", hash, client: this.client, commitment });
    if (id === null || id === undefined || id === false) return;
    this.sentIds.set(id, { commitment, kind: "commit" });
    this.mine.set(commitment, { entropy, hash, status: "committing", detail: "" });
    this.save();
  }

  reveal(commitment, tries) {
    const mine = this.mine.get(commitment);
    if (!mine || mine.status !== "committed") return;
    const id = this.sendRaw({ type: "entropy", entropy: mine.entropy, commitment });
    if (id !== null && id !== undefined && id !== false) this.sentIds.set(id, { commitment, kind: "reveal", tries });
  }

  /** The table's reply to one of this phone's entropy commands (true: it was one; the page does nothing else). */
  takeReply(reply) {
    const sent = this.sentIds.get(reply.id);
    if (!sent) return false;
    this.sentIds.delete(reply.id);
    if (reply.ok !== false) {
      if (sent.kind === "reveal") this.setMine(sent.commitment, "revealed", "");
      return true;
    }
    if (reply.code === "entropy_too_early" && sent.tries < MAX_EARLY_RETRIES) {
      setTimeout(() => this.reveal(sent.commitment, sent.tries + 1), 300);
      return true;
    }
    this.setMine(sent.commitment, "refused", `${reply.code}: ${reply.message || ""}`.trim());
    return true;
  }

  setMine(commitment, status, detail) {
    const mine = this.mine.get(commitment);
    if (!mine) return;
    Object.assign(mine, { status, detail });
    this.changed = true;
    this.save();
  }

  save() {
    try {
      sessionStorage.setItem(SENT_KEY, JSON.stringify([...this.mine].slice(-50)));
    } catch {
      // storage disabled: see the constructor
    }
  }

  render(node) {
    node.replaceChildren();
    const rounds = [...this.rounds.values()].sort((a, b) => b.seq - a.seq);
    if (!rounds.length) return;
    const title = document.createElement("h3");
    title.textContent = t("fair.title");
    node.append(title);
    const list = document.createElement("ul");
    list.className = "fairness-rounds";
    for (const round of rounds.slice(0, 20)) {
      const li = document.createElement("li");
      const status = round.result ? round.result.status : "open";
      li.dataset.commitment = round.commitment;
      li.dataset.status = status;
      li.className = `fairness-round fairness-${status}`;
      const mark = document.createElement("span");
      mark.className = "fairness-mark";
      mark.textContent = {
        verified: t("fair.verified", { presses: presses(round.result?.presses ?? 0) }),
        mismatch: t("fair.mismatch", { detail: round.result?.detail }),
        rigged: t("fair.rigged"),
        manual: t("fair.manual", { presses: presses(round.result?.presses ?? 0) }),
        incomplete: `… ${round.result?.detail}`,
        open: t("fair.open", { hash: round.commitment.slice(0, 12) }),
      }[status];
      const label = document.createElement("strong");
      label.textContent = `${round.label} · ${has(`preset.${round.preset}`) ? t(`preset.${round.preset}`) : round.preset}`;
      li.append(label, " ", mark);
      if (round.result?.detail && round.result.status !== "mismatch" && round.result.status !== "incomplete") {
        li.append(" ⚠ ", round.result.detail);
      }
      const mine = this.mine.get(round.commitment);
      if (mine) {
        const own = document.createElement("span");
        own.className = "fairness-own";
        own.dataset.status = mine.status;
        own.textContent = mine.status === "in the mix" ? t("fair.mine_in")
          : mine.status === "refused" || mine.status === "left out" ? t("fair.mine_out", { status: `${mine.status}${mine.detail ? `: ${mine.detail}` : ""}` })
            : t("fair.mine", { status: mine.status });
        li.append(document.createElement("br"), own);
      }
      if (round.secret !== null) {
        const secret = document.createElement("code");
        secret.className = "fairness-secret";
        secret.textContent = round.secret;
        li.append(document.createElement("br"), `${t("fair.secret")} `, secret);
      }
      list.append(li);
    }
    node.append(list);
  }
}
