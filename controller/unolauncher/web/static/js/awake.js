// At the table: keep the phone awake while a game is on (Screen Wake Lock), and, if this phone says whose it is, a
// beep and/or a buzz when that player's turn comes or they must hit. Both are optional and remembered on the phone.

import { t } from "./i18n.js";

const ME_KEY = "unolauncher.me"; // {player, sound, vibrate}

/**
 *   const table = new AtTheTable(document.getElementById("view-setup"));
 *   table.update(state);   // every new state: wake lock on/off, an alert if it just became "my" turn
 */
export class AtTheTable {
  constructor(host) {
    this.lock = null;
    this.lockState = "off"; // "held", "off", or why it could not be held (shown in the panel)
    this.wanted = false;
    this.alerts = []; // what was signalled (kind), for the page's own record and the tests
    this.last = null; // the last "turn:ann" / "hit:ann" signalled, so one state is signalled once
    this.me = load();
    this.panel = this.buildPanel(host);
    document.addEventListener("visibilitychange", () => this.syncLock());
  }

  /** A new state: keep awake during a game; signal this phone's player. */
  update(state) {
    const game = Boolean(state && Array.isArray(state.players) && state.players.length
      && ["playing", "scoring", "between"].includes(state.phase) && !state.winner);
    this.wanted = game;
    this.syncLock();
    this.fillPlayers(state);
    const me = this.me.player;
    if (!me || !state || state.phase !== "playing") {
      this.last = null;
      return;
    }
    const owes = Array.isArray(state.owed) && state.owed.length && state.owed[0].player === me;
    const kind = owes ? "hit" : state.current === me && !state.pending ? "turn" : null;
    const left = owes ? `${state.owed.length}:${state.owed[0].hits}` : "";
    const key = kind ? `${kind}:${me}:${state.round}:${left}` : null; // each owed hit, and each turn, once
    if (key && key !== this.last) this.signal(kind);
    this.last = key;
  }

  signal(kind) {
    this.alerts.push(kind);
    if (this.me.vibrate && navigator.vibrate) navigator.vibrate(kind === "hit" ? [120, 80, 120] : 150);
    if (this.me.sound) beep(kind === "hit" ? 660 : 880);
  }

  async syncLock() {
    const want = this.wanted && document.visibilityState === "visible";
    if (!want && this.lock) {
      const lock = this.lock;
      this.lock = null;
      this.lockState = "off";
      await lock.release().catch(() => {});
    } else if (want && !this.lock && "wakeLock" in navigator) {
      try {
        this.lock = await navigator.wakeLock.request("screen");
        this.lockState = "held";
        this.lock.addEventListener("release", () => {
          this.lock = null;
          this.lockState = "off";
        });
      } catch (err) {
        this.lockState = t("awake.denied", { error: err.name });
      }
    } else if (want && !("wakeLock" in navigator)) {
      this.lockState = t("awake.unsupported");
    }
    if (this.panel) this.panel.querySelector(".awake-state").textContent = t("phone.awake", { state: this.lockState === "off" || this.lockState === "held" ? t(`awake.${this.lockState}`) : this.lockState });
  }

  buildPanel(host) {
    const panel = document.createElement("form");
    panel.className = "panel awake";
    panel.id = "this-phone";
    panel.innerHTML = `<h3>${t("phone.title")}</h3>
      <label class="field inline">${t("phone.whose")} <select name="player"><option value="">${t("phone.shared")}</option></select></label>
      <label class="check"><input type="checkbox" name="sound"> ${t("phone.beep")}</label>
      <label class="check"><input type="checkbox" name="vibrate"> ${t("phone.vibrate")}</label>
      <p class="muted small awake-state">${t("phone.awake", { state: t("awake.off") })}</p>`;
    panel.sound.checked = Boolean(this.me.sound);
    panel.vibrate.checked = Boolean(this.me.vibrate);
    panel.addEventListener("change", () => {
      this.me = { player: panel.player.value, sound: panel.sound.checked, vibrate: panel.vibrate.checked };
      localStorage.setItem(ME_KEY, JSON.stringify(this.me));
      this.last = null;
    });
    host.append(panel);
    return panel;
  }

  fillPlayers(state) {
    const select = this.panel.player;
    const players = state && Array.isArray(state.players) ? state.players : [];
    const have = [...select.options].slice(1).map((o) => o.value).join("\n");
    if (have === players.join("\n")) return;
    for (const option of [...select.options].slice(1)) option.remove();
    for (const p of players) select.append(new Option(p, p));
    select.value = players.includes(this.me.player) ? this.me.player : "";
  }
}

function load() {
  try {
    return JSON.parse(localStorage.getItem(ME_KEY) || "null") || {};
  } catch {
    return {};
  }
}

let audio = null;
function beep(freq) {
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.25);
  } catch {
    // no audio on this phone: the vibration (if on) still tells
  }
}
