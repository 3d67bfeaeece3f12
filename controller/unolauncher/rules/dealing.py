"""Starting a round: choosing the dealer (MK-02: highest draw deals, ties draw again; later rounds the deal passes
left), dealing the hands one card at a time from the left of the dealer, turning the starter (MK-03: never a Wild
Draw Four) and its effect on the first player (ATK-17 for UNO Attack, MK-03/04 for Mario Kart and classic), rigged
deals for tests and table mode, and the ``next_round`` command.
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.attack import AttackRules
from unolauncher.rules.cards import CARD_INFO, dealer_draw_value
from unolauncher.rules.refusal import Event, refuse
from unolauncher.rules.state import BETWEEN, OVER, PLAYING, SCORING
from unolauncher.rules.stock import shuffled_deck
from unolauncher.rules.validation import validate_deal, validate_secret


class Dealing(AttackRules):
    """Dealer choice, dealing, the starter card and the next_round command."""

    def _choose_dealer(self, deal: Any, events: list[Event]) -> int:
        s = self._s
        if isinstance(deal, dict) and "dealer" in deal:
            return self._seats[deal["dealer"]]
        if s.mode == "table":
            return len(s.players) - 1  # documented: the first listed player plays first
        # MK-02 (used by every rule set): each player draws; highest deals; ties draw again.
        deck = shuffled_deck(s.rng, self._rs.deck)
        contenders = list(range(len(s.players)))
        draws: dict[str, list[str]] = {name: [] for name in s.players}
        while True:
            values = {}
            for seat in contenders:
                card = deck.pop()
                draws[s.players[seat]].append(card)
                values[seat] = dealer_draw_value(card)
            best = max(values.values())
            contenders = [seat for seat in contenders if values[seat] == best]
            if len(contenders) == 1 or len(deck) < len(contenders):
                break
        dealer = contenders[0]
        events.append({"type": "dealer_chosen", "dealer": s.players[dealer], "draws": draws})
        return dealer

    def _cmd_next_round(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._s
        if s.phase != BETWEEN:
            if s.phase == PLAYING:
                refuse("round_in_progress", "The round is still being played.")
            if s.phase == SCORING:
                refuse("score_required", "Report the hands with a score command first.")
            if s.phase == OVER:
                refuse("game_over", "The game is over; start a new one with new_game.")
            refuse("no_game", "No game is running; start one with new_game.")
        deal = cmd.get("deal")
        validate_deal(deal, self._rs, s.players, s.mode, s.options)
        if s.mode == "table" and not (isinstance(deal, dict) and "starter" in deal):
            # The real cards are on the table: a starter the referee made up would not be the one the table turned.
            refuse("starter_required", "Say which card was turned up to start the round (deal.starter).")
        validate_secret(cmd)
        events: list[Event] = []
        if isinstance(deal, dict) and "dealer" in deal:
            dealer = self._seats[deal["dealer"]]
        else:
            dealer = (s.dealer + 1) % len(s.players)  # MK-02: later rounds the deal passes to the left
        self._start_round(dealer, deal, events, cmd.get("secret"))
        return events

    def _start_round(self, dealer: int, deal: Any, events: list[Event], secret: Any) -> None:
        """Deal a round; its launcher commitment (keyed by ``secret``, the daemon's draw) goes in ``round_started``."""
        s, rs = self._s, self._rs
        n = len(s.players)
        hand_size = s.options["hand_size"]
        s.phase = PLAYING
        s.round += 1
        s.dealer = dealer
        s.direction = 1
        s.owed, s.resume, s.chain, s.chain_skips = [], -1, False, 0
        s.drew, s.drawn, s.pending, s.wd4 = False, None, None, None
        s.house = {}  # nothing a house rule kept open outlives its round
        s.declared, s.uno_exposed, s.round_winner = [False] * n, -1, -1
        s.last_player = s.before_last = -1
        s.reload_pending = False
        rigged = isinstance(deal, dict)
        if s.mode == "full":
            if rigged and "hands" in deal:
                s.hands = [list(deal["hands"][name]) for name in s.players]
                starter = deal["starter"]
                s.stock = list(reversed(deal["stock"]))
            else:
                deck = shuffled_deck(s.rng, rs.deck)
                # One card at a time from the top (the end of the list), starting left of the dealer: the t-th card
                # dealt is top[t] and goes to seat dealer + 1 + t % n. Slices do the same without a loop.
                dealt = n * hand_size
                top = deck[len(deck) - dealt :][::-1]
                del deck[len(deck) - dealt :]
                s.hands = [top[(seat - dealer - 1) % n :: n] for seat in range(n)]
                starter = self._turn_starter(deck)
                s.stock = deck
            s.table_counts = []
        else:
            counts = deal.get("hands") if rigged else None
            s.table_counts = [counts[name] for name in s.players] if counts else [hand_size] * n
            if rigged and "starter" in deal:
                starter = deal["starter"]
            else:
                deck = shuffled_deck(s.rng, rs.deck)
                starter = self._turn_starter(deck)
            s.table_stock = max(0, len(rs.deck) - sum(s.table_counts) - 1)
            s.hands = []
        s.discard = [starter]
        color, face = CARD_INFO[starter]
        s.color = color
        self._reveal("replaced", events)  # free play between rounds ends here (a round's epoch closed already)
        started: Event = {
            "type": "round_started",
            "round": s.round,
            "dealer": s.players[dealer],
            "starter": starter,
            "hands": {name: s.count(i) for i, name in enumerate(s.players)},
        }
        chosen = rigged and s.mode == "full" and "hands" in deal  # the sender chose every card: a rigged round
        started.update(
            self._stream.open(
                s.options, secret, s.ejection_seed, rigged_game=s.rigged, round_no=s.round, chosen_deal=chosen
            )
        )
        events.append(started)
        first = s.step(dealer)
        if rs.attack:  # ATK-17
            if face == "skip":
                events.append({"type": "skipped", "player": s.players[first]})
                s.current = s.step(first)
            elif face == "reverse":
                s.direction = -1
                events.append({"type": "direction", "direction": -1})
                if n == 2:  # ATK-07: Reverse acts as Skip
                    events.append({"type": "skipped", "player": s.players[first]})
                    s.current = dealer
                else:
                    s.current = s.step(dealer)
            elif face == "hit-2":  # ATK-11
                s.resume = s.step(first)
                self._add_owed(first, 2, False, events, front=False)
            else:
                s.current = first
        else:  # MK-03, MK-04
            s.current = first
            if color is None:  # Wild Item Box (dealer names the colour) / classic Wild (first player names it)
                chooser = dealer if face == "wild item-box" else first
                s.pending = {"kind": "color", "player": chooser, "reason": "start"}
                events.append({"type": "pending", "kind": "color", "player": s.players[chooser], "reason": "start"})
                return
            if face == "reverse":
                s.direction = -1
                events.append({"type": "direction", "direction": -1})
                s.current = dealer
            elif face == "draw-2":
                self._draw(first, 2, events)
                events.append({"type": "skipped", "player": s.players[first]})
                s.current = s.step(first)
            elif face == "skip":
                events.append({"type": "skipped", "player": s.players[first]})
                s.current = s.step(first)
        if not s.owed:
            events.append({"type": "turn", "player": s.players[s.current]})

    def _turn_starter(self, deck: list[str]) -> str:
        starter = deck.pop()
        while starter == "wild draw-4" and any(card != "wild draw-4" for card in deck):
            # MK-03 (and classic): a Wild Draw Four is shuffled back and another card turned.
            deck.insert(self._s.rng.randrange(len(deck) + 1), starter)
            starter = deck.pop()
        return starter
