// The table's rule catalogue as the daemon publishes it (retained on `<base>rules`, daemon/catalogue.py): the
// ejection presets' tables, each card action's facts (names a target, may be last, names a colour), each face's
// action, the game options. The page keeps no copy of these: until the catalogue arrives the picker asks for no
// target (the referee would say one is missing) and the fairness check waits for the presets.
// The setup form (setup.js) is made from it too: the rule sets, the presets offered, a switch per yes/no option.
// `banners`: each house rule's banner templates by its `house` entry (views.js words any rule's open entry so).
// `decks`: each rule set's coloured faces and Wild cards (cards.js DECKS: the picker, the deal sheet, the counter).
export const CATALOGUE = {
  presets: {}, offered_presets: [], actions: {}, faces: {}, house: {}, banners: {}, options: [], rulesets: [],
  decks: {}, voice: {},
};
const listeners = [];

/** Take the daemon's catalogue (in place: modules hold references to its tables) and tell the listeners. */
export function setCatalogue(data) {
  for (const [key, held] of Object.entries(CATALOGUE)) {
    const given = data[key];
    if (Array.isArray(held) && Array.isArray(given)) held.splice(0, held.length, ...given);
    else if (!Array.isArray(held) && given && typeof given === "object" && !Array.isArray(given)) {
      for (const old of Object.keys(held)) delete held[old];
      Object.assign(held, given);
    }
  }
  for (const listener of listeners) listener();
}

export function onCatalogue(listener) {
  listeners.push(listener);
}

/** The action of `card` in a game whose Wild Customizable does `customAction` (null: a plain Wild) and whose
 * `options` (the state's `options`: those not at their default) may switch house rules on. */
export function actionOf(card, customAction = null, options = {}) {
  const text = String(card || "").trim().toLowerCase();
  if (text === "wild customizable") return customAction || "wild";
  const space = text.indexOf(" ");
  const face = text.startsWith("wild") ? text : text.slice(space + 1); // the referee's face: "wild hit-4", "skip"
  for (const [rule, faces] of Object.entries(CATALOGUE.house)) {
    if (options && options[rule] && faces[face] !== undefined) return faces[face];
  }
  return CATALOGUE.faces[face] || "";
}

/** Whether playing `card` names another player (Attack-Attack, Trade Hands, a Customizable acting as one, a 7
 * under the seven_zero house rule). */
export function namesTarget(card, customAction = null, options = {}) {
  const facts = CATALOGUE.actions[actionOf(card, customAction, options)];
  return Boolean(facts && facts.target);
}
