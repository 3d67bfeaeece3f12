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


def table_game(
    players: list[str],
    ruleset: str = "attack",
    *,
    dealer: str,
    starter: str = "red 5",
    seed: int = 5,
    hands: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A table-mode ``new_game``: the family holds real cards, the table is told the dealer and the starter (and, with
    ``hands``, how many cards each holds, so that someone can go out at once).

    >>> table_game(["ann", "bob"], dealer="bob")["deal"]
    {'dealer': 'bob', 'starter': 'red 5'}
    """
    deal: dict[str, Any] = {"dealer": dealer, "starter": starter}
    if hands is not None:
        deal["hands"] = hands
    return {"type": "new_game", "ruleset": ruleset, "mode": "table", "players": players, "seed": seed, "deal": deal}


def four_players(ruleset: str, **hands: int) -> dict[str, Any]:
    """The ``new_game`` command of ``ruleset``'s scripted game: table mode, dee deals, seven cards each unless
    ``hands`` says otherwise for a player."""
    seed, starter = OPENINGS[ruleset]
    dealt = {player: hands.pop(player, 7) for player in PLAYERS}
    assert not hands, f"not a player of the scripted game: {sorted(hands)}"
    return table_game(PLAYERS, ruleset, dealer="dee", starter=starter, seed=seed, hands=dealt)


def run(table: TableHandle, command: dict[str, Any]) -> dict[str, Any]:
    """Send ``command`` as the table's own client and require the table to take it; the reply (its ``seq`` is that of
    the command's last event)."""
    reply = table.command(command)
    assert reply["ok"], (command, reply)
    return reply
