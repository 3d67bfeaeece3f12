"""The stock and the launcher: moving cards from the stock (or out of the launcher) into a hand, the stock draw
that emits ``dispense``/``drew`` (MK-05, MK-06, MK-13/14, MK-15), reshuffling the discard pile into a new stock
(MK-18) or reloading the launcher with it (ATK-21), and the seeded Fisher–Yates shuffle every deal and reshuffle
uses.

Example::

    >>> import random
    >>> shuffled_deck(random.Random(1), ["a", "b", "c"]) == shuffled_deck(random.Random(1), ["a", "b", "c"])
    True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import repeat, starmap
from math import floor
from operator import mul

from unolauncher.rules.refusal import Event
from unolauncher.rules.turns import TurnOrder


class Stock(TurnOrder):
    """Taking cards from the stock or the launcher; reshuffle and reload."""

    def _cards_available(self) -> bool:
        s = self._s
        return s.stock_size() > 0 or len(s.discard) > 1

    def _take(self, seat: int, count: int, events: list[Event], hit: bool = False) -> int:
        """Move ``count`` cards from the stock/launcher to a hand; returns how many actually moved."""
        s = self._s
        attack = self._rs.attack
        if s.mode == "full":
            hand, stock = s.hands[seat], s.stock
            got = 0
            while got < count:
                if not stock:
                    if attack:
                        break  # a launcher cannot eject more cards than it holds
                    self._reshuffle(events)  # MK-18: the table reshuffles in the middle of a draw
                    stock = s.stock
                    if not stock:
                        break
                hand.append(stock.pop())
                got += 1
            if attack and not stock:
                self._reshuffle(events)  # ATK-21: the launcher is reloaded as soon as it is empty
        else:
            got = count
            s.table_counts[seat] += count
            if not attack and s.table_stock < count:
                self._reshuffle(events)
            s.table_stock = max(0, s.table_stock - count)
            if attack and s.table_stock == 0 and not s.reload_pending and hit:
                s.reload_pending = True
                events.append({"type": "reload_request", "discard": len(s.discard) - 1})
        if got:
            s.declared[seat] = False
            if s.uno_exposed == seat:
                s.uno_exposed = -1
        return got

    def _reshuffle(self, events: list[Event]) -> None:
        """ATK-21 / MK-18: everything under the discard top is shuffled into a new stock."""
        s = self._s
        if len(s.discard) <= 1:
            return
        under = s.discard[:-1]
        s.discard = s.discard[-1:]
        if s.mode == "full":
            under = shuffled_deck(s.rng, under)
            s.stock = under + s.stock
        else:
            s.table_stock += len(under)
        if self._rs.attack:
            if s.mode == "full":
                events.append({"type": "reload_request", "discard": len(under)})
            events.append({"type": "reloaded", "cards": len(under)})
            lid = self._stream.lid()  # reloading means opening the lid: the sequence count restarts
            if lid is not None:
                events.append(lid)
        else:
            events.append({"type": "reshuffled", "cards": len(under)})

    def _draw(self, seat: int, count: int, events: list[Event]) -> int:
        """A stock draw (MK/classic): emits ``dispense`` then ``drew``; a reshuffle the draw needs (MK-18) comes
        first, so that no event lists a card before the event that put it into the stock."""
        s = self._s
        got = self._take(seat, count, events)  # appends ``reshuffled`` if the stock ran out
        events.append({"type": "dispense", "player": s.players[seat], "count": count})
        drew: Event = {"type": "drew", "player": s.players[seat], "count": got}
        if s.mode == "full" and got:
            drew["cards"] = s.hands[seat][-got:]
        events.append(drew)
        return got


def shuffled_deck(rng: random.Random, cards: Sequence[str]) -> list[str]:
    """A shuffled copy: Fisher–Yates driven by ``rng.random()`` (about twice as fast as ``rng.shuffle``; the
    bias of ``int(random() * n)`` for n ≤ 112 is below 2**-45)."""
    deck = list(cards)
    n = len(deck)
    # The same draws in the same order as `for i in range(n - 1, 0, -1): j = int(rng.random() * (i + 1))`, with
    # the draws and the products made by C iterators; only the swaps remain a Python loop. The factors are floats
    # (the same products: a float times an int converts the int exactly first) and floor() of a positive float is
    # int(); both cost about half as much as an int factor and int().
    factors = _FACTORS[_MAX_FACTOR - n :] if n <= _MAX_FACTOR else [float(k) for k in range(n, 1, -1)]
    draws = starmap(rng.random, repeat((), n - 1))
    for i, j in zip(range(n - 1, 0, -1), map(floor, map(mul, draws, factors))):
        deck[i], deck[j] = deck[j], deck[i]
    return deck


_MAX_FACTOR = 256  # every deck and discard pile is smaller (112 cards at most)
_FACTORS: tuple[float, ...] = tuple(float(k) for k in range(_MAX_FACTOR, 1, -1))  # n, n - 1, ..., 2 for any n
