"""The table's rule catalogue, published retained on ``unolauncher/<table>/rules`` after every connect: the facts the
dashboard needs from the registries instead of keeping its own copies.

- ``presets``: every built-in ejection preset's table (the keys of a ``custom`` table, as ``docs/ejection.md``
  gives them), from ``rules/ejection.py``; the phone's fairness check (``fairness.js``) recomputes presses with them;
- ``offered_presets``: the presets the next game may use here (``custom`` only when configured);
- ``actions``: per card action, whether a play names a target, may be the last card, names a colour
  (``rules/actions.py``); ``faces``: each face's action (the same in every rule set that has the face; a Wild
  Customizable's comes from its game's ``customizable`` option); ``house``: the faces each house rule gives an action
  when a game switches it on — the picker asks for a target from these; ``banners``: each house rule's banner
  templates, by its ``house`` entry's name (``rules/house_banner.py``) — the page words any rule's open entry from
  these;
- ``options``: each game option's name, default, rule sets, whether it is optional and the name of the dashboard
  setup form's control for it (``setup``, ``""``: not offered) (``rules/options.py``); the setup form makes a switch
  for every offered yes/no option from it;
- ``rulesets``: the rule sets' names (``rules/cards.py``), in the order the setup form offers them; ``decks``: each
  rule set's coloured faces and Wild cards, once each, in its deck's order, and what each is worth (``values``) — the
  card picker, the deal sheet and the score counter show these;
- ``voice``: what the box says (``voice/catalogue.py``): ``lines`` (language -> announcement code -> message, a
  counted one by CLDR plural category), ``counted`` (the parameter that picks the form) and ``priority``; a phone
  that speaks the news itself (``speech.js``) says the box's own lines from it.

Example::

    >>> table = catalogue(("classic", "gentle"))
    >>> table["actions"]["trade-hands"]["target"], table["faces"]["wild attack-attack"]
    (True, 'attack')
    >>> table["presets"]["classic"]["cards"]["5"]
    16
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules import actions
from unolauncher.rules.cards import RULESETS, card_info
from unolauncher.rules.ejection import BUILTIN_PRESETS, PresetParams
from unolauncher.rules.house import house_actions
from unolauncher.rules.house_rules import rules as house_rules
from unolauncher.rules.options import REGISTRY
from unolauncher.rules.referee import Referee
from unolauncher.voice.catalogue import CATALOGUES, COUNTED, PRIORITY

CUSTOMIZABLE_FACE = "wild customizable"


def preset_table(params: PresetParams) -> dict[str, Any]:
    """A preset's numbers as a ``custom`` table (JSON: card counts are string keys)."""
    table: dict[str, Any] = {
        "miss_hazard": list(params.miss_hazard),
        "hit_repeat": list(params.hit_repeat),
        "cards": {str(count): weight for count, weight in sorted(params.card_weights.items())},
        "suspense_chance": params.suspense_chance,
        "suspense_ms": list(params.suspense_ms),
    }
    if params.sequence:
        table["sequence"], table["period"] = list(params.sequence), params.period
    return table


def face_actions() -> dict[str, str]:
    """Each action face's action, over every rule set (a plain game of each: no Customizable option)."""
    faces: dict[str, str] = {}
    for name in RULESETS:
        ref = Referee()
        ref.handle({"type": "new_game", "ruleset": name, "players": ["a", "b"]})
        for face, action in ref._actions.items():
            if face != CUSTOMIZABLE_FACE:
                faces[face] = action
    return dict(sorted(faces.items()))


def house_faces() -> dict[str, dict[str, str]]:
    """Each house rule's faces and their actions when the game switches it on (option name -> face -> action)."""
    house: dict[str, dict[str, str]] = {}
    for option in REGISTRY:
        faces: dict[str, str] = {}
        house_actions({option.name: True}, faces)
        if faces:
            house[option.name] = faces
    return house


def deck_faces() -> dict[str, dict[str, Any]]:
    """Each rule set's deck as the phone draws it: ``faces`` (a coloured card's face, in every colour) and
    ``wilds`` (whole Wild cards), each once, in the deck's order, and ``values``: what each face or Wild is worth
    at the round's end (ATK-20, MK-17; the same in every colour), for the score counter (``rules/cards.py``)."""
    decks: dict[str, dict[str, Any]] = {}
    for name, ruleset in RULESETS.items():
        faces: dict[str, None] = {}  # ordered sets
        wilds: dict[str, None] = {}
        values: dict[str, int] = {}
        for card in ruleset.deck:
            color, face = card_info(card)
            (faces if color is not None else wilds)[face] = None  # a Wild's face is the whole card
            values[face] = ruleset.values[card]
        decks[name] = {"faces": list(faces), "wilds": list(wilds), "values": values}
    return decks


def house_banners() -> dict[str, list[dict[str, Any]]]:
    """Each house rule's banner templates by its ``house`` entry's name (rules without a banner left out)."""
    return {rule.name: [b.to_json() for b in rule.banner()] for rule in house_rules() if rule.banner()}


def catalogue(offered_presets: tuple[str, ...]) -> dict[str, Any]:
    """The retained ``rules`` payload (see the module docstring)."""
    return {
        "presets": {name: preset_table(params) for name, params in BUILTIN_PRESETS.items()},
        "offered_presets": list(offered_presets),
        "actions": actions.to_json(),
        "faces": face_actions(),
        "house": house_faces(),
        "banners": house_banners(),
        "options": [
            {
                "name": o.name,
                "default": o.default,
                "rulesets": list(o.rulesets),
                "optional": o.optional,
                "setup": o.setup,
            }
            for o in REGISTRY
        ],
        "rulesets": list(RULESETS),
        "decks": deck_faces(),
        "voice": {"lines": CATALOGUES, "counted": COUNTED, "priority": PRIORITY},
    }
