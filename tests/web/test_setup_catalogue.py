"""The setup form is made from the daemon's rule catalogue (daemon/catalogue.py, ``rules`` topic), not from copies
in index.html: in real Chromium its rule sets are the referee's, its presets are the ones the daemon offers, and it
has a switch for every yes/no option the registry offers, shown for the rule sets the option means something in.
Every such choice has its words in every language catalogue (a preset or option added to the registry without them
fails here), and the switches the form sends are the registry's options, as the referee takes them."""

from __future__ import annotations

from typing import Any

import pytest

from support.net import wait_until
from unolauncher.daemon.catalogue import catalogue
from unolauncher.daemon.prepare import offered_presets
from unolauncher.rules.cards import RULESETS
from unolauncher.rules.ejection import BUILTIN_PRESETS
from unolauncher.rules.options import REGISTRY

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue
from .test_dashboard import live
from .test_languages import LANGUAGES
from .test_languages import catalogue as language

SWITCHES = [o for o in REGISTRY if o.setup and isinstance(o.default, bool)]
# Every preset a table can offer: the built-in ones, and "custom" when a table configures its own.
PRESETS = offered_presets("custom")

FORM = """() => {
  const f = document.querySelector("#setup-form");
  const choices = (select) => [...select.options].map((o) => [o.value, o.textContent]);
  const switches = [...f.querySelectorAll("#setup-switches input")].map((i) => ({
    name: i.name, checked: i.checked, shown: !i.closest("label").hidden, text: i.closest("label").textContent.trim(),
  }));
  return { rulesets: choices(f.ruleset), presets: choices(f.preset), preset: f.preset.value, switches };
}"""


def test_every_preset_and_switch_has_words_in_every_language(phones: PhoneFactory, dashboard_url: str) -> None:
    page = phones.open(dashboard_url)
    for code in LANGUAGES:
        words = language(page, code)
        missing = [f"preset.{p}" for p in PRESETS if f"preset.{p}" not in words]
        missing += [f"option.{o.name}" for o in SWITCHES if f"option.{o.name}" not in words]
        missing += [f"ruleset.{r}" for r in RULESETS if f"ruleset.{r}" not in words]
        assert missing == [], f"{code} has no words for {missing}"
    assert set(BUILTIN_PRESETS) <= set(PRESETS)


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_the_setup_form_is_the_daemons_catalogue(phones: PhoneFactory, dashboard_url: str, ruleset: str) -> None:
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)
    page.click("[data-tab=setup]")
    page.select_option("select[name=ruleset]", ruleset)
    form: dict[str, Any] = page.evaluate(FORM)
    english = language(page, "en")
    assert form["rulesets"] == [[r, english[f"ruleset.{r}"]] for r in RULESETS]
    offered = catalogue(offered_presets("classic"))["offered_presets"]  # what this test's daemon offers
    assert form["presets"] == [[p, english[f"preset.{p}"]] for p in offered]
    assert form["preset"] == "classic"
    assert [s["name"] for s in form["switches"]] == [o.setup for o in SWITCHES]
    for shown, option in zip(form["switches"], SWITCHES, strict=True):
        assert shown["checked"] is option.default, option.name
        assert shown["shown"] is (not option.rulesets or ruleset in option.rulesets), option.name
        assert shown["text"] == english[f"option.{option.name}"]


@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_the_switches_start_a_game_with_their_options(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, ruleset: str
) -> None:
    page = phones.open(dashboard_url)
    live(page)
    wait_for_catalogue(page)
    page.click("[data-tab=setup]")
    page.select_option("select[name=ruleset]", ruleset)
    page.select_option("select[name=mode]", "full")
    if ruleset == "attack":
        page.select_option("select[name=preset]", "brutal")
    switches = [o for o in SWITCHES if not o.rulesets or ruleset in o.rulesets]  # the ones this rule set shows
    for option in switches:  # every switch turned the other way
        page.set_checked(f"#setup-switches input[name={option.setup}]", not option.default)
    before = len(table.events("game_started"))
    running = table.state.get("phase") in ("playing", "scoring", "between") and not table.state.get("winner")
    page.click("#setup-start")
    if running:
        page.click("#confirm-new-yes")
    assert wait_until(lambda: len(table.events("game_started")) > before, 10)
    options = table.events("game_started")[-1]["options"]
    assert {o.name: options.get(o.name, o.default) for o in switches} == {o.name: not o.default for o in switches}
    if ruleset == "attack":
        assert options["ejection_preset"] == "brutal"


def test_the_wild_customizable_choices_cover_every_action() -> None:
    """The one hand-made choice list left in index.html (its counts are the page's picks): every action the
    registry's ``customizable`` option takes is among its values (``action`` or ``action:count``)."""
    from html.parser import HTMLParser
    from pathlib import Path

    from unolauncher.rules.options import CUSTOM_ACTIONS

    class Values(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.inside = False
            self.values: set[str] = set()

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "select":
                self.inside = dict(attrs).get("name") == "customizable"
            elif tag == "option" and self.inside:
                self.values.add((dict(attrs).get("value") or "wild").split(":")[0])

    parser = Values()
    parser.feed((Path(__file__).resolve().parents[2] / "controller/unolauncher/web/static/index.html").read_text())
    assert parser.values == set(CUSTOM_ACTIONS)
