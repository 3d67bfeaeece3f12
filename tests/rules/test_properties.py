"""Property tests (hypothesis) over random command sequences: bot moves mixed with arbitrary, often bad, input.

Invariants: nothing raises; every refusal leaves the state unchanged; cards are conserved in full mode; scores
only grow (undo aside); replaying the accepted commands reproduces the state; undo restores the previous game
exactly (never the launcher's record: a press stays pressed, docs/ejection.md) and re-applying the command as it was
taken back gives the same game.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unolauncher.rules.bots import Bot
from unolauncher.rules.cards import DECKS
from unolauncher.rules.referee import COMMAND_TYPES, LAUNCHER_COMMANDS, Referee

NAMES = ["ann", "bob", "cy", "dee"]
ALL_CARDS = sorted({c for deck in DECKS.values() for c in deck})
# RULES_EXAMPLES=2000 for a deeper search than the default CI budget.
SETTINGS = settings(
    max_examples=int(os.environ.get("RULES_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
names = st.sampled_from([*NAMES, "zed", ""]) | json_values
cards = st.sampled_from([*ALL_CARDS, "red 99", "wild nothing"]) | json_values
messy_commands = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from([*COMMAND_TYPES, "fly"])},
        optional={
            "player": names,
            "card": cards,
            "color": st.sampled_from(["red", "yellow", "green", "blue", "pink"]) | json_values,
            "target": names,
            "cards": st.integers(-2, 8) | json_values,
            "hands": st.dictionaries(names.filter(lambda n: isinstance(n, str)), st.integers(-5, 200), max_size=4)
            | json_values,
            "guilty": st.booleans() | json_values,
        },
    ),
)
# A step: ("bot", None) plays a legal move, ("cmd", x) sends x, ("undo", None) takes back the last command.
steps = st.lists(
    st.one_of(
        st.tuples(st.just("bot"), st.integers(1, 40)),
        st.tuples(st.just("cmd"), messy_commands),
        st.tuples(st.just("undo"), st.none()),
        st.tuples(
            st.just("mutant"),
            st.tuples(
                st.sampled_from(["player", "card", "color", "target", "cards", "type"]), json_values | names | cards
            ),
        ),
    ),
    min_size=1,
    max_size=40,
)
games = st.tuples(
    st.sampled_from(sorted(DECKS)),
    st.integers(2, 4),
    st.integers(0, 2**32),
    st.sampled_from(["full", "full", "table"]),
)


def new_game(ruleset: str, players: int, seed: int, mode: str) -> dict[str, Any]:
    return {
        "type": "new_game",
        "ruleset": ruleset,
        "players": NAMES[:players],
        "seed": seed,
        "mode": mode,
        "options": {"target_score": 60},
    }


def conserved(ref: Referee) -> bool:
    s = ref.state
    if s.mode != "full" or not s.ruleset:
        return True
    return sum(len(h) for h in s.hands) + len(s.stock) + len(s.discard) == len(DECKS[s.ruleset])


# What the launcher's record adds to a command's events: never rewound by undo, so left out when comparing games.
LAUNCHER_EVENTS = {
    "press",
    "ejection_commit",
    "ejection_reveal",
    "ejection_entropy",
    "ejection_lid",
    "ejection_carry",
    "ejection_entropy_withheld",
}
LAUNCHER_FIELDS = {"commitment", "secret", "presses", "preset", "custom", "rigged"}


def game_part(data: dict[str, Any]) -> dict[str, Any]:
    """The game without the launcher's record — which includes the note a hit in the undo history keeps of the press
    it settled (``launcher_press``: an undo carries that press's plan, docs/fairness.md)."""
    game = {key: value for key, value in data.items() if key != "stream"}
    if isinstance(game.get("history"), list):
        game["history"] = [{k: v for k, v in c.items() if k != "launcher_press"} for c in game["history"]]
    return game


def game_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in e.items() if k not in LAUNCHER_FIELDS} for e in events if e["type"] not in LAUNCHER_EVENTS
    ]


def check_one(ref: Referee, command: Any, journal: list[Any]) -> None:
    """Apply one command and check every invariant around it."""
    before = ref.to_json()
    scores_before = dict(ref.public_state()["scores"])
    events = ref.handle(command)
    assert isinstance(events, list) and events
    json.dumps(events)  # JSON-serialisable, always
    if events[0]["type"] == "rejected":
        assert len(events) == 1 and events[0]["code"] != "internal_error", events
        assert ref.to_json() == before
        return
    journal.append(command)
    assert conserved(ref)
    json.dumps(ref.public_state())
    if command.get("type") in LAUNCHER_COMMANDS:  # the launcher's record only: the game is untouched
        assert game_part(ref.to_json()) == game_part(before)
        return
    if command.get("type") not in ("undo", "new_game"):
        scores_after = ref.public_state()["scores"]
        assert all(scores_after[p] >= scores_before.get(p, 0) for p in scores_after)
        # Undo restores the game exactly; the command as it was taken back (a hit with the cards that came out)
        # gives the same game again. On a copy: the launcher's record moves on with every undo.
        after = ref.to_json()
        copy = Referee.from_json(after)
        undone = copy.handle({"type": "undo"})
        assert undone[0]["type"] == "undone"
        assert game_part(copy.to_json()) == game_part(before)
        assert game_events(copy.handle(undone[0]["command"])) == game_events(events)
        assert game_part(copy.to_json()) == game_part(after)


@SETTINGS
@given(games, steps, st.integers(0, 1000))
def test_random_sequences_keep_every_invariant(game: tuple[str, int, int, str], plan: list[Any], bot_seed: int) -> None:
    ref = Referee()
    journal: list[Any] = []
    start = new_game(*game)
    assert ref.handle(start)[0]["type"] == "game_started"
    journal.append(start)
    bot = Bot("random", seed=bot_seed)
    for kind, payload in plan:
        if kind == "bot":  # a run of legal bot moves moves the game on (rounds end, pending choices, reloads)
            if game[3] == "table":
                continue
            for _ in range(payload):
                command = bot.next_command(ref)
                if command is None:
                    break
                check_one(ref, command, journal)
                catch = bot.catch(ref)
                if catch is not None:
                    check_one(ref, catch, journal)
            continue
        if kind == "mutant":  # a legal move with one field replaced: near-misses find the subtle bugs
            if game[3] == "table":
                continue
            command = bot.next_command(ref)
            if command is None:
                continue
            command = {**command, payload[0]: payload[1]}
        elif kind == "undo":
            command = {"type": "undo"}
        else:
            command = payload
        check_one(ref, command, journal)
    replayed = Referee()
    for command in journal:
        replayed.handle(command)
    assert replayed.to_json() == ref.to_json()


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(sorted(DECKS)), st.integers(2, 6), st.integers(0, 2**32))
def test_whole_bot_games_conserve_cards_and_end_with_a_winner(ruleset: str, players: int, seed: int) -> None:
    ref = Referee()
    ref.handle(new_game(ruleset, players, seed, "full"))
    bot = Bot("random", seed=seed)
    for _ in range(20_000):
        command = bot.next_command(ref)
        if command is None:
            break
        assert ref.handle(command)[0]["type"] != "rejected"
        assert conserved(ref)
        catch = bot.catch(ref)
        if catch is not None:
            assert ref.handle(catch)[0]["type"] == "caught"
    state = ref.public_state()
    assert state["winner"] is not None and state["scores"][state["winner"]] >= 60


@settings(max_examples=200, deadline=None)
@given(messy_commands)
def test_nothing_raises_on_arbitrary_input_without_a_game(command: Any) -> None:
    ref = Referee()
    before = ref.to_json()
    events = ref.handle(command)
    assert isinstance(events, list) and len(events) >= 1
    if events[0]["type"] == "rejected":
        assert ref.to_json() == before
