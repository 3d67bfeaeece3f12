// The words written in index.html, re-worded in the page's language by selector (index.html itself stays English
// and untouched: the layout's owners edit it freely), and the language switcher in Setup.
import { LANGUAGES, language, setLanguage, t } from "./i18n.js";

// [selector, key] sets the element's own text (its first non-blank text node: icons and inner spans stay);
// [selector, key, attribute] sets that attribute instead.
const STATIC = [
  [".brand-text strong", "brand.launcher"],
  ["#conn", "status.settings", "title"],
  ["#banner", "banner.waiting"],
  ["#view-table", "view.table", "aria-label"],
  ["#btn-stop", "estop.stop"],
  ["#estop-help", "estop.help"],
  ["#estop-stopped .estop-state", "estop.stopped"],
  ["#btn-enable", "estop.enable"],
  ["#ring", "ring.label", "aria-label"],
  ["#press .press-label", "press.hit"],
  ["#btn-play", "actions.play"],
  ["#btn-play", "actions.play_label", "aria-label"],
  ["#btn-play .wide-only", "actions.play_wide"],
  ["#btn-draw", "actions.draw"],
  ["#btn-pass", "actions.pass"],
  ["#btn-undo", "actions.undo"],
  ["#mini-feed", "feed.latest", "aria-label"],
  ["#view-feed", "view.events", "aria-label"],
  ["#view-feed h2", "feed.title"],
  ["#feed-empty", "feed.empty"],
  ["#view-scores", "view.scores", "aria-label"],
  ["#view-scores h2", "view.scores"],
  ["#score-form h3", "scores.report"],
  ["#score-form p.muted", "scores.hint"],
  ["#score-form button[type=submit]", "scores.send"],
  ["#view-launcher", "view.launcher", "aria-label"],
  ["#view-launcher h2", "view.launcher"],
  ["#virtual-controls h3", "launcher.virtual"],
  ["#btn-lid", "launcher.open_lid"],
  ["#btn-load", "launcher.load40"],
  ["#view-setup", "view.game_setup", "aria-label"],
  ["#view-setup h2", "setup.title"],
  ["#setup-ruleset", "setup.ruleset", "parent"],
  ["#setup-players", "setup.players", "legend"],
  ["#setup-players", "setup.seating", "legend-note"],
  ["#setup-add", "setup.add"],
  ["select[name=preset]", "setup.preset", "parent"],
  ["select[name=mode]", "setup.mode", "parent"],
  ["select[name=mode] option[value=table]", "setup.mode_table"],
  ["select[name=mode] option[value=full]", "setup.mode_full"],
  ["#setup-mode-note", "setup.mode_note"],
  ["select[name=customizable]", "setup.custom", "parent"],
  ["select[name=customizable] option[value='']", "custom.none"],
  ["select[name=customizable] option[value='hit:2']", "custom.hit2"],
  ["select[name=customizable] option[value='hit:3']", "custom.hit3"],
  ["select[name=customizable] option[value='hit:4']", "custom.hit4"],
  ["select[name=customizable] option[value='attack:2']", "custom.attack2"],
  ["select[name=customizable] option[value=all-hit]", "custom.all_hit"],
  ["select[name=customizable] option[value=hit-fire]", "custom.hit_fire"],
  ["select[name=customizable] option[value=skip]", "custom.skip"],
  ["select[name=customizable] option[value=reverse]", "custom.reverse"],
  ["select[name=customizable] option[value=trade-hands]", "custom.trade"],
  ["fieldset.options legend", "setup.options"],
  ["input[name=target_score]", "setup.target", "parent"],
  ["input[name=seed]", "setup.seed", "parent"],
  ["input[name=seed]", "setup.random", "placeholder"],
  ["#setup-start", "setup.start"],
  [".tabs", "view.tabs", "aria-label"],
  ["[data-tab=table]", "view.table"],
  ["[data-tab=feed]", "view.feed"],
  ["[data-tab=scores]", "view.scores"],
  ["[data-tab=launcher]", "view.launcher"],
  ["[data-tab=setup]", "view.setup"],
  ["#picker", "picker.label", "aria-label"],
  ["#picker .sheet-head h3", "picker.title"],
  ["#picker-player", "common.player", "parent"],
  ["#picker-wild > span", "picker.names_colour"],
  ["#picker-target > span", "picker.target"],
  ["#picker-discarded > span", "picker.discarded"],
  ["#picker-discard-clear", "picker.clear"],
  ["#picker-turned > span", "picker.turned"],
  ["#picker-send", "picker.send"],
  ["#deal-sheet", "deal.label", "aria-label"],
  ["#deal-title", "deal.title"],
  ["#deal-sheet .sheet-body > span.muted:not(.deal-label)", "deal.dealer"],
  ["#deal-sheet .deal-label", "deal.turned_up"],
  ["#deal-send", "deal.send"],
  ["#confirm-new", "confirm.new_label", "aria-label"],
  ["#confirm-new h3", "confirm.new_title"],
  ["#confirm-new button[value=cancel]", "confirm.keep"],
  ["#confirm-new-yes", "confirm.replace"],
  ["#confirm-enable", "confirm.enable_label", "aria-label"],
  ["#confirm-enable h3", "confirm.enable_title"],
  ["#confirm-enable p", "confirm.enable_text"],
  ["#confirm-enable button[value=cancel]", "confirm.keep_stopped"],
  ["#confirm-enable button[value=enable]", "confirm.enable"],
  ["#seat-sheet", "seat.sheet", "aria-label"],
  ["#seat-title", "seat.sheet"],
  ["#settings", "settings.label", "aria-label"],
  ["#settings h3", "settings.title"],
  ["#settings input[name=url]", "settings.broker", "parent"],
  ["#settings input[name=username]", "settings.user", "parent"],
  ["#settings input[name=password]", "settings.password", "parent"],
  ["#settings input[name=remember]", "settings.remember", "parent"],
  ["#settings button[value=save]", "settings.connect"],
  ["#settings-forget", "settings.forget"],
  ["dialog .icon-btn[value=cancel]", "common.close", "aria-label"],
];

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
  for (const [selector, key, where] of STATIC) {
    for (const node of root.querySelectorAll(selector)) {
      const text = t(key);
      if (!where) setOwnText(node, text);
      else if (where === "parent") setOwnText(node.closest("label"), text);
      else if (where === "legend") setOwnText(node.closest("fieldset").querySelector("legend"), text);
      else if (where === "legend-note") setOwnText(node.closest("fieldset").querySelector("legend .muted"), text);
      else node.setAttribute(where, text);
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
