"""Seats and turn order: the base every part of the referee builds on. Who a name is, whether a round is being
played, passing the turn on (ATK-05/06, MK-05; skips counted in play direction), closing the UNO catch window when
someone else acts (ATK-18, MK-15), and the ``pass`` command (ATK-08 ends a chain, MK-05 after a draw).

The referee is one class assembled from mixins, one per concern (see ``referee.py``). Each mixin inherits from the
mixins whose methods it calls, so mypy checks every call; at run time a mixin's method is an ordinary method of
:class:`~unolauncher.rules.referee.Referee` (found once through the class's attribute cache, no extra call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unolauncher.rules.cards import Ruleset
from unolauncher.rules.ejection_stream import EjectionStream
from unolauncher.rules.play_context import PlayContext
from unolauncher.rules.refusal import Event, refuse, short_repr
from unolauncher.rules.state import IDLE, OVER, PLAYING, GameState
from unolauncher.rules.validation import validate_secret

if TYPE_CHECKING:
    from unolauncher.rules.house_rules import HouseRule


class TurnOrder:
    """The referee's live fields (set by ``Referee.__init__`` and ``_set_state``) and its turn-order methods."""

    _s: GameState
    _seats: dict[str, int]
    _rs: Ruleset
    _stream: EjectionStream
    _actions: dict[str, str]
    _quick: dict[str, tuple[str | None, str, str, bool]]
    _house: tuple[HouseRule, ...]  # the house rules of house_rules/ this game switches on

    def _reveal(self, reason: str, events: list[Event]) -> None:
        """Close the open launcher epoch, if any, and publish its secret (``ejection_reveal``): ``reason`` is why the
        round ends without ``round_ended`` (``replaced``, ``undone``); free play between rounds ends as
        ``free_play_ended``."""
        epoch = self._stream.epoch
        reveal = self._stream.close()
        if epoch is not None and reveal is not None:
            reason = "free_play_ended" if epoch["round"] is None else reason
            events.append({"type": "ejection_reveal", "reason": reason, **reveal})

    def _cmd_free_play(self, cmd: dict[str, Any]) -> list[Event]:
        """Free play's commitment (``lockout = false``, no round open), keyed by ``secret``: the daemon opens it
        before anyone may press, so that it is out before the first press and phones can add entropy."""
        validate_secret(cmd)
        if self._stream.epoch is not None:
            refuse("commitment_open", "A launcher commitment is open already; free play needs none open.")
        s = self._s
        opened = self._stream.open(s.options, cmd.get("secret"), s.ejection_seed, rigged_game=s.rigged, round_no=None)
        return [{"type": "ejection_commit", "reason": "free", "round": None, **opened}]

    def _seat(self, cmd: dict[str, Any], field: str = "player") -> int:
        name = cmd.get(field)
        if name is None:
            refuse("missing_field", f"The command needs a {field} field.")
        if type(name) is not str:
            refuse("bad_field", f"The {field} field must be a player's name.")
        seat = self._seats.get(name)
        if seat is None:
            refuse("unknown_player", f"There is no player called {short_repr(name)} at this table.")
        return seat

    def _require_playing(self) -> GameState:
        s = self._s
        if s.phase != PLAYING:
            if s.phase == IDLE:
                refuse("no_game", "No game is running; start one with new_game.")
            if s.phase == OVER:
                refuse("game_over", "The game is over; start a new one with new_game.")
            refuse("round_over", "The round is over; score it or start the next round.")
        return s

    def _name(self, seat: int) -> str:
        return self._s.players[seat]

    def _pass_turn(self, seat: int, skips: int, events: list[Event], announce_skips: bool = True) -> None:
        s = self._s
        n = len(s.players)
        if skips and announce_skips:
            for k in range(1, skips + 1):
                events.append({"type": "skipped", "player": s.players[(seat + s.direction * k) % n]})
        s.chain = False
        s.chain_skips = 0
        s.drew = False
        s.drawn = None
        s.current = nxt = (seat + s.direction * (1 + skips)) % n
        if s.uno_exposed == seat:
            s.uno_next = nxt  # ATK-18: the exposed player's turn ends here (a Skip/Reverse chain, say)
        events.append({"type": "turn", "player": s.players[nxt]})

    def _took_turn(self, seat: int) -> None:
        """MK-09: ``seat`` acts on its turn (plays, or draws from the stock). A skipped player never gets here, and a
        turn spent drawing and passing counts (RULES.md MK-09). The fast paths in ``play.py``/``mario_kart.py`` do the
        same inline."""
        s = self._s
        if s.last_player != seat:
            s.before_last = s.last_player
            s.last_player = seat

    def _require_turn(self, seat: int) -> None:
        """The checks every turn action shares, in the order a player needs to hear them: a pending answer first,
        then hits owed, then whose turn it is."""
        s = self._s
        if s.pending is not None:
            refuse("pending_choice", "The referee is waiting for an answer to a pending choice first.")
        if s.owed:
            hitter = s.players[s.owed[0][0]]
            refuse("hits_owed", f"{hitter} must take their hits first.", player=hitter)
        if seat != s.current:
            refuse("not_your_turn", f"It is {s.players[s.current]}'s turn.", player=s.players[s.current])

    def _cmd_pass(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        seat = self._seat(cmd)
        self._require_turn(seat)
        if self._rs.attack:
            if not s.chain:
                refuse("cannot_pass", "In UNO Attack you play a card or hit; pass only ends a Skip/Reverse chain.")
        elif not s.drew:
            refuse("must_draw_first", "Draw a card before passing.")
        events: list[Event] = [{"type": "passed", "player": s.players[seat]}]
        self._close_exposure(seat)
        self._pass_turn(seat, s.chain_skips, events)
        return events

    def _close_exposure(self, seat: int) -> None:
        """ATK-18: the catch window closes when the next player starts (``uno_next``; anyone else's action while
        that is not known yet). A Wild Attack-Attack's target or a penalised player hitting first does not close
        it."""
        s = self._s
        if s.uno_exposed >= 0 and s.uno_exposed != seat and (s.uno_next < 0 or s.uno_next == seat):
            s.uno_exposed = -1

    def _expose(self, seat: int, action: str) -> None:
        """ATK-18 / MK-15: ``seat`` is left with one card after a play, not called: catchable until the next player
        starts. That is the player whose turn it is now, except after a Wild Attack-Attack (its target hits first,
        then play resumes with the next player); during a Skip/Reverse chain it is not known yet (``_pass_turn``)."""
        s = self._s
        s.uno_exposed = seat
        if action == "attack" and s.owed:
            s.uno_next = s.resume
        else:
            s.uno_next = s.current if s.current != seat else -1

    # -- the hooks of the house rules in house_rules/ (self._house: those the game switches on) --------------
    def _house_may_play(self, seat: int, card: Any) -> bool:
        """Does a house rule let ``seat`` play ``card`` now, although the turn checks would refuse it?"""
        return type(card) is str and any(rule.may_play(self, seat, card) for rule in self._house)

    def _house_check_play(self, seat: int, card: str) -> None:
        """Refuse a play a house rule forbids now (called after the usual checks, before anything changes)."""
        for rule in self._house:
            found = rule.refusal(self, seat, card)
            if found is not None:
                refuse(*found)

    def _house_allows(self, seat: int, card: str) -> bool:
        return all(rule.refusal(self, seat, card) is None for rule in self._house)

    def _house_plays(self, seat: int) -> list[str]:
        """The distinct cards house rules let ``seat`` play out of order now, sorted."""
        cards: set[str] = set()
        for rule in self._house:
            cards.update(rule.plays(self, seat))
        return sorted(cards)

    def _house_rule_effect(self, play: PlayContext, events: list[Event]) -> bool:
        """A house rule takes over a validated play's card effect (``True``), or leaves it to the rule set."""
        return any(rule.effect(self, play, events) for rule in self._house)

    def _house_no_play(self, seat: int, kind: str, cmd: dict[str, Any], events: list[Event]) -> bool:
        """A validated ``draw``/``hit``/``accept``/``challenge``: a house rule takes it over (``True``) or sees it."""
        taken = False
        for rule in self._house:
            taken = rule.no_play(self, seat, kind, cmd, events) or taken
        return taken


def owed_public(names: list[str], entry: list[int]) -> dict[str, Any]:
    """One entry of the public state's ``owed``: ``[seat, hits, until_card]`` as the protocol shows it."""
    item: dict[str, Any] = {"player": names[entry[0]], "hits": entry[1]}
    if entry[2]:
        item["until_card"] = True
    return item
