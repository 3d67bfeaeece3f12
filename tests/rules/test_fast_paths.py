"""The referee's fast paths (plain cards, quick-checked action cards and Wilds, shuffling and dealing) must do exactly
what the general path does: same events, same state, same random draws."""

from __future__ import annotations

import random
from typing import Any

import pytest

from unolauncher.rules.bots import Bot
from unolauncher.rules.cards import DECKS
from unolauncher.rules.referee import Referee
from unolauncher.rules.stock import shuffled_deck


def textbook_shuffle(rng: random.Random, cards: list[str]) -> list[str]:
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("size", [0, 1, 2, 3, 50, 108, 112, 256, 300])
def test_shuffle_makes_the_textbook_fisher_yates_draws(size: int) -> None:
    cards = (list(DECKS["attack"]) * 3)[:size]  # beyond 256 cards the shuffle makes its factors on the spot
    for seed in range(20):
        ours, book = random.Random(seed), random.Random(seed)
        assert shuffled_deck(ours, cards) == textbook_shuffle(book, cards)
        assert ours.random() == book.random()  # the same number of draws


def general_only(ref: Referee) -> None:
    """Empty the fast-path table, so every play takes the general path (``_play``)."""
    ref._quick = {}


@pytest.mark.parametrize(
    ("ruleset", "players", "seed"),
    [("classic", 2, 1), ("classic", 4, 2), ("mario-kart", 3, 3), ("attack", 3, 4), ("attack-original", 4, 5)],
)
def test_fast_paths_match_the_general_path_command_by_command(ruleset: str, players: int, seed: int) -> None:
    names = [f"p{i}" for i in range(players)]
    start: dict[str, Any] = {"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed}
    start["options"] = {"target_score": 200}
    fast, slow = Referee(), Referee()
    assert fast.handle(start) == slow.handle(start)
    general_only(slow)
    bot = Bot("random", seed=seed, uno_rate=0.5)
    for _ in range(20_000):
        command = bot.next_command(fast)
        if command is None:
            break
        assert fast.handle(command) == slow.handle(command), command
        assert fast.state.to_json() == slow.state.to_json(), command
    assert fast.public_state()["winner"] is not None


def near_misses(command: dict[str, Any], other: str) -> list[dict[str, Any]]:
    """``command`` (a bot's legal move) and commands one field away from it, most just outside the fast paths' exact
    shape: each must get from the fast paths exactly what the schema and the general path give it."""
    name = command["player"]
    without_color = {key: value for key, value in command.items() if key != "color"}
    return [
        {**command, "x": 1},  # an unknown field: unknown_field
        {**command, "id": [7]},  # an unusable id: bad_field
        {**command, "player": "n" * 41},  # too long for a name: bad_field
        {**command, "player": name + "?"},  # nobody by that name
        {**command, "player": None},
        {**command, "card": ["red 1"]},  # unhashable
        {**command, "card": "x" * 25},  # too long for a card
        {**command, "color": "pink"},
        {**command, "color": 5},
        without_color,  # a Wild without its colour
        {**command, "id": 7},  # an MQTT id: accepted, though not the fast shape
        {**command, "target": other},  # a field the card ignores: accepted
        command,
    ]


@pytest.mark.parametrize(("ruleset", "players", "seed"), [("classic", 2, 6), ("classic", 4, 7), ("mario-kart", 3, 8)])
def test_fast_paths_take_what_the_schema_and_the_general_path_take(ruleset: str, players: int, seed: int) -> None:
    """Referee.handle tries the play and draw fast paths before the schema check: whatever they accept, the schema
    and the general path must accept with the same events; whatever else, they must leave to them."""
    names = [f"p{i}" for i in range(players)]
    start: dict[str, Any] = {"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed}
    fast, slow = Referee(), Referee()
    assert fast.handle(start) == slow.handle(start)
    general_only(slow)
    bot = Bot("random", seed=seed, uno_rate=0.0)
    for _ in range(400):
        command = bot.next_command(fast)
        if command is None:
            break
        tries = near_misses(command, names[0]) if command["type"] in ("play", "draw") else [command]
        for attempt in tries:
            assert fast.handle(attempt) == slow.handle(attempt), attempt
            assert fast.state.to_json() == slow.state.to_json(), attempt
    assert fast.to_json() == slow.to_json()  # the undo history too


def test_a_name_longer_than_the_schema_allows_is_refused_on_the_fast_path_too() -> None:
    """A state restored from elsewhere may hold a name the schema would refuse in a command: the fast path must not
    let the command through."""
    ref = Referee()
    ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 4})
    data = ref.to_json()
    long_name = "n" * 41
    current = data["state"]["current"]
    data["state"]["players"][current] = long_name
    ref = Referee.from_json(data)
    moves = ref.legal_moves(long_name)  # this seed: a number, an action card, a Wild (in four colours), draw
    assert {move["type"] for move in moves} == {"play", "draw"}
    for move in moves:
        assert ref.handle(move)[0]["code"] == "bad_field", move
