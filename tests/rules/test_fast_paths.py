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


@pytest.mark.parametrize("size", [0, 1, 2, 3, 50, 108, 112])
def test_shuffle_makes_the_textbook_fisher_yates_draws(size: int) -> None:
    cards = list(DECKS["attack"])[:size]
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
