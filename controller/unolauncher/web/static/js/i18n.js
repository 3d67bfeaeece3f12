// The page's words: one message catalogue per language (js/lang/<code>.js), looked up by key. The language comes
// from this phone's choice (localStorage) or its languages (navigator.languages); English is the fallback and the
// reference every other catalogue is checked against (tests/web/test_languages.py). docs/languages.md: adding one.
//
//   await loadLanguage();                       // once, before the first render (main.js)
//   t("banner.turn", { player: "ann" })         // "ann’s turn" / "ann ist am Zug" / …
//   t("count.cards", { count: 3 })              // plural by Intl.PluralRules: "3 cards", "3 карты", "5 карт"
import EN from "./lang/en.js";

export const LANGUAGES = { en: "English", de: "Deutsch", be: "Беларуская", hy: "Հայերեն", tl: "Tagalog" };
const KEY = "unolauncher.language";
// A phone set to Filipino reports "fil": its sheet and catalogue are Tagalog's.
const ALIASES = { fil: "tl" };

let code = "en";
let messages = EN;
let rules = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

/** The language to use: the phone's stored choice, else the first of its languages we have, else English. */
export function pickLanguage(stored, preferred) {
  if (stored && LANGUAGES[stored]) return stored;
  for (const tag of preferred || []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    const known = ALIASES[primary] || primary;
    if (LANGUAGES[known]) return known;
  }
  return "en";
}

function stored() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage off (private mode): the phone's languages decide
  }
}

/** Load the catalogue this phone wants (the page renders nothing before this resolves). */
export async function loadLanguage() {
  const want = pickLanguage(stored(), navigator.languages || [navigator.language]);
  try {
    if (want !== "en") messages = (await import(`./lang/${want}.js`)).default;
    code = want;
  } catch (err) {
    console.warn(`language ${want} did not load; English instead`, err); // a failed fetch offline: still usable
    messages = EN;
    code = "en";
  }
  rules = new Intl.PluralRules(code);
  numbers = new Intl.NumberFormat(code);
  document.documentElement.lang = code;
  return code;
}

export function language() {
  return code;
}

/** Remember `next` on this phone and redraw the page in it (a reload: every line, the feed's too, is re-worded). */
export function setLanguage(next) {
  if (!LANGUAGES[next]) return;
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // cannot remember: it still applies to this reload only if stored, so say nothing and stay
    return;
  }
  location.reload();
}

function message(key, count) {
  const entry = key in messages ? messages[key] : EN[key];
  if (entry === undefined) {
    console.warn(`no message ${key}`);
    return key;
  }
  if (typeof entry === "string") return entry;
  // A plural message: one form per CLDR category of the language, picked by its `count`.
  const category = rules.select(Number(count) || 0);
  return entry[category] ?? entry.other ?? Object.values(entry)[0];
}

function format(value) {
  return typeof value === "number" && Number.isFinite(value) ? numbers.format(value) : String(value ?? "");
}

/** The message `key` with `{name}` placeholders filled (numbers formatted for the language). */
export function t(key, params = {}) {
  return message(key, params.count).replace(/\{(\w+)\}/g, (_, name) => format(params[name]));
}

/** The message split at its placeholders: strings and {name, text} parts, so a view can wrap a name in <strong>
 * wherever the language puts it. */
export function tParts(key, params = {}) {
  const parts = [];
  const text = message(key, params.count);
  let at = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    if (match.index > at) parts.push(text.slice(at, match.index));
    parts.push({ name: match[1], text: format(params[match[1]]) });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

export function num(n) {
  return format(n);
}

/** Whether the catalogue has `key` (a refusal code the page can word). */
export function has(key) {
  return key in EN;
}

// Read-only hook for the browser tests: which keys this page looked up are checked against the catalogues.
window.unoI18n = { language, t, pickLanguage, keys: () => Object.keys(EN) };
