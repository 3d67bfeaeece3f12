"""What a player may do now: :meth:`LegalMoves.legal_moves`, the commands the referee would accept from them.

The referee's handlers stay the authority (a move is legal because ``handle`` accepts it); this module lists those
moves from the same state and the same rule (:func:`~unolauncher.rules.cards.matches`, through
:data:`~unolauncher.rules.cards.PLAYABLE_ON`), so a bot, the simulator or a dashboard greying out its buttons need
not write the rules again. tests/rules/test_legal_moves.py plays random games and checks both ways: every listed
move is accepted, and moves left out are refused. The pieces ``legal_moves`` is built on are public too: the bots
call :meth:`~LegalMoves.playable_cards`, :meth:`~LegalMoves.no_play_move` and :meth:`~LegalMoves.play_choices` on
every simulated step (no dict per move), and the daemon's ``moves`` query answers with ``legal_moves`` and
:meth:`~LegalMoves.playable` (the cards, also in ``table`` mode).

A move is a command dict, in this order:

- the answer to a pending choice (``accept``/``challenge`` a Wild Draw Four, ``choose`` a colour or a target);
- ``play``: one move per distinct card held that may be played, times each colour a Wild needs, times each
  target an Attack-Attack or Trade Hands needs (ATK-10, ATK-13); an Item Box is listed without its optional
  ``color``/``target`` (the referee asks for them when the turned card calls for it);
- ``hit`` (UNO Attack: a turn hit, or a hit owed), ``draw`` (Mario Kart, classic: once a turn), ``pass`` (UNO
  Attack: to end a Skip/Reverse chain; the others: after drawing);
- ``uno`` (two cards or fewer, not called yet) and ``catch`` (whoever can be caught), which need not be one's turn.

In ``table`` mode the referee does not know the hands (nor the card an Item Box turns), so no ``play`` is listed;
a Wild Draw Four's ``challenge`` comes with each ``guilty`` outcome the table may report.

Example::

    >>> from unolauncher.rules.referee import Referee
    >>> ref = Referee()
    >>> _ = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 11})
    >>> ref.public_state()["current"], ref.public_state()["top"]
    ('ann', 'blue 8')
    >>> moves = ref.legal_moves("ann")
    >>> [move.get("card", move["type"]) for move in moves]  # a Wild once per colour
    ['blue 6', 'blue skip', 'red 8', 'wild', 'wild', 'wild', 'wild', 'draw']
    >>> moves[3]
    {'type': 'play', 'player': 'ann', 'card': 'wild', 'color': 'red'}
    >>> ref.legal_moves("bob")  # not bob's turn, and nothing to call or catch
    []
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.actions import ACTIONS
from unolauncher.rules.cards import CARD_INFO, COLORS, PLAYABLE_ON
from unolauncher.rules.state import IDLE, PLAYING
from unolauncher.rules.turns import TurnOrder

Move = dict[str, Any]


class LegalMoves(TurnOrder):
    """The ``legal_moves`` query of :class:`~unolauncher.rules.referee.Referee` (pure: reads the state only)."""

    def legal_moves(self, player: str) -> list[Move]:
        """Every command ``player`` may send now that the referee would accept (see the module docstring for what
        is listed, and in which order); ``[]`` for an unknown player or when they can do nothing."""
        s = self._s
        seat = self._seats.get(player)
        if seat is None or s.phase == IDLE:
            return []
        moves: list[Move] = []
        pending = s.pending
        if pending is not None and pending["player"] == seat:
            moves.extend(self._answers(player, pending["kind"]))
        if s.phase != PLAYING:
            return moves
        if self._house and s.mode == "full":  # a house rule's plays out of order: a jump-in, an answer with a card
            for card in self._house_plays(seat):
                self._plays(player, card, moves)
        if pending is None:
            if s.owed:
                if s.owed[0][0] == seat:
                    moves.append({"type": "hit", "player": player})
            elif s.current == seat:
                self._turn_moves(seat, player, moves)
        if s.count(seat) <= 2 and not s.declared[seat]:
            moves.append({"type": "uno", "player": player})
        if s.uno_exposed >= 0 and s.uno_exposed != seat:
            moves.append({"type": "catch", "player": player, "target": s.players[s.uno_exposed]})
        return moves

    def _answers(self, player: str, kind: str) -> list[Move]:
        if kind == "challenge":
            if self._s.mode == "table":
                return [{"type": "accept", "player": player}] + [
                    {"type": "challenge", "player": player, "guilty": guilty} for guilty in (True, False)
                ]
            return [{"type": "accept", "player": player}, {"type": "challenge", "player": player}]
        if kind == "color":
            return [{"type": "choose", "player": player, "color": color} for color in COLORS]
        return [{"type": "choose", "player": player, "target": other} for other in self._others(player)]

    def _turn_moves(self, seat: int, player: str, moves: list[Move]) -> None:
        """The moves of the player whose turn it is, with nothing pending or owed."""
        if self._s.mode == "full":
            for card in self.playable_cards(seat):
                self._plays(player, card, moves)
        moves.append(self.no_play_move(player))

    def playable(self, player: str) -> list[str]:
        """The distinct cards ``player`` may put down now, sorted: :meth:`playable_cards` when it is their turn to
        play (nothing pending, no hits owed), else ``[]``. In ``table`` mode these are cards of the deck (the
        referee does not see the hands), which a dashboard offers while :meth:`legal_moves` lists no play.

        >>> from unolauncher.rules.referee import Referee
        >>> ref = Referee()
        >>> _ = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob"], "seed": 11})
        >>> ref.playable("ann"), ref.playable("bob")
        (['blue 6', 'blue skip', 'red 8', 'wild'], [])
        """
        s = self._s
        seat = self._seats.get(player)
        if seat is None or s.phase != PLAYING or s.pending is not None or s.owed or s.current != seat:
            return []
        return self.playable_cards(seat)

    def playable_cards(self, seat: int) -> list[str]:
        """The distinct cards ``seat`` may put down if it is their turn, sorted (a set's order would depend on string
        hashing): after a draw only the drawn card (MK-05); else the cards held (``full`` mode) or of the deck
        (``table`` mode) that match the top card and the colour in force (ATK-04, MK-05, as the
        :data:`~unolauncher.rules.cards.PLAYABLE_ON` table), never a Trade Hands as the last card (ATK-10).

        The one place that says which cards may be played: :meth:`legal_moves` and the dashboard's ``moves`` query
        build on it, and the bots call it on every simulated step (it stays a table lookup and one intersection).
        """
        s = self._s
        if s.drawn is not None:  # MK-05: after a draw, only the drawn card
            return [s.drawn]
        if s.mode == "full":  # the hot path: once per bot turn in a simulation
            hand = s.hands[seat]
            cards = sorted(PLAYABLE_ON[s.color][s.discard[-1]].intersection(hand))
            if s.house:  # a house rule holds something open (house_rules/): it may forbid some
                cards = [card for card in cards if self._house_allows(seat, card)]
            if cards and len(hand) == 1:
                return self._not_last(cards)
            return cards
        cards = sorted(PLAYABLE_ON[s.color][s.discard[-1]].intersection(self._rs.counts))
        if s.house:
            cards = [card for card in cards if self._house_allows(seat, card)]
        return self._not_last(cards) if s.table_counts[seat] <= 1 else cards

    def _not_last(self, cards: list[str]) -> list[str]:
        """ATK-10: Trade Hands (or a Wild Customizable acting as one, ATK-16) cannot be the last card."""
        actions = self._actions
        return [card for card in cards if ACTIONS[actions.get(CARD_INFO[card][1], "")].last]

    def no_play_move(self, player: str) -> Move:
        """The move of the player whose turn it is that plays no card: in UNO Attack a hit (a pass to end a
        Skip/Reverse chain, ATK-08); in the others a draw, and a pass once drawn (MK-05)."""
        s = self._s
        if self._rs.attack:
            return {"type": "pass" if s.chain else "hit", "player": player}
        return {"type": "pass" if s.drew else "draw", "player": player}

    def play_choices(self, card: str) -> tuple[bool, bool]:
        """(names a colour, names a target) when ``card`` is played in this game: every Wild but the Item Box names
        a colour (its colour comes from the turned card, MK-07); Attack-Attack and Trade Hands name another player
        (ATK-10, ATK-13), and so does a Wild Customizable acting as one of them (ATK-16)."""
        color, face = CARD_INFO[card]
        facts = ACTIONS[self._actions.get(face, "")]
        return color is None and facts.color, facts.target

    def _plays(self, player: str, card: str, moves: list[Move]) -> None:
        """One move per colour and target ``card`` needs (a card without either: one move)."""
        names_color, names_target = self.play_choices(card)
        colors: tuple[str | None, ...] = COLORS if names_color else (None,)
        targets: list[str | None] = self._others(player) if names_target else [None]
        for target in targets:
            for chosen in colors:
                move: Move = {"type": "play", "player": player, "card": card}
                if chosen is not None:
                    move["color"] = chosen
                if target is not None:
                    move["target"] = target
                moves.append(move)

    def _others(self, player: str) -> list[str | None]:
        return [name for name in self._s.players if name != player]
