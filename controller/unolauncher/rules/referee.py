"""The rules referee: UNO Attack (``attack``, ``attack-original``), UNO Mario Kart and classic UNO.

Pure and deterministic: state + command (+ the seeded RNG inside the state) -> new state + events. No I/O, no
clock, no global randomness. Every handler first *validates* (raising :class:`Refusal` before touching anything)
and only then *applies*, so a refusal changes nothing and the hot path never copies the state. Undo rebuilds
the state from a snapshot taken at ``new_game`` plus the accepted commands since then (undo is rare; a game
step is not).

This module is the core: :class:`Referee`'s public API, command dispatch, undo, serialisation and ``new_game``.
The rules themselves live in one mixin per concern, which :class:`Referee` combines (a mixin's method is an
ordinary method of the class, so dispatch costs what it did when everything was in one class):

- ``turns.py`` — seats, turn order, the ``pass`` command, the UNO catch window (base of all the others)
- ``stock.py`` — taking cards from the stock or launcher, reshuffle/reload (MK-18, ATK-21), the shuffle
- ``scoring.py`` — round end, scoring, the ``score`` command (ATK-19/20, MK-16/17)
- ``attack.py`` — UNO Attack card effects, owed hits, ``hit``/``suggest``/``reload`` (ATK-05..16, 19, 21, 22)
- ``mario_kart.py`` — Mario Kart/classic effects, items, the WD4 challenge, ``draw``/``accept``/``challenge``/
  ``choose`` (MK-05..14)
- ``play.py`` — the ``play`` command: fast path, checks, common effects
- ``dealing.py`` — dealer choice, dealing, the starter card, ``next_round`` (MK-02..04, ATK-17)
- ``uno_calls.py`` — ``uno`` and ``catch`` (ATK-18, MK-15)

with plain functions in ``refusal.py`` (refusals and ``rejected`` events), ``validation.py`` (``new_game`` field
checks) and ``ejection_models.py`` (one ejection model per configuration).

Example::

    >>> ref = Referee()
    >>> ev = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 1})
    >>> ev[0]["type"]
    'game_started'
    >>> ref.handle({"type": "play", "player": "nobody", "card": "red 1"})[0]["code"]
    'unknown_player'
"""

from __future__ import annotations

import random
from typing import Any

from unolauncher.launcher.ejection import EjectionModel, commitment
from unolauncher.rules.attack import ATTACK_ACTIONS
from unolauncher.rules.cards import CARD_INFO, RULESETS, Ruleset
from unolauncher.rules.dealing import Dealing
from unolauncher.rules.ejection_models import _model_for
from unolauncher.rules.play import CardPlay
from unolauncher.rules.refusal import Event, Refusal, _malformed, _rejected, refuse
from unolauncher.rules.schema import COMMAND_FIELDS, MAX_NAME, MAX_PLAYERS, MAX_SCRIPT, check_command
from unolauncher.rules.state import IDLE, PLAYING, GameState, _copy
from unolauncher.rules.stock import _shuffled
from unolauncher.rules.uno_calls import UnoCalls
from unolauncher.rules.validation import (
    CUSTOM_ACTIONS,
    _is_int,
    _validate_deal,
    _validate_launcher,
    _validate_options,
)

# The referee and the names that lived in this module before the split (other code imports them from here).
__all__ = [
    "ATTACK_ACTIONS",
    "COMMAND_TYPES",
    "CUSTOM_ACTIONS",
    "MAX_NAME",
    "MAX_PLAYERS",
    "MAX_SCRIPT",
    "Event",
    "Referee",
    "Refusal",
    "_shuffled",
    "refuse",
]


class Referee(CardPlay, Dealing, UnoCalls):
    """One table's referee. Feed it commands; it answers with events and never raises.

    Example::

        ref = Referee()
        ref.handle({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob", "cy"], "mode": "table",
                    "deal": {"dealer": "cy", "starter": "red 5"}})
        ref.hitter()                       # 'ann': the player left of the dealer may hit (or play)
        ref.handle({"type": "hit", "cards": 2})   # the launcher counted two cards out
        ref.public_state()["hands"]        # {'ann': 9, 'bob': 7, 'cy': 7}; now it is bob's turn
    """

    def __init__(self) -> None:
        self._s = GameState()
        self._seats: dict[str, int] = {}
        self._rs: Ruleset = RULESETS["classic"]
        self._model: EjectionModel | None = None
        self._actions: dict[str, str] = {}
        self._quick: dict[str, tuple[str | None, str, str, bool]] = {}
        self._history: list[dict[str, Any]] = []  # accepted commands since the last new_game
        self._prior: dict[str, Any] | None = None  # state before that new_game (None: no game before)

    # ==================================================================================================
    # public API
    # ==================================================================================================
    def handle(self, command: Any) -> list[Event]:
        """Apply one command; return its events (a refusal is exactly one ``rejected`` event).

        Atomic: the command first has to fit its type's schema (``schema.py``: no unknown field, every value of its
        type and within its limits), then its handler validates before it changes anything; should a handler or an
        undo raise all the same (a bug), the referee is rebuilt to exactly where it was before the command, undo
        history included, and the command is refused with ``internal_error``.
        """
        try:
            handler, nested, spec = _STEPS[command["type"]]
        except Exception:  # not an object, no type, unknown or unhashable type
            return [_malformed(command)]
        prior, history = self._prior, self._history
        try:
            check_command(command, spec)
            if nested is None:
                return self._undo(command)
            events = handler(self, command)
            kept = _copy(command) if nested or "discarded" in command else dict(command)
        except Refusal as refusal:
            self._prior, self._history = prior, history  # a refusal never touches the undo history
            return [_rejected(command, refusal.code, refusal.message)]
        except Exception as exc:  # a bug must not crash the table: restore the last good state and say so
            self._rebuild(prior, history)
            return [_rejected(command, "internal_error", f"The referee failed on this command ({type(exc).__name__}).")]
        self._history.append(kept)
        return events

    def public_state(self) -> dict[str, Any]:
        """The PROTOCOL.md public state (plus a few documented extras)."""
        s = self._s
        names = s.players
        started = s.phase != IDLE
        pending = None
        if s.pending is not None:
            pending = {k: (names[v] if k in ("player", "by") else v) for k, v in s.pending.items()}
        return {
            "ruleset": s.ruleset or None,
            "mode": s.mode if started else None,
            "phase": s.phase,
            "round": s.round,
            "direction": s.direction,
            "players": list(names),
            "dealer": names[s.dealer] if s.dealer >= 0 else None,
            "current": names[s.current] if s.current >= 0 and s.phase == PLAYING else None,
            "top": s.discard[-1] if s.discard else None,
            "color": s.color,
            "hands": {name: s.count(i) for i, name in enumerate(names)},
            "stock": s.stock_size() if started else 0,
            "owed": [_owed_public(names, entry) for entry in s.owed],
            "chain": s.chain,
            "pending": pending,
            "uno_exposed": names[s.uno_exposed] if s.uno_exposed >= 0 else None,
            "scores": {name: s.scores[i] for i, name in enumerate(names)},
            "target_score": s.options["target_score"],
            "winner": names[s.winner] if s.winner >= 0 else None,
        }

    def hitter(self) -> str | None:
        """Who a launcher press is attributed to now, or ``None`` if no hit is allowed."""
        s = self._s
        if s.phase != PLAYING or not self._rs.attack or s.pending is not None:
            return None
        if s.owed:
            return s.players[s.owed[0][0]]
        if s.chain or s.current < 0:
            return None
        return s.players[s.current]

    def next_fire_plan(self) -> Any:
        """The FirePlan the game's ejection model gives for the next press (pure peek; ``None`` without a game).

        The daemon can fire this plan and report the count in ``hit.cards``; every accepted hit advances the
        model by one press, so press *i* of the game is always planned from (seed, i).
        """
        if self._model is None or self._s.ejection is None:
            return None
        plan, _ = self._model.plan(self._s.ejection)
        return plan

    def hand(self, player: str) -> list[str] | None:
        """``full`` mode: the cards a player holds (a copy); ``None`` in table mode or for an unknown player."""
        seat = self._seats.get(player)
        if seat is None or self._s.mode != "full" or seat >= len(self._s.hands):
            return None
        return list(self._s.hands[seat])

    @property
    def state(self) -> GameState:
        """The live internal state (read it, don't change it). Bots use it for speed."""
        return self._s

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "state": self._s.to_json(),
            "history": _copy(self._history),
            "prior": _copy(self._prior),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Referee:
        """Rebuild a referee from :meth:`to_json` output; ``ValueError`` if ``data`` is not such a state."""
        ref = cls()
        if not isinstance(data, dict) or data.get("version") != 1:
            raise ValueError("not a referee state (version 1 expected)")
        try:
            ref._set_state(GameState.from_json(data["state"]))
            ref._history = _copy(data["history"])
            ref._prior = _copy(data["prior"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"not a referee state ({type(exc).__name__}: {exc})") from exc
        return ref

    # ==================================================================================================
    # plumbing
    # ==================================================================================================
    def _set_state(self, state: GameState) -> None:
        self._s = state
        self._seats = {name: i for i, name in enumerate(state.players)}
        self._rs = RULESETS.get(state.ruleset, RULESETS["classic"])
        self._actions = self._action_map()
        self._quick = _quick_table(self._rs, self._actions) if state.mode == "full" else {}
        options = state.options
        self._model = _model_for(options) if state.ejection is not None else None

    def _rebuild(self, prior: dict[str, Any] | None, commands: list[dict[str, Any]]) -> None:
        """The state ``prior`` (a game's start; a fresh referee for ``None``) with ``commands`` re-applied, which
        become the undo history."""
        history = list(commands)
        self._set_state(GameState.from_json(prior) if prior is not None else GameState())
        for command in history:
            _HANDLERS[command["type"]](self, command)
        self._prior, self._history = prior, history

    def _undo(self, command: dict[str, Any]) -> list[Event]:
        if not self._history:
            return [_rejected(command, "nothing_to_undo", "There is nothing to undo.")]
        undone: Event = {"type": "undone", "command": _copy(self._history[-1])}  # made before anything changes
        self._rebuild(self._prior, self._history[:-1])  # an exception here: handle() restores the state
        return [undone]

    # ==================================================================================================
    # new game
    # ==================================================================================================
    def _cmd_new_game(self, cmd: dict[str, Any]) -> list[Event]:
        ruleset = cmd.get("ruleset")
        if type(ruleset) is not str or ruleset not in RULESETS:
            refuse("bad_ruleset", "The ruleset must be attack, attack-original, mario-kart or classic.")
        rs = RULESETS[ruleset]
        players = cmd.get("players")
        if type(players) is not list or not 2 <= len(players) <= MAX_PLAYERS:
            refuse("bad_players", "Players must be a list of 2 to 10 names.")
        if any(type(p) is not str or not p or len(p) > MAX_NAME for p in players) or len(set(players)) != len(players):
            refuse("bad_players", "Player names must be distinct, non-empty strings of at most 40 characters.")
        seed = cmd.get("seed", 0)
        if not _is_int(seed):
            refuse("bad_field", "The seed must be an integer.")
        mode = cmd.get("mode", "full")
        if mode not in ("full", "table"):
            refuse("bad_mode", "The mode must be full or table.")
        options = _validate_options(cmd.get("options"), rs, len(players))
        script, ejection_seed = _validate_launcher(cmd.get("launcher"), seed)
        deal = cmd.get("deal")
        _validate_deal(deal, rs, players, mode, options)

        # -- apply ----------------------------------------------------------------------------------------
        self._prior = self._s.to_json() if self._s.phase != IDLE else None
        self._history = []
        s = GameState()
        s.ruleset, s.mode, s.players, s.options = ruleset, mode, list(players), options
        s.rng = random.Random(seed)
        s.scores = [0] * len(players)
        s.script = script
        s.ejection_seed = ejection_seed
        self._set_state(s)
        model = _model_for(options)
        s.ejection = model.start(ejection_seed)
        self._model = model
        events: list[Event] = [
            {
                "type": "game_started",
                "ruleset": ruleset,
                "mode": mode,
                "players": list(players),
                "options": _copy(options),
                "ejection_commitment": commitment(ejection_seed),
            }
        ]
        dealer = self._choose_dealer(deal, events)
        self._start_round(dealer, deal, events)
        return events


_HANDLERS = {
    "new_game": Referee._cmd_new_game,
    "next_round": Referee._cmd_next_round,
    "play": Referee._cmd_play,
    "hit": Referee._cmd_hit,
    "draw": Referee._cmd_draw,
    "pass": Referee._cmd_pass,
    "uno": Referee._cmd_uno,
    "catch": Referee._cmd_catch,
    "challenge": Referee._cmd_challenge,
    "accept": Referee._cmd_accept,
    "choose": Referee._cmd_choose,
    "score": Referee._cmd_score,
    "suggest": Referee._cmd_suggest,
    "reload": Referee._cmd_reload,
    "undo": Referee._undo,  # special-cased in handle()
}
COMMAND_TYPES = tuple(_HANDLERS)
# Commands whose nested fields the referee reads: the undo history keeps a deep copy of these (and of any command
# carrying Discard All's ``discarded`` list; a shallow copy of the others), so a caller that reuses its dicts
# cannot change history.
_NESTED_COMMANDS = frozenset({"new_game", "next_round", "score"})
# What handle() needs per command type in one lookup: (handler, deep-copy for history?, the type's schema);
# ``None`` marks undo, which is not itself kept in history.
_STEPS: dict[str, tuple[Any, bool | None, dict[str, Any]]] = {
    kind: (handler, None if kind == "undo" else kind in _NESTED_COMMANDS, COMMAND_FIELDS[kind])
    for kind, handler in _HANDLERS.items()
}


# ======================================================================================================
# small helpers
# ======================================================================================================
QuickTable = dict[str, tuple[str | None, str, str, bool]]
_QUICK_TABLES: dict[tuple[str, str], QuickTable] = {}


def _quick_table(rs: Ruleset, actions: dict[str, str]) -> QuickTable:
    """The fast-path table of a full-mode game: the cards whose play needs no field beyond player, card and (for a
    Wild) color, as (colour, face, action, plain: a coloured card without an action). Targets, Discard All's list
    and the Item Box's turned card keep to the general path. Shared by every game with the same rule set and
    Customizable action (read-only), since building it costs about as much as a dozen steps."""
    key = (rs.name, actions.get("wild customizable", ""))
    table = _QUICK_TABLES.get(key)
    if table is None:
        table = _QUICK_TABLES[key] = {}
        for c in rs.counts:
            color, face = CARD_INFO[c]
            action = actions.get(face, "")
            if action not in ("attack", "trade-hands", "discard-all") and face != "wild item-box":
                table[c] = (color, face, action, color is not None and not action)
    return table


def _owed_public(names: list[str], entry: list[int]) -> dict[str, Any]:
    item: dict[str, Any] = {"player": names[entry[0]], "hits": entry[1]}
    if entry[2]:
        item["until_card"] = True
    return item
