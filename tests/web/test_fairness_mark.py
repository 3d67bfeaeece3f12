"""The dashboard checks the launcher itself (web/static/js/fairness.js): real Chromium recomputes every press of every
revealed round from the events, agrees with the referee and with ``unolauncher verify``, notices a changed press,
adds the phone's own entropy to an open round, and marks a finished round verified."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from playwright.sync_api import expect

from support.net import wait_until
from unolauncher.rules.ejection import BUILTIN_PRESETS
from unolauncher.rules.referee import Referee

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue
from .test_dashboard import live

PLAYERS = ["ann", "bob", "cy"]
CUSTOM = {"miss_hazard": [0.3, 1.0], "hit_repeat": [0.5, 0.1], "cards": {"2": 1.5, "7": 2}, "suspense_chance": 0.5,
          "suspense_ms": [100, 900]}  # fmt: skip
CHECK = "async (rounds) => { const m = await import('./js/fairness.js'); return rounds.map((r) => m.checkRound(r)); }"


def secret(n: int) -> str:
    return hashlib.sha256(f"web-{n}".encode()).hexdigest()


def played_rounds(preset: str) -> list[dict[str, Any]]:
    """Two revealed rounds of a real referee driven like the daemon drives it (presses attributed and not, a refill,
    entropy, an undo that commits afresh), as fairness.js receives them: per commitment, its events."""
    ref = Referee()
    log: list[dict[str, Any]] = []

    def apply(command: dict[str, Any]) -> list[dict[str, Any]]:
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", events
        log.extend({**e, "seq": len(log) + i + 1} for i, e in enumerate(events))
        return events

    options: dict[str, Any] = {"ejection_preset": preset}
    if preset == "custom":
        options["ejection_custom"] = CUSTOM
    if preset == "brutal":
        options["ejection_ms_per_card"] = 95  # a calibrated launcher (selftest --calibrate)
    apply(
        {
            "type": "new_game",
            "ruleset": "attack",
            "players": PLAYERS,
            "mode": "table",
            "secret": secret(1),
            "options": options,
            "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 7, "cy": 1}},
        }
    )
    for i in range(14):
        if i == 3:
            apply({"type": "entropy", "entropy": "0123456789abcdef" * 2})
        if i == 7:
            apply({"type": "lid_opened"})
        player = ref.hitter() if i % 5 else None
        apply({"type": "pressed", "player": player})
        if player is not None:
            apply({"type": "hit", "player": player, "cards": 0})  # the counts do not matter here: hands stay put
    while ref.hitter() != "cy":
        press = apply({"type": "pressed", "player": ref.hitter()})[-1]
        apply({"type": "hit", "player": press["player"], "cards": 0})
    apply({"type": "play", "player": "cy", "card": "red 7"})  # cy goes out
    apply({"type": "score", "hands": {"ann": 5, "bob": 5}})
    apply({"type": "undo", "secret": secret(2)})  # back into the scored round: a fresh commitment
    for _ in range(3):
        apply({"type": "pressed", "player": None})
    apply({"type": "score", "hands": {"ann": 5, "bob": 5}})
    rounds: dict[str, dict[str, Any]] = {}
    for event in log:
        key = str(event.get("commitment"))
        if event["type"] in ("round_started", "ejection_commit"):
            rounds[key] = {"commitment": key, "preset": event["preset"], "custom": event.get("custom"),
                           "ms_per_card": event.get("ms_per_card"), "rigged": event.get("rigged", False), "ops": [],
                           "secret": None, "presses": 0}  # fmt: skip
        elif event["type"] in ("press", "ejection_lid", "ejection_entropy"):
            rounds[key]["ops"].append(event)
        elif "secret" in event:
            rounds[key].update(secret=event["secret"], presses=event["presses"])
    assert len(rounds) == 2 and all(r["secret"] for r in rounds.values())
    return list(rounds.values())


def test_the_phones_check_agrees_with_the_referee_and_catches_a_changed_press(
    phones: PhoneFactory, dashboard_url: str
) -> None:
    page = phones.open(dashboard_url)
    wait_for_catalogue(page)  # the page keeps no copy of the presets: they come from the daemon's rule catalogue
    presets = page.evaluate("async () => (await import('./js/fairness.js')).PRESETS")
    for name, params in BUILTIN_PRESETS.items():  # the presets the page received are the referee's
        js = presets[name]
        assert js["miss_hazard"] == list(params.miss_hazard) and js["hit_repeat"] == list(params.hit_repeat)
        assert {int(k): v for k, v in js["cards"].items()} == dict(params.card_weights)
        assert js.get("suspense_chance", 0) == params.suspense_chance
        assert tuple(js.get("suspense_ms", (0, 0))) == params.suspense_ms
        assert tuple(js.get("sequence", ())) == params.sequence and js.get("period", 0) == params.period
    for preset in ("classic", "gentle", "brutal", "sequence", "custom"):
        rounds = played_rounds(preset)
        results = page.evaluate(CHECK, rounds)
        assert [r["status"] for r in results] == ["verified", "verified"], (preset, results)
        assert results[0]["presses"] == rounds[0]["presses"] >= 14
        fired = next(op for op in rounds[0]["ops"] if op["type"] == "press" and op["plan"]["fire"])
        fired["plan"]["cards"] += 1
        rounds[1]["ops"][0]["player"] = "bob"
        results = page.evaluate(CHECK, rounds)
        assert [r["status"] for r in results] == ["mismatch", "mismatch"], results
        assert f"press {fired['index']}: cards" in results[0]["detail"] and "its draw" in results[1]["detail"]


def test_a_finished_round_is_marked_verified_and_the_phone_adds_its_entropy(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle
) -> None:
    page = phones.open(dashboard_url)
    live(page)  # subscribed and holding the state it starts from ("online" comes before the broker's SUBACK)
    reply = table.command(
        {
            "type": "new_game",
            "ruleset": "attack",
            "players": PLAYERS,
            "mode": "table",
            "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 1, "cy": 7}},
        }
    )
    assert reply["ok"], reply  # no seed: the daemon draws the shuffle and the round's secret
    # The events up to the reply's seq are this game's (other tests publish odd seqs on the topic: not `table.seq`).
    before = reply["seq"] - 5  # game_started, round_started, turn: the new game's events end at the reply's seq
    assert wait_until(lambda: any(before < e["seq"] <= reply["seq"] for e in table.events("round_started")), 10)
    started = next(e for e in table.events("round_started") if before < e["seq"] <= reply["seq"])
    assert "rigged" not in started
    # Commit-then-reveal without a tap: the phone commits at once, reveals after the table's window.
    assert wait_until(
        lambda: any(e["commitment"] == started["commitment"] for e in table.events("ejection_entropy_revealed")), 10
    ), "the phone revealed none"
    committed = next(e for e in table.events("ejection_entropy_commit") if e["commitment"] == started["commitment"])
    assert table.command({"type": "press"})["ok"]  # ann hits the (virtual) launcher: the window is sealed
    assert wait_until(
        lambda: any(
            e["commitment"] == started["commitment"] and e.get("hash") == committed["hash"]
            for e in table.events("ejection_entropy")
        ),
        10,
    ), "the phone's entropy: not in the mix"
    assert wait_until(lambda: any(e["seq"] > reply["seq"] for e in table.events("hit")), 10)
    assert table.command({"type": "play", "player": "bob", "card": "red 7"})["ok"]  # bob goes out
    assert table.command({"type": "score", "hands": {"ann": 20, "cy": 30}})["ok"]

    def ended_now() -> list[dict[str, Any]]:
        return [e for e in table.events("round_ended") if e.get("commitment") == started["commitment"]]

    assert wait_until(ended_now, 10)
    ended = ended_now()[0]
    page.click("[data-tab=scores]")
    mark = page.locator(f'.fairness-round[data-commitment="{started["commitment"]}"]')
    expect(mark).to_have_attribute("data-status", "verified", timeout=10_000)
    expect(mark).to_contain_text("verified on this phone (1 press)")
    expect(mark.locator(".fairness-secret")).to_have_text(ended["secret"])
    expect(mark.locator(".fairness-own")).to_have_attribute("data-status", "in the mix")
    phones.shot(page, "fairness")


def test_the_phone_marks_a_round_with_a_manual_hit_and_withheld_entropy(
    phones: PhoneFactory, dashboard_url: str
) -> None:
    """docs/fairness.md: a hit settled by a sent count shows as "manual", a withheld contribution is named."""
    page = phones.open(dashboard_url)
    wait_for_catalogue(page)  # the presets come from the daemon: before they are in, a round is "incomplete"
    rounds = played_rounds("classic")
    assert [r["status"] for r in page.evaluate(CHECK, rounds)] == ["verified", "verified"]
    rounds[0]["manual"] = 1
    rounds[1]["withheld"] = ["phone-x"]
    results = page.evaluate(CHECK, rounds)
    assert results[0]["status"] == "manual" and "settled manually" in results[0]["detail"], results
    assert results[1]["status"] == "verified" and "entropy withheld by phone-x" in results[1]["detail"], results


def test_the_phone_checks_an_undone_press_fired_again_with_its_plan(phones: PhoneFactory, dashboard_url: str) -> None:
    """Issue #25 item 3: an undone press's plan is carried (``ejection_carry``) and fired again (``retry``); the
    phone accepts exactly that plan again and nothing else."""
    ref = Referee()
    log: list[dict[str, Any]] = []

    def apply(command: dict[str, Any]) -> list[dict[str, Any]]:
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", events
        log.extend({**e, "seq": len(log) + i + 1} for i, e in enumerate(events))
        return events

    apply({"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table", "secret": secret(7),
           "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 7, "cy": 7}}})  # fmt: skip
    for _ in range(3):
        player = ref.hitter()
        apply({"type": "pressed", "player": player})
        apply({"type": "hit", "player": player, "cards": 0})
    apply({"type": "undo"})
    retry = apply({"type": "pressed", "player": ref.hitter()})[-1]
    assert retry.get("retry") is True
    apply({"type": "new_game", "ruleset": "attack", "players": PLAYERS, "secret": secret(8)})  # the reveal
    key = log[1]["commitment"]
    ops = [e for e in log if e.get("commitment") == key and e["type"] in ("press", "ejection_carry")]
    ops = json.loads(json.dumps(ops))  # the events as a phone gets them: no dict shared between two of them
    reveal = next(e for e in log if e["type"] == "ejection_reveal")
    round_ = {"commitment": key, "preset": "classic", "custom": None, "rigged": False, "ops": ops,
              "secret": reveal["secret"], "presses": reveal["presses"]}  # fmt: skip
    result = page_check(phones, dashboard_url, [round_])[0]
    assert result["status"] == "verified" and "press 2 undone" in result["detail"], result
    next(op for op in ops if op.get("retry"))["plan"]["cards"] += 1  # a different outcome the second time
    assert page_check(phones, dashboard_url, [round_])[0]["status"] == "mismatch"


def page_check(phones: PhoneFactory, url: str, rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    page = phones.open(url)
    wait_for_catalogue(page)  # the presets come from the daemon
    results: list[dict[str, Any]] = page.evaluate(CHECK, rounds)
    return results
