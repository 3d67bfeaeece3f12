"""The launcher's record in the referee (rules/ejection_stream.py): one commitment per round, revealed when the round
ends, is replaced or undone; never rewound by undo; entropy; secrets never published early (docs/ejection.md)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unolauncher.rules.bots import Bot
from unolauncher.rules.ejection import EjectionModel, FirePlan, commitment, mix_entropy, press_draw
from unolauncher.rules.ejection_audit import audit
from unolauncher.rules.referee import Referee

from .rigs import kinds, of, ok, refused

PLAYERS = ["ann", "bob", "cy"]
ENTROPY = "f00dfeed" * 4


def secret(n: int) -> str:
    return f"{n:064x}"


def table_game(ref: Referee, n: int = 1, **extra: Any) -> list[dict[str, Any]]:
    return ok(ref, {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table",
                    "deal": {"dealer": "cy", "starter": "red 5"}, "secret": secret(n), **extra})  # fmt: skip


def test_a_round_is_committed_before_its_presses_and_each_press_is_recorded() -> None:
    ref = Referee()
    started = of(table_game(ref), "round_started")[0]
    assert started["commitment"] == commitment(secret(1)) and ref.commitment() == started["commitment"]
    plan = ref.next_fire_plan("ann")
    events = ok(ref, {"type": "pressed", "player": "ann"})
    assert events == [{"type": "press", "player": "ann", "index": 0, "plan": plan.to_json() if plan else None,
                       "draw": press_draw(secret(1), 0, "ann"), "commitment": started["commitment"]}]  # fmt: skip
    want, _ = EjectionModel("classic").plan(EjectionModel("classic").start(secret(1)), "ann")
    assert plan == want  # the documented derivation, nothing else


def test_undo_never_rewinds_the_launcher_so_no_outcome_comes_round_twice() -> None:
    """An undone press is never drawn again (issue #25 item 3: no re-roll): its plan is carried to the player's next
    press (``ejection_carry``, then a ``press`` with ``retry``), and the record goes on from there."""
    ref = Referee()
    table_game(ref)
    first = ok(ref, {"type": "pressed", "player": "ann"})[0]
    ok(ref, {"type": "hit", "player": "ann", "cards": first["plan"]["cards"]})
    undone = ok(ref, {"type": "undo", "secret": secret(2)})  # inside the round: no new commitment
    assert (
        kinds(undone) == ["undone", "ejection_carry"]
        and undone[1]["index"] == 0
        and "launcher_press" not in (undone[0]["command"])
    )
    assert ref.next_fire_plan("ann") == FirePlan.from_json(first["plan"])
    again = ok(ref, {"type": "pressed", "player": "ann"})[0]
    assert again == {**first, "retry": True}  # the same plan, draw and number: not a fresh draw
    ok(ref, {"type": "hit", "player": "ann", "cards": 0})
    # Hits the model decided (no count) keep what came out, so an undo replays them without pressing again.
    decided = ok(ref, {"type": "hit"})
    assert of(decided, "press")[0]["index"] == 1
    undone = ok(ref, {"type": "undo"})
    assert undone[0]["command"] == {"type": "hit", "cards": decided[0]["cards"]} and kinds(undone)[1:] == [
        "ejection_carry"
    ]
    retried = of(ok(ref, {"type": "hit"}), "press")[0]
    assert retried["index"] == 1 and retried.get("retry") is True


def test_an_undo_back_into_a_revealed_round_commits_afresh() -> None:
    ref = Referee()
    table_game(ref)
    ok(ref, {"type": "play", "player": "ann", "card": "red 7"})
    ok(ref, {"type": "play", "player": "bob", "card": "red 8"})
    ref.state.table_counts[2] = 1  # cy is down to one card (table mode: the referee trusts the table)
    ended = of(ok(ref, {"type": "play", "player": "cy", "card": "red 9"}), "pending")
    assert ended and ref.public_state()["phase"] == "scoring"
    reveal = of(ok(ref, {"type": "score", "hands": {"ann": 10, "bob": 20}}), "round_ended")[0]
    assert reveal["secret"] == secret(1) and reveal["presses"] == 0
    events = ok(ref, {"type": "undo", "secret": secret(2)})  # back into the round whose secret is out
    assert kinds(events) == ["undone", "ejection_commit"]
    fresh = events[1]
    assert fresh["commitment"] == commitment(secret(2)) and fresh["reason"] == "undo" and fresh["round"] == 1
    assert secret(2) not in json.dumps(events)
    assert ok(ref, {"type": "pressed", "player": None})[0]["commitment"] == fresh["commitment"]
    # Undo past the round's start: its (fresh) secret comes out too.
    while ref.public_state()["phase"] != "idle":
        events = ok(ref, {"type": "undo", "secret": secret(9)})
    assert of(events, "ejection_reveal")[0] == {"type": "ejection_reveal", "reason": "undone",
                                                "commitment": fresh["commitment"], "secret": secret(2),
                                                "presses": 1}  # fmt: skip


def test_a_replaced_game_and_an_undone_next_round_reveal_their_secrets() -> None:
    ref = Referee()
    table_game(ref)
    ok(ref, {"type": "pressed", "player": "ann"})
    events = table_game(ref, 2)
    assert kinds(events)[:2] == ["ejection_reveal", "game_started"]  # before the new game: it belongs to the old
    assert events[0]["reason"] == "replaced" and events[0]["secret"] == secret(1) and events[0]["presses"] == 1
    ref2 = Referee()
    ok(ref2, {"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "secret": secret(1),
              "options": {"target_score": 1000}})  # fmt: skip
    bot = Bot("greedy", seed=1)
    while ref2.public_state()["phase"] != "between":
        command = bot.next_command(ref2)
        assert command is not None
        ok(ref2, command)
    started = of(ok(ref2, {"type": "next_round", "secret": secret(2)}), "round_started")[0]
    events = ok(ref2, {"type": "undo", "secret": secret(3)})
    assert kinds(events) == ["undone", "ejection_reveal"]
    assert events[0]["command"] == {"type": "next_round"}  # the echo never carries a secret
    assert events[1]["commitment"] == started["commitment"] and events[1]["secret"] == secret(2)


def test_entropy_rekeys_the_presses_after_it() -> None:
    ref = Referee()
    opened = of(table_game(ref), "round_started")[0]
    refused(ref, {"type": "entropy", "entropy": "short"}, "bad_field")
    events = ok(ref, {"type": "entropy", "entropy": ENTROPY})
    assert events == [{"type": "ejection_entropy", "commitment": opened["commitment"], "entropy": ENTROPY,
                       "press": 0}]  # fmt: skip
    model = EjectionModel("classic")
    keyed = model.start(mix_entropy(secret(1), ENTROPY))
    assert ref.next_fire_plan("ann") == model.plan(keyed, "ann")[0]
    refused(ref, {"type": "entropy", "entropy": ENTROPY, "commitment": "0" * 64}, "no_commitment")  # an old one
    ok(ref, {"type": "entropy", "entropy": ENTROPY, "commitment": opened["commitment"]})
    for _ in range(30):
        ok(ref, {"type": "entropy", "entropy": ENTROPY})
    refused(ref, {"type": "entropy", "entropy": ENTROPY}, "too_much_entropy")
    # Entropy is not in the undo history: undo takes back the new game, and its round's secret comes out.
    assert kinds(ok(ref, {"type": "undo"})) == ["undone", "ejection_reveal"]
    refused(Referee(), {"type": "entropy", "entropy": ENTROPY}, "no_commitment")
    refused(Referee(), {"type": "lid_opened"}, "no_commitment")


def test_free_play_between_rounds_is_committed_and_revealed_too() -> None:
    ref = Referee()
    events = ok(ref, {"type": "pressed", "player": None, "secret": secret(7)})  # no game, lockout off
    assert kinds(events) == ["ejection_commit", "press"] and events[0]["reason"] == "free"
    assert events[0]["commitment"] == commitment(secret(7)) and events[1]["player"] is None
    events = table_game(ref, 8)
    assert events[0] == {"type": "ejection_reveal", "reason": "free_play_ended", "commitment": commitment(secret(7)),
                         "secret": secret(7), "presses": 1}  # fmt: skip
    refused(ref, {"type": "pressed", "player": "zed"}, "unknown_player")
    refused(ref, {"type": "pressed", "player": None, "secret": "not hex"}, "bad_field")


def test_without_the_daemons_secret_a_game_is_rigged_throughout() -> None:
    ref = Referee()
    start = ok(ref, {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table", "seed": 4})
    opened = of(start, "round_started")[0]
    assert opened["rigged"] is True
    again = of(Referee().handle({"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table",
                                 "seed": 4}), "round_started")[0]  # fmt: skip
    assert again["commitment"] == opened["commitment"]  # same seed, same secret: anyone with the seed knows it
    scripted = of(table_game(Referee(), launcher={"script": [1, 2]}), "round_started")[0]
    assert scripted["rigged"] is True  # a script chooses counts too


def test_secrets_are_refused_when_malformed_and_never_echoed() -> None:
    ref = Referee()
    bad = {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "secret": "ABC"}
    rejected = refused(ref, bad, "bad_field")
    assert "secret" not in rejected["command"]
    table_game(ref)
    refused(ref, {"type": "undo", "secret": 12}, "bad_field")


def test_the_launcher_record_survives_serialisation_and_replays_exactly() -> None:
    ref = Referee()
    journal: list[dict[str, Any]] = []

    def apply(command: dict[str, Any]) -> None:
        ok(ref, command)
        journal.append(command)

    apply({"type": "new_game", "ruleset": "attack", "players": PLAYERS, "secret": secret(1), "seed": 3})
    apply({"type": "entropy", "entropy": ENTROPY})
    bot = Bot("random", seed=3)
    for step in range(60):
        command = bot.next_command(ref)
        assert command is not None
        if command["type"] == "hit" and step % 3:
            apply({"type": "pressed", "player": ref.hitter()})
            command = {**command, "cards": 1}
        if command["type"] == "next_round":
            command["secret"] = secret(step + 10)
        apply(command)
        if step % 11 == 5:
            apply({"type": "undo", "secret": secret(step + 100)})
        if step % 13 == 7:
            apply({"type": "lid_opened"})
    copy = Referee.from_json(json.loads(json.dumps(ref.to_json())))
    replayed = Referee()
    for command in journal:
        replayed.handle(command)
    assert copy.to_json() == ref.to_json() == replayed.to_json()
    assert copy.next_fire_plan("ann") == ref.next_fire_plan("ann")


# -- properties: random honest sessions ---------------------------------------------------------------------------

ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("bot"), st.integers(1, 30)),
        st.just(("press", None)),
        st.just(("undo", None)),
        st.just(("lid", None)),
        st.just(("entropy", None)),
        st.just(("new_game", None)),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["attack", "attack-original"]), st.sampled_from(["classic", "sequence", "brutal"]), ACTIONS,
       st.integers(0, 10_000))  # fmt: skip
def test_honest_sessions_publish_no_secret_early_and_audit_clean(
    ruleset: str, preset: str, actions: list[tuple[str, Any]], seed: int
) -> None:
    ref = Referee()
    drawn = iter(range(1, 10**6))
    published: list[dict[str, Any]] = []
    revealed: set[str] = set()

    def apply(command: dict[str, Any]) -> None:
        events = ref.handle(command)
        if events[0]["type"] == "rejected":
            return
        for event in events:
            published.append(event)
            if isinstance(event.get("secret"), str):
                revealed.add(event["secret"])
        text = json.dumps(events)
        # Every secret in an event is one being revealed now; the open one never shows.
        for found in re.findall(r"[0-9a-f]{64}", text):
            assert found not in secrets_given or found in revealed, f"secret {found} published before its reveal"

    secrets_given: set[str] = set()

    def with_secret(command: dict[str, Any]) -> dict[str, Any]:
        drawn_secret = secret(next(drawn) * 7919 + seed)
        secrets_given.add(drawn_secret)
        return {**command, "secret": drawn_secret}

    new_game = {"type": "new_game", "ruleset": ruleset, "players": PLAYERS, "seed": seed,
                "options": {"ejection_preset": preset, "target_score": 150}}  # fmt: skip
    apply(with_secret(new_game))
    bot = Bot("random", seed=seed)
    for action, count in actions:
        if action == "bot":
            for _ in range(count):
                command = bot.next_command(ref)
                if command is None:
                    break
                if command["type"] == "hit":  # as the daemon: the launcher's press, then its count
                    apply(with_secret({"type": "pressed", "player": ref.hitter()}))
                    command = {**command, "cards": published[-1]["plan"]["cards"]}
                apply(with_secret(command) if command["type"] == "next_round" else command)
        elif action == "press":
            apply(with_secret({"type": "pressed", "player": None}))
        elif action == "undo":
            apply(with_secret({"type": "undo"}))
        elif action == "lid":
            apply({"type": "lid_opened"})
        elif action == "entropy":
            apply({"type": "entropy", "entropy": f"{seed:032x}"})
        else:
            apply(with_secret(new_game))
    apply(with_secret(new_game))  # reveals whatever was open
    report = audit((f"event {i}", e) for i, e in enumerate(published))
    assert report.ok(), report.lines()
    assert not report.rigged and len(report.open) == 1
    tampered = [dict(e) for e in published]
    presses = [i for i, e in enumerate(tampered) if e["type"] == "press"]
    if presses:
        victim = tampered[presses[seed % len(presses)]]
        victim["player"] = "someone else" if victim["player"] != "someone else" else "ann"
        assert not audit((f"event {i}", e) for i, e in enumerate(tampered)).ok()


@pytest.mark.parametrize(
    "field, value",
    [("index", 99), ("plan", {"fire": False}), ("commitment", "0" * 64), ("player", "cy"), ("draw", "00" * 8)],
)
def test_the_audit_finds_any_changed_press_field(field: str, value: Any) -> None:
    ref = Referee()
    events = table_game(ref)
    for _ in range(6):
        player = ref.hitter()
        events += ok(ref, {"type": "pressed", "player": player})
        events += ok(ref, {"type": "hit", "player": player, "cards": 0})
    events += table_game(ref, 2)
    assert audit((str(i), e) for i, e in enumerate(events)).ok()
    press = next(e for e in events if e["type"] == "press")
    press[field] = value  # a plan without its fields never matches
    assert not audit((str(i), e) for i, e in enumerate(events)).ok()
