// The words written in index.html, re-worded in the page's language, and the language switcher in Setup. Each
// element that holds words names its catalogue key in index.html itself (one source: the element says which words
// it shows): `data-i18n="key"` for its own text, `data-i18n-<attribute>="key"` for an attribute (aria-label, title,
// placeholder). index.html is written in English, the English catalogue's words (tests/web/test_page_words.py).
import { LANGUAGES, language, setLanguage, t } from "./i18n.js";

export const I18N_ATTRIBUTES = ["aria-label", "title", "placeholder"];

/** Set `node`'s own words, keeping its icons and inner elements: the first non-blank text node is replaced (its
 * surrounding spaces kept); without one the text goes first. */
export function setOwnText(node, text) {
  for (const child of node.childNodes) {
    if (child.nodeType === Node.TEXT_NODE && child.data.trim()) {
      const lead = child.data.match(/^\s*/)[0];
      const trail = child.data.match(/\s*$/)[0];
      child.data = lead + text.trim() + trail;
      return;
    }
  }
  if (!node.children.length) node.textContent = text;
  else node.prepend(text);
}

/** Re-word index.html's own text in the page's language (English: nothing to do). */
export function translatePage(root = document) {
  if (language() === "en") return;
  for (const node of root.querySelectorAll("[data-i18n]")) setOwnText(node, t(node.dataset.i18n));
  for (const name of I18N_ATTRIBUTES) {
    for (const node of root.querySelectorAll(`[data-i18n-${name}]`)) {
      node.setAttribute(name, t(node.getAttribute(`data-i18n-${name}`)));
    }
  }
}

/** The language switcher (and what else belongs to this phone's words, e.g. speech) in `host`. */
export function languagePanel(host) {
  const label = document.createElement("label");
  label.className = "field inline";
  label.id = "language";
  label.append(`${t("setup.language")} `);
  const select = document.createElement("select");
  select.name = "language";
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code, false, code === language()));
  select.addEventListener("change", () => setLanguage(select.value));
  label.append(select);
  host.append(label);
  return label;
}
