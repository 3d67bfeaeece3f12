"""The scripted four-player table-mode games the language, one-screen and speech tests play, and the one way they send
their commands.

    run(table, four_players("attack", ann=2))  # dee deals, ann plays first holding two cards; the others hold seven

Each rule set's game is fixed (seed, starter) so that the scripts that follow it (which cards are in which hand) hold.
"""

from __future__ import annotations

from typing import Any

from .conftest import TableHandle

PLAYERS = ["ann", "bob", "cy", "dee"]

# The seed and starter each script was written against: UNO Attack turns a plain red 5; Mario Kart turns an Item Box
# so that the first question (the start colour) is asked at once.
OPENINGS: dict[str, tuple[int, str]] = {"attack": (5, "red 5"), "mario-kart": (3, "wild item-box")}


def four_players(ruleset: str, **hands: int) -> dict[str, Any]:
    """The ``new_game`` command of ``ruleset``'s scripted game: table mode, dee deals, seven cards each unless
    ``hands`` says otherwise for a player."""
    seed, starter = OPENINGS[ruleset]
    dealt = {player: hands.pop(player, 7) for player in PLAYERS}
    assert not hands, f"not a player of the scripted game: {sorted(hands)}"
    return {
        "type": "new_game",
        "ruleset": ruleset,
        "mode": "table",
        "players": PLAYERS,
        "seed": seed,
        "deal": {"dealer": "dee", "starter": starter, "hands": dealt},
    }


def run(table: TableHandle, command: dict[str, Any]) -> dict[str, Any]:
    """Send ``command`` as the table's own client and require the table to take it; the reply (its ``seq`` is that of
    the command's last event)."""
    reply = table.command(command)
    assert reply["ok"], (command, reply)
    return reply
