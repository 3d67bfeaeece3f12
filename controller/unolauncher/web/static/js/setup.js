// Game setup: players in seating order, rule set, launcher preset, options -> one `new_game` command, handed to
// `start` (which asks before replacing a running game and, with real cards, for the deal).
import { RULESETS, rulesetName } from "./cards.js";
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
    const ruleset = form.querySelector("#setup-ruleset");
    for (const value of Object.keys(RULESETS)) ruleset.append(new Option(rulesetName(value), value));
    ruleset.addEventListener("change", () => this.syncRuleset());
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

  syncRuleset() {
    const attack = this.form.ruleset.value.startsWith("attack");
    for (const node of this.form.querySelectorAll(".attack-only")) node.hidden = !attack;
    for (const node of this.form.querySelectorAll(".draw-only")) node.hidden = attack;
    // Wild Customizable exists only in the current Attack deck (ATK-01).
    this.form.customizable.closest("label").hidden = this.form.ruleset.value !== "attack";
    this.form.querySelector("#setup-mode-note").hidden = this.form.mode.value !== "table";
  }

  /** The daemon's preset for the next game (Home Assistant may have chosen it): shown unless the user picked one. */
  suggestPreset(preset) {
    if (this.presetTouched || !preset) return;
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
    if (ruleset.startsWith("attack")) {
      options.chain_after_skip_reverse = f.chain_after_skip_reverse.checked;
      options.suggestion_penalty = f.suggestion_penalty.checked;
    }
    if (f.seven_zero.checked) options.seven_zero = true; // house rules: sent only when on (rules/options.py)
    if (f.jump_in.checked) options.jump_in = true;
    if (f.stacking.checked) options.stacking = true;
    if (!ruleset.startsWith("attack") && f.stacking_wd4.checked) options.stacking_wd4 = true;
    if (ruleset === "attack" && f.customizable.value) {
      // ATK-16: {"action": "hit", "count": 3}; the select's value is "action" or "action:count".
      const [action, count] = f.customizable.value.split(":");
      const option = f.customizable.selectedOptions[0];
      options.customizable = { action, label: option.textContent.trim() };
      if (count) options.customizable.count = Number(count);
    }
    options.ejection_preset = f.preset.value;
    const command = { type: "new_game", ruleset, players, mode: f.mode.value, options };
    if (f.seed.value !== "" && !f.querySelector("#setup-seed").hidden) command.seed = Number(f.seed.value);
    localStorage.setItem(PLAYERS_KEY, JSON.stringify(players));
    this.clear();
    this.start(command, control);
  }
}
