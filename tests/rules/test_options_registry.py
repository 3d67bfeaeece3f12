"""The option registry (rules/options.py) is complete: every registered option is refused when wrong, kept when
right, survives the referee's snapshot, is documented (docs/rules.md holds the generated table; docs/protocol.md
names it) and is offered by the dashboard's setup form when it says so. Optional options stay out of a game that
does not give them (journal snapshots and the golden replays keep their exact JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from unolauncher.rules.options import OPTIONS_BY_NAME, REGISTRY, Option, docs_table
from unolauncher.rules.referee import Referee
from unolauncher.rules.schema import OPTIONS
from unolauncher.rules.state import DEFAULT_OPTIONS, OPTIONAL_OPTIONS

from .rigs import of, refused

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "controller" / "unolauncher" / "web" / "static"

# A value each option accepts that is not its default (what a test needs to see the option kept), by name: the
# test fails for an option registered without one, so a new option cannot skip the round trip.
EXAMPLES: dict[str, Any] = {
    "target_score": 200,
    "chain_after_skip_reverse": False,
    "suggestion_penalty": True,
    "customizable": {"action": "hit", "count": 3},
    "ejection_preset": "brutal",
    "ejection_custom": {"miss_hazard": [0.5, 1.0], "cards": {"1": 1}},
    "hand_size": 5,
    "ejection_ms_per_card": 120,
    "seven_zero": True,
    "jump_in": True,
    "stacking": True,
    "stacking_wd4": True,
}


def new_game(ruleset: str, options: dict[str, Any]) -> dict[str, Any]:
    return {"type": "new_game", "ruleset": ruleset, "players": ["ann", "bob", "cy"], "seed": 4, "options": options}


def ruleset_of(option: Option) -> str:
    return option.rulesets[0] if option.rulesets else "classic"


def test_the_defaults_the_schema_and_the_optional_list_come_from_the_registry() -> None:
    assert set(OPTIONS) == {option.name for option in REGISTRY} == set(DEFAULT_OPTIONS) | set(OPTIONAL_OPTIONS)
    assert set(DEFAULT_OPTIONS).isdisjoint(OPTIONAL_OPTIONS)
    for option in REGISTRY:
        assert option.check is OPTIONS[option.name]
        if not option.optional:
            assert DEFAULT_OPTIONS[option.name] == option.default


@pytest.mark.parametrize("option", REGISTRY, ids=lambda o: o.name)
def test_every_option_is_refused_when_wrong_and_named(option: Option) -> None:
    # A list of lists is no option's shape: the schema refuses it, naming the option.
    rejected = refused(Referee(), new_game(ruleset_of(option), {option.name: [[1]]}), "bad_option")
    assert option.name in rejected["message"]


@pytest.mark.parametrize("option", REGISTRY, ids=lambda o: o.name)
def test_every_option_is_kept_and_survives_a_snapshot(option: Option) -> None:
    value = EXAMPLES[option.name]
    assert option.check(value) is None and value != option.default
    ref = Referee()
    events = ref.handle(new_game(ruleset_of(option), {option.name: value}))
    assert of(events, "game_started")[0]["options"][option.name] == value, events[:1]
    again = Referee.from_json(ref.to_json())
    assert again.state.options[option.name] == value
    assert again.to_json() == ref.to_json()


@pytest.mark.parametrize("option", [o for o in REGISTRY if o.optional], ids=lambda o: o.name)
def test_an_optional_option_stays_out_of_a_game_that_does_not_give_it(option: Option) -> None:
    ref = Referee()
    started = of(ref.handle(new_game(ruleset_of(option), {})), "game_started")[0]
    assert option.name not in started["options"]
    assert option.name not in ref.to_json()["state"]["options"]


def test_an_unknown_option_is_refused_by_name() -> None:
    rejected = refused(Referee(), new_game("classic", {"seven_eight": True}), "unknown_field")
    assert "seven_eight" in rejected["message"]


def test_docs_rules_holds_the_generated_options_table() -> None:
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert docs_table() in page, (
        "docs/rules.md's options table is not the registry's: paste the output of "
        "`python -c 'from unolauncher.rules.options import docs_table; print(docs_table())'`"
    )


@pytest.mark.parametrize("option", REGISTRY, ids=lambda o: o.name)
def test_every_option_is_named_in_the_protocol_and_has_a_doc_line(option: Option) -> None:
    assert len(option.doc) > 10, f"{option.name} has no doc line"
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert f"`{option.name}`" in protocol


@pytest.mark.parametrize("option", [o for o in REGISTRY if o.setup], ids=lambda o: o.name)
def test_an_option_the_dashboard_offers_has_its_setup_control(option: Option) -> None:
    if isinstance(option.default, bool):
        # A yes/no option gets its switch from the daemon's rule catalogue (setup.js); its words are checked in
        # every language by tests/web/test_setup_catalogue.py.
        english = (STATIC / "js" / "lang" / "en.js").read_text(encoding="utf-8")
        assert f'"option.{option.name}":' in english
        return
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert f'name="{option.setup}"' in page
    setup = (STATIC / "js" / "setup.js").read_text(encoding="utf-8")
    sends = (f"options.{option.name} =", f"{{ {option.name}: ")  # options.x = ... or { x: ... }
    assert any(form in setup for form in sends), f"setup.js never sends {option.name}"


def test_the_lookup_table_is_the_registry() -> None:
    assert list(OPTIONS_BY_NAME.values()) == list(REGISTRY)
