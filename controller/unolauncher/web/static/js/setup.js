// Game setup: players in seating order, rule set, launcher preset, options -> one `new_game` command, handed to
// `start` (which asks before replacing a running game and, with real cards, for the deal).
import { rulesetName } from "./cards.js";
import { CATALOGUE, onCatalogue } from "./catalogue.js";
import { t } from "./i18n.js";
import { setBlocked } from "./views.js";

const PLAYERS_KEY = "unolauncher.players";
const DEFAULT_PLAYERS = ["Ana", "Ben", "Cleo"];

export class Setup {
  constructor(form, { start }) {
    this.form = form;
    this.start = start; // (command, control) -> sends it, after whatever it needs to ask
    this.presetTouched = false;
    this.list = form.querySelector("#setup-players");
    form.preset.addEventListener("change", () => {
      this.presetTouched = true;
    });
    form.mode.addEventListener("change", () => this.syncRuleset());
    setBlocked(form.querySelector("#setup-start"), false);
    this.suggested = null; // the daemon's preset for the next game, until the presets are in
    // The rule sets, the presets and the yes/no options come from the daemon's rule catalogue (catalogue.js): the
    // page keeps no list of its own, so a preset or an option added to the registry shows here by itself.
    onCatalogue(() => this.fromCatalogue());
    form.querySelector("#setup-ruleset").addEventListener("change", () => this.syncRuleset());
    form.querySelector("#setup-add").addEventListener("click", () => this.addPlayer("", true));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit(form.querySelector("#setup-start"));
    });
    let saved = null;
    try {
      saved = JSON.parse(localStorage.getItem(PLAYERS_KEY) || "null");
    } catch {
      saved = null;
    }
    for (const name of Array.isArray(saved) && saved.length >= 2 ? saved : DEFAULT_PLAYERS) this.addPlayer(name);
    this.syncRuleset();
  }

  addPlayer(name, focus = false) {
    if (this.list.children.length >= 10) return;
    const li = document.createElement("li");
    const input = document.createElement("input");
    input.value = name;
    input.placeholder = t("setup.player_n", { n: this.list.children.length + 1 });
    input.maxLength = 20;
    input.setAttribute("aria-label", input.placeholder);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "icon-btn";
    remove.textContent = "✕";
    remove.setAttribute("aria-label", t("setup.remove"));
    remove.addEventListener("click", () => {
      if (this.list.children.length > 2) li.remove();
    });
    li.append(input, remove);
    this.list.append(li);
    if (focus) input.focus();
  }

  /** (Re)make the rule set and preset choices and the option switches from the daemon's catalogue, keeping what
   * the user chose (the catalogue comes again on every reconnect). */
  fromCatalogue() {
    const f = this.form;
    fillSelect(f.ruleset, CATALOGUE.rulesets, rulesetName, f.ruleset.value || CATALOGUE.rulesets[0]);
    const preset = CATALOGUE.options.find((o) => o.name === "ejection_preset");
    const chosen = this.presetTouched ? f.preset.value : this.suggested || (preset && preset.default);
    fillSelect(f.preset, CATALOGUE.offered_presets, (name) => t(`preset.${name}`), chosen);
    const host = f.querySelector("#setup-switches");
    const checked = new Map([...host.querySelectorAll("input")].map((input) => [input.name, input.checked]));
    host.replaceChildren();
    for (const option of this.switches()) {
      const label = document.createElement("label");
      label.className = "check";
      label.dataset.rulesets = option.rulesets.join(" ");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.name = option.setup;
      input.checked = checked.has(option.setup) ? checked.get(option.setup) : option.default;
      label.append(input, ` ${t(`option.${option.name}`)}`);
      host.append(label);
    }
    this.syncRuleset();
  }

  /** The options the form offers as a switch: those with a setup control whose value is yes or no. */
  switches() {
    return CATALOGUE.options.filter((o) => o.setup && typeof o.default === "boolean");
  }

  syncRuleset() {
    const attack = this.form.ruleset.value.startsWith("attack");
    for (const node of this.form.querySelectorAll(".attack-only")) node.hidden = !attack;
    for (const node of this.form.querySelectorAll("#setup-switches [data-rulesets]")) {
      const where = node.dataset.rulesets.split(" ").filter(Boolean);
      node.hidden = where.length > 0 && !where.includes(this.form.ruleset.value);
    }
    // Wild Customizable exists only in the current Attack deck (ATK-01).
    this.form.customizable.closest("label").hidden = this.form.ruleset.value !== "attack";
    this.form.querySelector("#setup-mode-note").hidden = this.form.mode.value !== "table";
  }

  /** The daemon's preset for the next game (Home Assistant may have chosen it): shown unless the user picked one. */
  suggestPreset(preset) {
    if (this.presetTouched || !preset) return;
    this.suggested = preset;
    if ([...this.form.preset.options].some((o) => o.value === preset)) this.form.preset.value = preset;
  }

  players() {
    return [...this.list.querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);
  }

  clear() {
    const slot = this.form.querySelector(":scope > .refusal");
    slot.textContent = "";
    slot.classList.remove("shown");
  }

  refuse(control, message) {
    const slot = this.form.querySelector(":scope > .refusal");
    slot.textContent = message;
    slot.classList.add("shown");
    control.classList.remove("busy");
  }

  submit(control) {
    const f = this.form;
    const players = this.players();
    if (players.length < 2 || players.length > 10) return this.refuse(control, t("setup.count"));
    if (new Set(players.map((p) => p.toLowerCase())).size !== players.length) {
      return this.refuse(control, t("setup.unique"));
    }
    const ruleset = f.ruleset.value;
    const options = { target_score: Number(f.target_score.value || 500) };
    for (const option of this.switches()) {
      const input = f.querySelector(`#setup-switches input[name="${option.setup}"]`);
      if (!input || input.closest("label").hidden) continue; // not in this rule set
      // An optional option (a house rule) is sent only when on, so a game without it keeps its JSON (options.py).
      if (!option.optional || input.checked) options[option.name] = input.checked;
    }
    if (ruleset === "attack" && f.customizable.value) {
      // ATK-16: {"action": "hit", "count": 3}; the select's value is "action" or "action:count".
      const [action, count] = f.customizable.value.split(":");
      const option = f.customizable.selectedOptions[0];
      options.customizable = { action, label: option.textContent.trim() };
      if (count) options.customizable.count = Number(count);
    }
    if (f.preset.value) options.ejection_preset = f.preset.value; // none before the catalogue: the table's own
    const command = { type: "new_game", ruleset, players, mode: f.mode.value, options };
    if (f.seed.value !== "" && !f.querySelector("#setup-seed").hidden) command.seed = Number(f.seed.value);
    localStorage.setItem(PLAYERS_KEY, JSON.stringify(players));
    this.clear();
    this.start(command, control);
  }
}

/** Make `select`'s choices `values` (worded by `label`), selecting `chosen` when it is one of them. */
function fillSelect(select, values, label, chosen) {
  select.replaceChildren(...values.map((value) => new Option(label(value), value)));
  if (values.includes(chosen)) select.value = chosen;
}
