"""Table mode mirrors full mode: a bot game in full mode, retold to a table-mode referee the way a real table
reports it (hit counts, turned Item Box cards, Discard All cards, challenge outcomes, hand points, reloads), must
give the same public state after every command (hand counts, turn, owed hits, scores, ...)."""

from __future__ import annotations

from typing import Any

import pytest

from unolauncher.rules.bots import Bot
from unolauncher.rules.referee import Referee


def table_deal(events: list[dict[str, Any]]) -> dict[str, Any]:
    started = next(e for e in events if e["type"] == "round_started")
    return {"dealer": started["dealer"], "starter": started["starter"], "hands": started["hands"]}


def retell(command: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The table-mode command a real table would send for what happened in full mode."""
    told = dict(command)
    kind = command["type"]
    if kind == "hit":
        told["cards"] = events[0]["cards"]
    elif kind == "play":
        played = events[0]
        if "discarded" in played:
            told["discarded"] = played["discarded"]
        item = next((e for e in events if e["type"] == "item"), None)
        if item is not None:
            told["turned"] = item["card"]
    elif kind == "challenge":
        told["guilty"] = events[0]["guilty"]
    elif kind == "next_round":
        told["deal"] = table_deal(events)
    return told


@pytest.mark.parametrize(
    ("ruleset", "players", "seed"),
    [("attack", 3, 1), ("attack-original", 4, 2), ("mario-kart", 3, 3), ("classic", 2, 4), ("mario-kart", 5, 5)],
)
def test_table_mode_follows_full_mode_command_by_command(ruleset: str, players: int, seed: int) -> None:
    names = [f"p{i}" for i in range(players)]
    options = {"target_score": 150}
    full, table = Referee(), Referee()
    start = {"type": "new_game", "ruleset": ruleset, "players": names, "seed": seed, "options": options}
    events = full.handle(start)
    table_start = {**start, "mode": "table", "deal": table_deal(events)}
    assert table.handle(table_start)[0]["type"] == "game_started"
    bot = Bot("random", seed=seed, uno_rate=0.7, renege_rate=0.1)

    def mirror(cmd: dict[str, Any]) -> None:
        events = full.handle(cmd)
        assert events[0]["type"] != "rejected", events
        table_events = table.handle(retell(cmd, events))
        assert table_events[0]["type"] != "rejected", (cmd, table_events)
        if cmd["type"] == "draw" and events[-1]["type"] == "turn":
            # Full mode saw the drawn card was unplayable and ended the turn; at a real table the player says so.
            assert table.handle({"type": "pass", "player": cmd["player"]})[0]["type"] == "passed"
        if any(e["type"] == "reloaded" for e in events):
            assert any(e["type"] == "reload_request" for e in table_events)
            assert table.handle({"type": "reload"})[0]["type"] == "reloaded"
        ended = next((e for e in events if e["type"] == "round_ended"), None)
        if ended is not None:
            assert table.public_state()["phase"] == "scoring"
            score = {"type": "score", "hands": {p: v for p, v in ended["hands"].items() if p != ended["winner"]}}
            assert table.handle(score)[0]["type"] == "round_ended"
        a, b = full.public_state(), table.public_state()
        assert {k: v for k, v in a.items() if k != "mode"} == {k: v for k, v in b.items() if k != "mode"}

    for _ in range(20_000):
        command = bot.next_command(full)
        if command is None:
            break
        mirror(command)
        catch = bot.catch(full)
        if catch is not None:
            mirror(catch)
    assert full.public_state()["winner"] is not None and full.public_state()["winner"] == table.public_state()["winner"]


def test_table_item_box_turned_from_an_empty_stock_reshuffles_first() -> None:
    # MK-07 + MK-18: with the stock empty, the turned card can only come from the reshuffled discard pile, as in
    # full mode (found by the mirror test above: table mode used to keep its stock at 0 here).
    ref = Referee()
    hands = {"ann": 37, "bob": 37, "cy": 37}  # 111 of the 112 cards: nothing left in the stock
    start = {"type": "new_game", "ruleset": "mario-kart", "players": ["ann", "bob", "cy"], "mode": "table"}
    assert ref.handle({**start, "deal": {"dealer": "cy", "starter": "red 5", "hands": hands}})[0]["type"] == (
        "game_started"
    )
    assert ref.public_state()["stock"] == 0
    events = ref.handle({"type": "play", "player": "ann", "card": "wild item-box", "turned": "yellow 2"})
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["played", "reshuffled", "item"], events
    assert events[1]["cards"] == 1  # the red 5 under the Item Box
    assert ref.public_state()["stock"] == 0 and ref.public_state()["top"] == "yellow 2"
