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
- ``moves.py`` — ``legal_moves(player)``: the commands a player may send now (no command of its own)

with plain functions in ``refusal.py`` (refusals and ``rejected`` events), ``validation.py`` (``new_game`` field
checks) and ``ejection_models.py`` (one ejection model per configuration).

The launcher's record — one commitment per round, every press, lid opening and player entropy — lives apart, in
``ejection_stream.py``: ``undo`` rewinds the game, never the launcher (a press that happened stays pressed), so
no outcome can come round twice. The commands that only touch it (``pressed``, ``lid_opened``, ``entropy``) are
not in the undo history.

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

from unolauncher.rules.attack import ATTACK_ACTIONS
from unolauncher.rules.cards import RULESETS, Ruleset
from unolauncher.rules.dealing import Dealing
from unolauncher.rules.ejection import FirePlan
from unolauncher.rules.ejection_stream import EjectionStream
from unolauncher.rules.house_rules import HouseRule
from unolauncher.rules.house_rules import active as active_house_rules
from unolauncher.rules.moves import LegalMoves
from unolauncher.rules.names import names_problem
from unolauncher.rules.options import public_options
from unolauncher.rules.play import CardPlay, quick_table
from unolauncher.rules.refusal import Event, Refusal, malformed_event, redacted, refuse, rejected_event
from unolauncher.rules.schema import COMMAND_FIELDS, MAX_NAME, MAX_PLAYERS, MAX_SCRIPT, check_command
from unolauncher.rules.state import IDLE, PLAYING, SCORING, GameState, copy_json
from unolauncher.rules.turns import owed_public
from unolauncher.rules.uno_calls import UnoCalls
from unolauncher.rules.validation import (
    CUSTOM_ACTIONS,
    is_int,
    validate_deal,
    validate_launcher,
    validate_options,
    validate_secret,
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
    "refuse",
]


class Referee(CardPlay, Dealing, UnoCalls, LegalMoves):
    """One table's referee. Feed it commands; it answers with events and never raises.

    Example::

        >>> ref = Referee()
        >>> _ = ref.handle({"type": "new_game", "ruleset": "attack", "players": ["ann", "bob", "cy"], "mode": "table",
        ...                 "deal": {"dealer": "cy", "starter": "red 5"}})
        >>> ref.hitter()  # the player left of the dealer may hit (or play)
        'ann'
        >>> ref.handle({"type": "hit", "cards": 2})  # the launcher counted two cards out
        [{'type': 'hit', 'player': 'ann', 'cards': 2, 'owed_left': 0}, {'type': 'turn', 'player': 'bob'}]
        >>> ref.public_state()["hands"]
        {'ann': 9, 'bob': 7, 'cy': 7}
        >>> ref.legal_moves("bob")  # table mode: the hands are at the table, so no plays are listed
        [{'type': 'hit', 'player': 'bob'}]
    """

    def __init__(self) -> None:
        self._s = GameState()
        self._seats: dict[str, int] = {}
        self._rs: Ruleset = RULESETS["classic"]
        self._stream = EjectionStream()
        self._actions: dict[str, str] = {}
        self._quick: dict[str, tuple[str | None, str, str, bool]] = {}
        self._house: tuple[HouseRule, ...] = ()
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

        The commands of nearly every step of a full-mode game (a plain play, a draw) first try their type's fast
        path (``_fast_play``, ``_fast_draw``): it accepts only the exact shape it checks field by field (which the
        schema accepts too) and only a legal move, else changes nothing and returns ``None``, and the command takes
        the schema check and the general path like any other.
        """
        try:
            handler, keep, spec, fast = _STEPS[command["type"]]
        except Exception:  # not an object, no type, unknown or unhashable type
            return [malformed_event(command)]
        stream = self._stream.data  # shared, never changed in place: putting it back after a failure is free
        if fast is not None:
            try:
                events = fast(self, command)
            except Exception as exc:  # a bug (a fast path never touches the undo history)
                return self._failed(command, exc, stream, self._prior, self._history)
            if events is not None:
                # A flat command of text fields: a shallow copy is a deep one ({**c}: a third of dict(c)'s cost).
                self._history.append({**command})
                return events
        try:
            check_command(command, spec)
        except Refusal as refusal:
            return [rejected_event(command, refusal.code, refusal.message, refusal.params)]
        if keep > _DEEP:  # the rare kinds: undo, and what only touches the launcher's record
            return self._undo(command) if keep == _UNDO else self._launcher_command(handler, command)
        prior, history = self._prior, self._history
        try:
            events = handler(self, command)
            kept = copy_json(command) if keep == _DEEP or "discarded" in command else {**command}
        except Refusal as refusal:
            self._stream.data = stream
            self._prior, self._history = prior, history  # a refusal never touches the undo history
            return [rejected_event(command, refusal.code, refusal.message, refusal.params)]
        except Exception as exc:  # a bug must not crash the table: restore the last good state and say so
            return self._failed(command, exc, stream, prior, history)
        if keep == _HIT and kept.get("cards") is None:
            # The model (or the script) decided the count: keep what came out, so that an undo replaying this
            # hit takes the same cards without pressing again.
            kept["cards"] = events[0]["cards"]
        link = self._stream.take_link() if keep == _HIT else None
        if link is not None:
            kept["launcher_press"] = link  # an undo of this hit carries the press's plan (never a fresh draw)
        self._history.append(kept)
        return events

    def _failed(
        self,
        command: dict[str, Any],
        exc: Exception,
        stream: dict[str, Any],
        prior: dict[str, Any] | None,
        history: list[dict[str, Any]],
    ) -> list[Event]:
        """A handler raised (a bug must not crash the table): the launcher's record, the state and the undo history
        as they were before ``command``, which is refused with ``internal_error``."""
        self._stream.data = stream
        self._rebuild(prior, history)
        failed = f"The referee failed on this command ({type(exc).__name__})."
        return [rejected_event(command, "internal_error", failed)]

    def _launcher_command(self, handler: Any, command: dict[str, Any]) -> list[Event]:
        """``pressed``, ``lid_opened``, ``entropy``: the launcher's record only, never in the undo history."""
        stream = self._stream.data
        try:
            events: list[Event] = handler(self, command)
        except Refusal as refusal:
            self._stream.data = stream
            return [rejected_event(command, refusal.code, refusal.message, refusal.params)]
        except Exception as exc:  # a bug: the record as it was, and say so
            self._stream.data = stream
            failed = f"The referee failed on this command ({type(exc).__name__})."
            return [rejected_event(command, "internal_error", failed)]
        return events

    def public_state(self) -> dict[str, Any]:
        """The PROTOCOL.md public state (plus a few documented extras)."""
        s = self._s
        names = s.players
        started = s.phase != IDLE
        by_name = ("player", "by")
        pending = None if s.pending is None else {k: names[v] if k in by_name else v for k, v in s.pending.items()}
        public: dict[str, Any] = {
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
            "owed": [owed_public(names, entry) for entry in s.owed],
            "chain": s.chain,
            "pending": pending,
            "uno_exposed": names[s.uno_exposed] if s.uno_exposed >= 0 else None,
            "scores": {name: s.scores[i] for i, name in enumerate(names)},
            "target_score": s.options["target_score"],
            "winner": names[s.winner] if s.winner >= 0 else None,
        }
        if s.house:  # what a house rule keeps open (house_rules/): only while it is set
            public["house"] = copy_json(s.house)
        if options := public_options(s.options) if started else {}:  # absent at the defaults: the JSON stays exact
            public["options"] = options
        return public

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

    def next_fire_plan(self, player: str | None, secret: str | None = None) -> FirePlan | None:
        """The plan the next press by ``player`` (``None``: unattributed) gets from the open launcher commitment
        (a pure peek). With no commitment open such a press opens free play: ``None``, unless ``secret`` is given —
        then the plan a ``pressed`` command carrying that ``secret`` would get (peeked on a scratch copy of the
        launcher's record, which is shared, not copied)."""
        plan = self._stream.next_plan(player)
        if plan is not None or secret is None:
            return plan
        stream, s = self._stream.copy(), self._s
        stream.open(s.options, secret, s.ejection_seed, rigged_game=s.rigged, round_no=None)
        return stream.next_plan(player)

    def commitment(self) -> str | None:
        """The open launcher commitment (sha256 of the secret that keys the next presses), or ``None``."""
        epoch = self._stream.epoch
        return None if epoch is None else str(epoch["commitment"])

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
            "version": 2,
            "state": self._s.to_json(),
            "history": copy_json(self._history),
            "prior": copy_json(self._prior),
            "stream": copy_json(self._stream.to_json()),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Referee:
        """Rebuild a referee from :meth:`to_json` output; ``ValueError`` if ``data`` is not such a state."""
        ref = cls()
        if not isinstance(data, dict) or data.get("version") != 2:
            raise ValueError("not a referee state (version 2 expected)")
        try:
            ref._set_state(GameState.from_json(data["state"]))
            ref._history = copy_json(data["history"])
            ref._prior = copy_json(data["prior"])
            ref._stream = EjectionStream.from_json(copy_json(data["stream"]))
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
        self._house = active_house_rules(state.options)
        self._quick = quick_table(self._rs, self._actions) if state.mode == "full" else {}

    def _rebuild(self, prior: dict[str, Any] | None, commands: list[dict[str, Any]]) -> None:
        """The game as ``prior`` (a game's start; a fresh referee for ``None``) plus ``commands`` make it; they become
        the undo history. They replay against a scratch copy of the launcher's record, which is then dropped: the
        real one never goes back (the module docstring says why)."""
        history = list(commands)
        stream = self._stream
        self._stream = stream.copy()
        try:
            self._set_state(GameState.from_json(prior) if prior is not None else GameState())
            for command in history:
                _HANDLERS[command["type"]](self, command)
        finally:
            self._stream = stream
        self._prior, self._history = prior, history

    def _undo(self, command: dict[str, Any]) -> list[Event]:
        if not self._history:
            return [rejected_event(command, "nothing_to_undo", "There is nothing to undo.")]
        try:
            validate_secret(command)
        except Refusal as refusal:
            return [rejected_event(command, refusal.code, refusal.message, refusal.params)]
        prior, history = self._prior, self._history
        taken_back = history[-1]
        stream = self._stream.data
        try:
            self._rebuild(prior, history[:-1])
            events: list[Event] = [{"type": "undone", "command": copy_json(redacted(taken_back))}]
            self._recommit_after_undo(taken_back, command.get("secret"), events)
            press = taken_back.get("launcher_press")  # a launcher hit: its plan is owed again, never drawn afresh
            events.extend(e for e in [press and self._stream.carry(press, "undone")] if e)
        except Exception as exc:  # state, undo history and the launcher's record as they were
            self._stream.data = stream
            self._rebuild(prior, history)
            return [rejected_event(command, "internal_error", f"Undo failed ({type(exc).__name__}).")]
        return events

    def _recommit_after_undo(self, taken_back: dict[str, Any], secret: Any, events: list[Event]) -> None:
        """The launcher after an undo. Undone past a round's start (or out of a round): that round's secret is
        revealed. Back inside a round whose secret is out already (or was replaced by free play): a fresh
        commitment, keyed by the undo's ``secret``, covers every press from here on — nobody can predict them."""
        s = self._s
        in_round = s.phase in (PLAYING, SCORING)
        epoch = self._stream.epoch
        if epoch is not None and (taken_back["type"] in _ROUND_STARTS or not in_round or epoch["round"] is None):
            self._reveal("undone", events)
        if in_round and self._stream.epoch is None:
            opened = self._stream.open(s.options, secret, s.ejection_seed, rigged_game=s.rigged, round_no=s.round)
            events.append({"type": "ejection_commit", "reason": "undo", "round": s.round, **opened})

    # ==================================================================================================
    # the launcher's record (never in the undo history)
    # ==================================================================================================
    def _cmd_pressed(self, cmd: dict[str, Any]) -> list[Event]:
        """The daemon's launcher was pressed (attributed to ``player``, or ``null``): the next plan of the open
        commitment is used up. With none open (between rounds, ``lockout = false``) free play opens one, keyed by
        the command's ``secret``."""
        player = cmd.get("player")
        if player is not None:
            self._seat(cmd)
        validate_secret(cmd)
        events = self._cmd_free_play(cmd) if self._stream.epoch is None else []  # (journals before free_play)
        events.extend(self._stream.press(player)[1])
        return events

    def _cmd_fire_failed(self, cmd: dict[str, Any]) -> list[Event]:
        """The launcher's run for ``player``'s last press failed (no card): its plan fires at their next press."""
        carried = self._stream.fire_failed(cmd.get("player"), str(cmd.get("reason")))
        return [carried] if carried else refuse("nothing_to_carry", "That player's last press is settled already.")

    def _cmd_lid_opened(self, cmd: dict[str, Any]) -> list[Event]:
        """The launcher's lid was opened (a refill): the sequence count restarts."""
        lid = self._stream.lid()
        if lid is None:
            refuse("no_commitment", "No launcher commitment is open, so there is no press count to restart.")
        return [lid]

    def _cmd_entropy(self, cmd: dict[str, Any]) -> list[Event]:
        """A player's random ``entropy``, mixed into the open commitment's key: the box cannot have known the
        outcomes of the presses that follow when it committed. ``commitment`` (optional) names the one the sender
        meant; any other open one refuses it."""
        stream = self._stream
        return [stream.add_entropy(cmd.get("entropy"), cmd.get("commitment"), cmd.get("hash"), cmd.get("client"),
                                   cmd.get("at"))]  # fmt: skip

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
        if (problem := names_problem(players)) is not None:  # names that look the same, or show nothing
            refuse("bad_players", problem)
        seed = cmd.get("seed", 0)
        if not is_int(seed):
            refuse("bad_field", "The seed must be an integer.")
        mode = cmd.get("mode", "full")
        if mode not in ("full", "table"):
            refuse("bad_mode", "The mode must be full or table.")
        options = validate_options(cmd.get("options"), rs, len(players))
        script, ejection_seed = validate_launcher(cmd.get("launcher"), seed)
        deal = cmd.get("deal")
        validate_deal(deal, rs, players, mode, options)
        validate_secret(cmd)
        secret = cmd.get("secret")

        # -- apply ----------------------------------------------------------------------------------------
        events: list[Event] = []
        self._reveal("replaced", events)  # an unfinished game's round: its secret comes out now
        self._prior = self._s.to_json() if self._s.phase != IDLE else None
        self._history = []
        s = GameState()
        s.ruleset, s.mode, s.players, s.options = ruleset, mode, list(players), options
        s.rng = random.Random(seed)
        s.scores = [0] * len(players)
        s.ejection_seed = ejection_seed
        s.rigged = secret is None or bool(script)  # without the daemon's secret, whoever chose the seed knows all
        self._set_state(s)
        self._stream.new_game(script)
        events.append(
            {
                "type": "game_started",
                "ruleset": ruleset,
                "mode": mode,
                "players": list(players),
                "options": copy_json(options),
            }
        )
        dealer = self._choose_dealer(deal, events)
        self._start_round(dealer, deal, events, secret)
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
    "pressed": Referee._cmd_pressed,
    "free_play": Referee._cmd_free_play,
    "fire_failed": Referee._cmd_fire_failed,
    "lid_opened": Referee._cmd_lid_opened,
    "entropy": Referee._cmd_entropy,
    "undo": Referee._undo,  # special-cased in handle()
}
COMMAND_TYPES = tuple(_HANDLERS)
# Commands that only touch the launcher's record (EjectionStream): never in the undo history, never replayed by it.
LAUNCHER_COMMANDS = frozenset({"pressed", "lid_opened", "entropy", "fire_failed", "free_play"})
_ROUND_STARTS = frozenset({"new_game", "next_round"})
# Commands whose nested fields the referee reads: the undo history keeps a deep copy of these (and of any command
# carrying Discard All's ``discarded`` list; a shallow copy of the others), so a caller that reuses its dicts
# cannot change history.
_NESTED_COMMANDS = frozenset({"new_game", "next_round", "score"})
# What handle() needs per command type in one lookup: (handler, how, the type's schema, its fast path or None).
# How: the undo history keeps a shallow copy (_SHALLOW), a deep one (_DEEP), a hit with the count that came out
# (_HIT); _LAUNCHER_ONLY commands are not kept at all, and _UNDO is undo itself.
_SHALLOW, _HIT, _DEEP, _LAUNCHER_ONLY, _UNDO = range(5)


def _how_kept(kind: str) -> int:
    if kind == "undo":
        return _UNDO
    if kind in LAUNCHER_COMMANDS:
        return _LAUNCHER_ONLY
    if kind in _NESTED_COMMANDS:
        return _DEEP
    return _HIT if kind == "hit" else _SHALLOW


# The fast paths Referee.handle tries before the schema check (see its docstring).
_FAST_PATHS = {"play": Referee._fast_play, "draw": Referee._fast_draw}
_STEPS: dict[str, tuple[Any, int, dict[str, Any], Any]] = {
    kind: (handler, _how_kept(kind), COMMAND_FIELDS[kind], _FAST_PATHS.get(kind)) for kind, handler in _HANDLERS.items()
}
