// Taps that mean now, and a table that is noticed gone within 3 s (docs/protocol.md, "Freshness and alive").
//
// The daemon publishes `alive` every second: {"t": its wall clock in unix ms, "seq": the last state's seq}.
// - No `alive` for OFFLINE_AFTER_MS while connected: the table is silent (offline for the page: actions off).
// - Each `alive` gives a sample of (daemon clock - this phone's clock); network delay only makes a sample smaller, so
//   the largest recent one is the best estimate. A tap is stamped with its time on the daemon's clock (`tapped_at`)
//   and the seq of the state the page showed (`seen_seq`): the daemon refuses it (`stale`) when it arrives more than
//   ~2 s later, or when the table has moved on since that state.
//
//   const fresh = new Freshness(() => updateLink());
//   link handlers: alive: (beat) => fresh.alive(beat), status: (kind) => fresh.connected(kind === "online")
//   const id = fresh.track(link.send(fresh.stamp(command, stateSeq)), control);   // in the one send function
//   onReply for an id no longer pending: fresh.late(reply, showRefusal)

import { refusalText } from "./screen.js";

export const OFFLINE_AFTER_MS = 2500; // TEAM.md's interface: no alive for 2.5 s => offline
const CHECK_EVERY_MS = 200;
const SAMPLES = 8; // clock-offset samples kept (the last 8 s): a clock that is set meanwhile is followed
const TRACKED = 50; // recent commands remembered, so that a refusal arriving after the page gave up is shown
const UNSTAMPED = new Set(["status", "moves", "resend", "disable"]); // the daemon ignores the fields on these

/** A local clock that does not jump (unix ms, from the page's start). */
function localNow() {
  return performance.timeOrigin + performance.now();
}

export class Freshness {
  constructor(onChange) {
    this.onChange = onChange;
    this.samples = [];
    this.offset = null; // daemon clock - local clock (ms), the best recent estimate
    this.lastAlive = null; // performance.now() of the last alive
    this.upSince = null; // performance.now() when the link last came up (null: down)
    this.silent = false; // connected, but no alive for OFFLINE_AFTER_MS
    this.silentAt = null; // performance.now() when the page last decided the table is silent (tests read it)
    this.recent = new Map(); // command id -> control
    setInterval(() => this.check(), CHECK_EVERY_MS);
  }

  /** The MQTT link went up or down (the link's own status; a new connection waits for its first alive). */
  connected(up) {
    this.upSince = up ? (this.upSince ?? performance.now()) : null;
    this.check();
  }

  alive(beat) {
    if (!Number.isFinite(beat.t)) return;
    this.lastAlive = performance.now();
    this.samples.push(beat.t - localNow());
    if (this.samples.length > SAMPLES) this.samples.shift();
    this.offset = Math.max(...this.samples);
    this.check();
  }

  check() {
    const now = performance.now();
    const since = Math.max(this.lastAlive ?? -Infinity, this.upSince ?? -Infinity);
    const silent = this.upSince !== null && now - since > OFFLINE_AFTER_MS;
    if (silent === this.silent) return;
    this.silent = silent;
    if (silent) this.silentAt = now;
    this.onChange?.(silent);
  }

  /** Seconds since the last alive (for the notice), or null. */
  silentFor() {
    return this.lastAlive === null ? null : Math.round((performance.now() - this.lastAlive) / 1000);
  }

  /** The command with what it was tapped on: the state's seq and the tap's time on the daemon's clock. */
  stamp(command, stateSeq) {
    if (UNSTAMPED.has(command.type)) return command;
    const stamped = { ...command };
    if (Number.isInteger(stateSeq)) stamped.seen_seq = stateSeq;
    if (this.offset !== null) stamped.tapped_at = Math.round(localNow() + this.offset);
    return stamped;
  }

  /** Remember which control sent command `id` (returns `id`). */
  track(id, control) {
    if (id === null || id === undefined) return id;
    this.recent.set(id, control);
    if (this.recent.size > TRACKED) this.recent.delete(this.recent.keys().next().value);
    return id;
  }

  /** A reply to a command the page stopped waiting for: a `stale` refusal is still worth showing (why nothing
   * happened). Returns true when shown. */
  late(reply, show) {
    if (!this.recent.has(reply.id)) return false;
    const control = this.recent.get(reply.id);
    this.recent.delete(reply.id);
    if (reply.ok !== false || reply.code !== "stale") return false;
    show(control, refusalText(reply));
    return true;
  }
}
