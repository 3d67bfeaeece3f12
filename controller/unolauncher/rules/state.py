"""The referee's complete game state: a flat, mutable record that serialises to JSON and back.

Kept deliberately cheap: players are seat indices, hands are lists of card strings (``full`` mode) or counts
(``table`` mode), the stock is a list whose *last* element is the top card (``pop()`` is O(1)). The referee
mutates one of these in place; undo rebuilds it from a snapshot plus the accepted commands (see ``referee.py``).

Example::

    >>> s = GameState()
    >>> GameState.from_json(s.to_json()).to_json() == s.to_json()
    True
"""

from __future__ import annotations

import random
from typing import Any

from unolauncher.rules.options import REGISTRY, defaults

# Phases of a game.
IDLE = "idle"  # no game yet
PLAYING = "playing"  # a round is being played
SCORING = "scoring"  # table mode: round over, waiting for the `score` command
BETWEEN = "between"  # round scored, waiting for `next_round`
OVER = "over"  # someone reached the target score

# Both made from the option registry (options.py), where an option is declared once.
DEFAULT_OPTIONS: dict[str, Any] = defaults()
# Options a game may carry but that are left out (not defaulted) when absent, so games without them keep their
# exact JSON (options.py says why a new option is one of these).
OPTIONAL_OPTIONS: tuple[str, ...] = tuple(option.name for option in REGISTRY if option.optional)


# The state's fields, in serialisation order (a module constant rather than ``GameState.__slots__`` so the module
# also compiles with mypyc, which has no class-level ``__slots__`` to read).
_FIELDS: tuple[str, ...] = (
    "before_last",
    "chain",
    "chain_skips",
    "color",
    "current",
    "dealer",
    "declared",
    "direction",
    "discard",
    "drawn",
    "drew",
    "ejection_seed",
    "hands",
    "house",
    "last_player",
    "mode",
    "options",
    "owed",
    "pending",
    "phase",
    "players",
    "reload_pending",
    "resume",
    "rigged",
    "rng",
    "round",
    "round_winner",
    "ruleset",
    "scores",
    "stock",
    "table_counts",
    "table_stock",
    "uno_exposed",
    "uno_next",
    "wd4",
    "winner",
)

# Fields newer than some saved states (journal snapshots): their value when a saved state lacks them.
_ADDED_LATER: dict[str, Any] = {"uno_next": -1, "house": {}}
# Fields left out of the JSON while they hold their empty value: a game that never uses them keeps its exact JSON
# (journal snapshots, the golden replays), as optional options do (options.py).
_OMITTED_WHEN_EMPTY: frozenset[str] = frozenset({"house"})


class GameState:
    """Everything the referee knows. Seats are indices into ``players``; ``-1`` means nobody."""

    __slots__ = _FIELDS

    def __init__(self) -> None:
        self.ruleset: str = ""
        self.mode: str = "full"
        self.players: list[str] = []
        self.options: dict[str, Any] = dict(DEFAULT_OPTIONS)
        self.rng = random.Random(0)
        self.phase: str = IDLE
        self.round: int = 0
        self.dealer: int = -1
        self.direction: int = 1
        self.current: int = -1
        self.hands: list[list[str]] = []  # full mode
        self.table_counts: list[int] = []  # table mode: cards held
        self.stock: list[str] = []  # full mode, top = last
        self.table_stock: int = 0  # table mode: cards in the stock / launcher
        self.discard: list[str] = []  # top = last
        self.color: str | None = None
        self.owed: list[list[int]] = []  # [seat, hits, until_card(0/1)] (ATK)
        self.resume: int = -1  # who gets the turn once `owed` is empty
        self.chain: bool = False  # ATK-08: current player may keep playing after Skip/Reverse
        self.chain_skips: int = 0
        self.drew: bool = False  # MK-05: current player drew this turn
        self.drawn: str | None = None  # full mode: the drawn card, the only one that may still be played
        self.pending: dict[str, Any] | None = None
        self.declared: list[bool] = []  # UNO called and still valid
        self.uno_exposed: int = -1  # ATK-18/MK-15: seat that can be caught right now
        # ATK-18: the "next player" whose first action closes that window (-1: not known yet, e.g. during a
        # Skip/Reverse chain; then anyone else's action closes it). Hits owed by someone else (a Wild
        # Attack-Attack's target, a penalty) leave it open.
        self.uno_next: int = -1
        self.scores: list[int] = []
        self.winner: int = -1
        self.round_winner: int = -1
        # MK-09 Banana: the last player who took a turn (played, or drew on their turn) and the one who took a turn
        # before them. Turns taken in a row by one player (Mushroom, Lightning, a Skip with two players) count once.
        self.last_player: int = -1
        self.before_last: int = -1
        self.wd4: dict[str, Any] | None = None  # MK-14: {"by": seat, "guilty": bool | None}
        # The launcher's side (commitments, presses) is not here but in EjectionStream: undo must not rewind it.
        self.ejection_seed: int = 0  # names the secrets of a rigged game (see ejection.derive_secret)
        self.rigged: bool = False  # new_game carried no daemon-drawn secret (or a launcher.script)
        self.reload_pending: bool = False
        # What house rules keep between commands (house_rules/: e.g. stacking's open stack), by key; empty in a game
        # whose house rules keep nothing open, and then absent from the JSON (_OMITTED_WHEN_EMPTY).
        self.house: dict[str, Any] = {}

    # -- cheap queries used on the hot path -------------------------------------------------------------
    def count(self, seat: int) -> int:
        return len(self.hands[seat]) if self.mode == "full" else self.table_counts[seat]

    def stock_size(self) -> int:
        return len(self.stock) if self.mode == "full" else self.table_stock

    def step(self, seat: int, k: int = 1) -> int:
        """The seat k places after ``seat`` in the current direction."""
        return (seat + self.direction * k) % len(self.players)

    # -- serialisation ------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in _FIELDS:
            if name == "rng":
                version, internal, gauss = self.rng.getstate()
                data[name] = [version, list(internal), gauss]
            else:
                value = getattr(self, name)
                if not value and name in _OMITTED_WHEN_EMPTY:
                    continue
                data[name] = copy_json(value)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        state = cls()
        for name in _FIELDS:
            if name == "rng":
                version, internal, gauss = data[name]
                state.rng.setstate((version, tuple(internal), gauss))
            elif name not in data and name in _ADDED_LATER:
                # a state saved before the field existed, or with the field empty (_OMITTED_WHEN_EMPTY)
                setattr(state, name, copy_json(_ADDED_LATER[name]))
            else:
                setattr(state, name, copy_json(data[name]))
        return state

    def clone(self) -> GameState:
        """An independent copy (cheaper than a JSON round trip)."""
        other = GameState.__new__(GameState)
        for name in _FIELDS:
            if name == "rng":
                rng = random.Random()
                rng.setstate(self.rng.getstate())
                other.rng = rng
            else:
                setattr(other, name, copy_json(getattr(self, name)))
        return other


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (the state's fields; the referee's undo history and commands)."""
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    return value
