"""``Referee.legal_moves`` agrees with ``Referee.handle`` both ways, in states that bot games reach.

At every step of a bot-driven game (every rule set, ``full`` mode; UNO calls and catches mixed in), for every player:
each listed move is accepted by a copy of the referee, and each move of a wider candidate set (every card held, with
and without a colour or a target, every non-play command) that is *not* listed is refused. ``table`` mode games are
driven by the listed moves themselves (the referee does not know the hands there, so no play is listed).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from unolauncher.rules.bots import Bot
from unolauncher.rules.cards import CARD_INFO, COLORS, PLAYABLE_ON, RULESETS, matches
from unolauncher.rules.referee import Referee

Move = dict[str, Any]


def copy_of(ref: Referee) -> Referee:
    return Referee.from_json(ref.to_json())


def accepted(ref: Referee, move: Move) -> bool:
    events = copy_of(ref).handle(move)
    return not (events and events[0]["type"] == "rejected")


def takes_target(ref: Referee, card: str) -> bool:
    """Attack-Attack and Trade Hands (ATK-10, ATK-13), a Customizable set to act as one of them, and a 7 under the
    seven_zero house rule (HR-70)."""
    if ref.state.options.get("seven_zero") and CARD_INFO[card][1] == "7":
        return True
    custom = ref.state.options["customizable"]
    if card == "wild customizable":
        return custom is not None and custom["action"] in ("attack", "trade-hands")
    return card == "wild attack-attack" or card.endswith("trade-hands")


def candidates(ref: Referee, player: str, rng: random.Random) -> list[Move]:
    """Moves in the shape ``legal_moves`` lists them, legal or not: in full mode every card the player holds (plus
    one they may not), a Wild with a random colour and without one, a targeted card aimed at anyone (themselves too) or
    nobody, and every other player command with each possible argument."""
    s = ref.state
    players = s.players
    held = ref.hand(player)
    moves: list[Move] = []
    # No play candidates in table mode: the referee takes any card of the deck there, and lists none.
    for card in sorted({*held, rng.choice(sorted(CARD_INFO))} if held is not None else ()):
        base: Move = {"type": "play", "player": player, "card": card}
        variants = [dict(base)]
        if CARD_INFO[card][0] is None and card != "wild item-box":
            variants.append({**base, "color": rng.choice(COLORS)})
        if takes_target(ref, card):  # other cards ignore a target (the schema allows one), so leave it out
            variants += [{**variant, "target": rng.choice(players)} for variant in variants]
        moves.extend(variants)
    for kind in ("hit", "draw", "pass", "uno", "accept", "challenge"):
        moves.append({"type": kind, "player": player})
    if s.mode == "table":  # the table reports a challenge's outcome; in full mode the referee knows it
        moves += [{"type": "challenge", "player": player, "guilty": guilty} for guilty in (True, False)]
    moves += [{"type": "choose", "player": player, "color": color} for color in COLORS]
    moves += [{"type": "choose", "player": player, "target": other} for other in players]
    moves += [{"type": "catch", "player": player, "target": other} for other in players]
    return moves


def check_both_ways(ref: Referee, rng: random.Random, sample: int) -> int:
    """Check every listed move of every player, and ``sample`` unlisted candidates per player; returns how many
    listed moves there were."""
    listed_total = 0
    for player in ref.state.players:
        listed = ref.legal_moves(player)
        listed_total += len(listed)
        for move in listed:
            assert accepted(ref, move), (move, ref.public_state())
        unlisted = [move for move in candidates(ref, player, rng) if move not in listed]
        for move in rng.sample(unlisted, min(sample, len(unlisted))):
            assert not accepted(ref, move), (move, ref.public_state())
    return listed_total


@pytest.mark.parametrize(
    ("ruleset", "players", "seed"),
    [
        ("classic", 2, 1),
        ("classic", 4, 2),
        ("mario-kart", 3, 3),
        ("mario-kart", 2, 4),
        ("attack", 3, 5),
        ("attack", 2, 6),
        ("attack-original", 4, 7),
    ],
)
def test_listed_moves_are_accepted_and_unlisted_ones_refused(ruleset: str, players: int, seed: int) -> None:
    names = [f"p{i}" for i in range(players)]
    ref = Referee()
    options: dict[str, Any] = {"target_score": 150}
    if ruleset == "attack":
        options["customizable"] = {"action": ["attack", "trade-hands", "hit"][seed % 3], "count": 2}
    ref.handle({"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed, "options": options})
    bot = Bot("random", seed=seed, uno_rate=0.5)
    rng = random.Random(seed)
    seen: set[str] = set()
    steps = 0
    while steps < 400:
        if ref.state.phase == "playing":
            check_both_ways(ref, rng, sample=6)
            seen.update(m["type"] for p in names for m in ref.legal_moves(p))
        command = bot.next_command(ref)
        if command is None:
            break
        events = ref.handle(command)
        assert events[0]["type"] != "rejected", events
        caught = bot.catch(ref)
        if caught is not None:
            ref.handle(caught)
        steps += 1
    # The games reached the interesting states: plays, the family's way to take cards, and UNO calls.
    assert {"play", "uno"} <= seen
    assert ("hit" if ruleset.startswith("attack") else "draw") in seen


def test_the_bot_plays_only_listed_moves() -> None:
    """The bots and legal_moves share the matching rule: every card a bot plays is among the listed plays."""
    for ruleset in ("classic", "mario-kart", "attack", "attack-original"):
        ref = Referee()
        ref.handle({"type": "new_game", "ruleset": ruleset, "players": ["a", "b", "c"], "seed": 11})
        bot = Bot("greedy", seed=11)
        for _ in range(600):
            command = bot.next_command(ref)
            if command is None:
                break
            if command["type"] == "play":
                cards = {m["card"] for m in ref.legal_moves(command["player"]) if m["type"] == "play"}
                assert command["card"] in cards
            ref.handle(command)


@pytest.mark.parametrize("ruleset", ["attack", "mario-kart"])
def test_table_mode_moves_are_accepted(ruleset: str) -> None:
    ref = Referee()
    deal = {"dealer": "cy", "starter": "red 5"}
    ref.handle({"type": "new_game", "ruleset": ruleset, "players": ["ann", "bob", "cy"], "mode": "table", "deal": deal})
    rng = random.Random(3)
    kinds: set[str] = set()
    for _ in range(120):
        assert ref.state.phase == "playing"
        check_both_ways(ref, rng, sample=4)
        moves = [m for p in ref.state.players for m in ref.legal_moves(p)]
        assert moves and not any(m["type"] == "play" for m in moves)
        move = rng.choice(moves)
        kinds.add(move["type"])
        assert ref.handle(move)[0]["type"] != "rejected"
    assert ("hit" if ruleset == "attack" else "draw") in kinds


def test_nobody_has_moves_outside_a_round() -> None:
    ref = Referee()
    assert ref.legal_moves("ann") == []
    ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 1})
    assert ref.legal_moves("zed") == []


def with_hand(ref: Referee, cards: list[str], top: str) -> Referee:
    """A copy of ``ref`` where the current player holds ``cards``, ``top`` (a coloured card) is on the pile, and
    nobody owes hits (a Hit 2 starter would leave some)."""
    data = ref.to_json()
    state = data["state"]
    state["owed"] = []
    state["hands"][state["current"]] = list(cards)
    state["discard"].append(top)
    state["color"] = CARD_INFO[top][0]
    return Referee.from_json(data)


def test_trade_hands_is_never_listed_as_the_last_card() -> None:  # ATK-10
    ref = Referee()
    ref.handle({"type": "new_game", "ruleset": "attack-original", "players": ["ann", "bob", "cy"], "seed": 2})
    player = ref.public_state()["current"]
    last = with_hand(ref, ["red trade-hands"], "red 4")
    assert [m["type"] for m in last.legal_moves(player)] == ["hit", "uno"]  # one card left, UNO not called
    assert not accepted(last, {"type": "play", "player": player, "card": "red trade-hands", "target": "bob"})
    two = with_hand(ref, ["red trade-hands", "blue 1"], "red 4")
    plays = [m for m in two.legal_moves(player) if m["type"] == "play"]
    assert plays == [
        {"type": "play", "player": player, "card": "red trade-hands", "target": other}
        for other in ("ann", "bob", "cy")
        if other != player
    ]
    assert all(accepted(two, move) for move in plays)


def test_a_customizable_acting_as_trade_hands_is_not_the_last_card_either() -> None:  # ATK-10, ATK-16
    """The bots ask the referee which cards may be played: the rule they once wrote themselves missed this case,
    and a bot holding only such a Wild played it and was refused."""
    ref = Referee()
    options = {"customizable": {"action": "trade-hands"}}
    ref.handle({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"], "seed": 1, "options": options})
    player = ref.public_state()["current"]
    last = with_hand(ref, ["wild customizable"], "red 4")
    assert last.playable(player) == [] and [m["type"] for m in last.legal_moves(player)] == ["hit", "uno"]
    for strategy in ("random", "greedy"):
        assert Bot(strategy, seed=1).next_command(last) == {"type": "hit", "player": player}
    more = with_hand(ref, ["wild customizable", "blue 1", "blue 2"], "red 4")
    assert more.playable(player) == ["wild customizable"]
    command = Bot("greedy", seed=1).next_command(more)
    assert command is not None and command["card"] == "wild customizable" and "target" in command
    assert accepted(more, command)


def test_table_mode_playable_cards_are_the_matching_cards_of_the_deck() -> None:
    """In table mode the referee cannot list plays (it does not see the hands), but it can say which cards of the
    deck it would take: the ones a dashboard's card picker offers."""
    ref = Referee()
    deal = {"dealer": "cy", "starter": "red 5"}
    ref.handle(
        {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob", "cy"], "mode": "table", "deal": deal}
    )
    cards = ref.playable("ann")
    assert cards == sorted(card for card in RULESETS["attack"].counts if matches(card, "red", "red 5"))
    assert ref.playable("bob") == []  # not bob's turn
    for card in ("red 9", "blue 5", "wild hit-4"):
        assert card in cards
    assert "blue 3" not in cards and not accepted(ref, {"type": "play", "player": "ann", "card": "blue 3"})
    assert accepted(ref, {"type": "play", "player": "ann", "card": "blue 5"})


def test_the_matching_table_is_the_matching_rule() -> None:
    for color in (*COLORS, None):
        for top in CARD_INFO:
            assert PLAYABLE_ON[color][top] == {card for card in CARD_INFO if matches(card, color, top)}


def test_equal_sets_of_the_matching_table_are_one_object() -> None:
    # Memory, not behaviour: the daemon keeps this table for its whole life (docs/performance.md, "Daemon RSS").
    sets = [cards for by_top in PLAYABLE_ON.values() for cards in by_top.values()]
    assert len({id(cards) for cards in sets}) == len(set(sets))
