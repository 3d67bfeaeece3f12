// This phone speaks the table's news through the browser's speech synthesis — for a table whose box has no speaker
// ([voice] in the daemon: docs/voice.md). The same announcements, from the same events, in the same words: the box's
// own lines (voice/catalogue.py), which the daemon sends in its rule catalogue (catalogue.js `voice`; the page keeps
// no copy, and says nothing until they are in). Off by default; the switch is remembered
// on this phone. It speaks only with a voice for the page's language: with none it says so and stays silent (a
// German sentence read by an English voice helps nobody).
//
//   const speech = new Speech();        // reads the switch from localStorage
//   speech.panel(host);                 // the switch and what it will do, in "This phone"
//   speech.hear(event);                 // every live event (main.js): a turn, a hit owed, a winner … is said
import { CATALOGUE } from "./catalogue.js";
import { language, t } from "./i18n.js";

const KEY = "unolauncher.speech";
// Event -> [announcement, its parameters] (voice/announce.py); its priority is the box's (the catalogue's).
const ANNOUNCE = {
  turn: (e) => [e.again ? "turn_again" : "turn", { player: e.player }],
  owed: (e) => (e.until_card ? ["must_hit_until_card", { player: e.player }]
    : ["must_hit", { player: e.player, hits: e.hits }]),
  uno_called: (e) => ["uno_called", { player: e.player }],
  caught: (e) => ["caught", { player: e.player, target: e.target }],
  round_ended: (e) => ["round_won", { winner: e.winner, points: e.points }],
  game_over: (e) => ["game_won", { winner: e.winner }],
  reload_request: () => ["launcher_empty", {}],
  magazine_empty: () => ["launcher_empty", {}],
  jam: () => ["jammed", {}],
};
// The voice languages that speak a page language (a phone set to Filipino has "fil" voices).
const VOICE_TAGS = { tl: ["tl", "fil"] };

function usable(params) {
  return Object.entries(params).every(([name, value]) => (["hits", "points"].includes(name)
    ? Number.isInteger(value) && value >= 0 : typeof value === "string" && value !== ""));
}

/** The box's line `code` in `lang` with `params` filled in, as voice/catalogue.py `render` makes it (a counted
 * message picks its CLDR plural form by its counted parameter); null until the daemon's catalogue has it. */
export function line(code, params, lang = language()) {
  const { lines, counted } = CATALOGUE.voice;
  let message = lines?.[lang]?.[code];
  if (message === undefined) return null;
  if (typeof message === "object") {
    const form = new Intl.PluralRules(lang).select(Number(params[counted[code]]) || 0);
    message = message[form] ?? message.other;
  }
  return message.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
}

export class Speech {
  constructor(synth = globalThis.speechSynthesis) {
    this.synth = synth || null;
    this.on = false;
    try {
      this.on = localStorage.getItem(KEY) === "on";
    } catch {
      this.on = false;
    }
    this.speaking = 0; // priority of what is being said (0: nothing)
    this.said = []; // [text, lang] of every line handed to the synthesizer (read by the tests)
    this.status = null;
    this.synth?.addEventListener?.("voiceschanged", () => this.describe());
  }

  /** The voice for the page's language, or null (the voices may arrive late: `voiceschanged`). */
  voice() {
    if (!this.synth) return null;
    const tags = VOICE_TAGS[language()] || [language()];
    const voices = this.synth.getVoices();
    const matches = voices.filter((v) => tags.includes(String(v.lang).toLowerCase().split(/[-_]/)[0]));
    return matches.find((v) => v.localService) || matches[0] || null;
  }

  panel(host) {
    const label = document.createElement("label");
    label.className = "check";
    label.id = "speech";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = "speech";
    box.checked = this.on;
    box.addEventListener("change", () => {
      this.on = box.checked;
      try {
        localStorage.setItem(KEY, this.on ? "on" : "off");
      } catch {
        // not remembered: on for this visit only
      }
      if (!this.on) this.synth?.cancel();
      this.describe();
    });
    label.append(box, ` ${t("speech.toggle")}`);
    this.status = document.createElement("p");
    this.status.className = "muted small speech-state";
    host.append(label, this.status);
    this.describe();
  }

  describe() {
    if (!this.status) return;
    const voice = this.voice();
    this.status.textContent = !this.synth ? t("speech.unsupported")
      : voice ? t("speech.voice", { voice: voice.name }) : t("speech.no_voice");
    this.status.dataset.voice = voice ? voice.lang : "";
  }

  /** Say what `event` means for the table, if anything and if on. A newer line of at least the same priority cuts
   * the one being said (the table has moved on); a lower one waits its turn in the synthesizer's queue. */
  hear(event) {
    if (!this.on || !this.synth) return;
    const made = ANNOUNCE[event.type]?.(event);
    if (!made || !usable(made[1])) return;
    const voice = this.voice();
    if (!voice) return; // said once in the panel; nothing to say it with
    const [code, params] = made;
    const text = line(code, params);
    if (text === null) return; // the daemon's catalogue is not in yet
    const priority = CATALOGUE.voice.priority[code] || 1;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = voice.lang;
    try {
      utterance.voice = voice;
    } catch {
      // a voice object the browser did not make (a test's): the language still picks one
    }
    utterance.onend = () => { if (this.speaking === priority) this.speaking = 0; };
    if (!this.synth.speaking && !this.synth.pending) this.speaking = 0;
    if (priority >= this.speaking) {
      this.synth.cancel();
      this.speaking = priority;
    }
    this.said.push([text, voice.lang]);
    this.synth.speak(utterance);
  }
}
