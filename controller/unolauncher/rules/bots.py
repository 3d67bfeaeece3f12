"""Bot players for simulation and benchmarks: ``random`` (uniform over legal moves) and ``greedy``.

A bot looks at the referee's live state (``full`` mode) and returns the next command for whoever must act —
the current player, the player owing hits, or the player a pending choice waits for. What may be played comes from
the referee (:meth:`~unolauncher.rules.moves.LegalMoves.playable_cards`, ``no_play_move`` and ``play_choices``, the
functions :meth:`~unolauncher.rules.moves.LegalMoves.legal_moves` is built on), so the matching rule is not written
here; the bot only chooses. Bots use their own seeded RNG, never the referee's, so the referee's randomness is the
same whatever the bots do.

Example::

    >>> from unolauncher.rules.referee import Referee
    >>> ref = Referee()
    >>> _ = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["a", "b"], "seed": 3})
    >>> bot = Bot("random", seed=1)
    >>> cmd = bot.next_command(ref)
    >>> cmd["type"] in ("play", "draw", "choose", "accept", "challenge")
    True
"""

from __future__ import annotations

import random
from typing import Any

from unolauncher.rules.cards import CARD_INFO, COLORS, RULESETS
from unolauncher.rules.play import choosy_cards
from unolauncher.rules.referee import Referee
from unolauncher.rules.state import BETWEEN, PLAYING

STRATEGIES = ("random", "greedy")


class Bot:
    """A table's worth of bot players sharing one strategy (random-legal or greedy)."""

    def __init__(
        self, strategy: str = "random", seed: int = 0, uno_rate: float = 0.9, renege_rate: float = 0.0
    ) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
        self.strategy = strategy
        self.rng = random.Random(seed)
        self.uno_rate = uno_rate if strategy == "random" else 1.0
        self.renege_rate = renege_rate  # how often to draw/hit although a card could be played
        # The cards whose play may carry a colour or a target in the game being played (so may stand for several
        # legal moves; the action table says which): a hand without any takes the short way. Made again when the
        # referee's face -> action map changes (a new game, an undo).
        self._choosy: frozenset[str] = frozenset()
        self._choosy_of: object = None

    def next_command(self, ref: Referee) -> dict[str, Any] | None:
        """The next command to send, or ``None`` when the game is over (or nothing can be done)."""
        s = ref._s  # what ref.state returns, without a property call on every simulated step
        if s.phase != PLAYING:
            return {"type": "next_round"} if s.phase == BETWEEN else None
        players = s.players
        if s.house:  # a house rule holds something open (house_rules/): choose among what legal_moves lists
            return self._legal_pick(ref)
        if s.pending is not None:
            return self._answer(ref)
        if s.owed:
            return {"type": "hit", "player": players[s.owed[0][0]]}
        seat = s.current
        who = players[seat]
        # The distinct playable cards as legal_moves lists them, without a dict per move: this runs once per
        # simulated step.
        playable = ref.playable_cards(seat)
        rng = self.rng
        if ref._actions is not self._choosy_of:
            self._choosy, self._choosy_of = choosy_cards(ref._rs, ref._actions), ref._actions
        if not playable or (self.renege_rate and rng.random() < self.renege_rate):
            return ref.no_play_move(who)
        hand = s.hands[seat]
        if len(hand) == 2 and self.uno_rate and not s.declared[seat] and rng.random() < self.uno_rate:
            return {"type": "uno", "player": who}
        if self.strategy == "random":
            # Uniform over the distinct legal moves, as RLCard's random agent samples its legal action ids: two
            # copies of a card are one move, and a card that needs a colour or a target is one move per colour
            # and target. Only the (rare) hands holding such a card pay for the weighting.
            if self._choosy.isdisjoint(playable):
                card = playable[int(rng.random() * len(playable))]
                return {"type": "play", "player": who, "card": card}
            return self._weighted_play(ref, seat, playable)
        values = RULESETS[s.ruleset].values
        in_hand_order = [c for c in hand if c in playable]  # ties go to the first in the hand
        card = max(in_hand_order, key=lambda c: (CARD_INFO[c][0] is not None, values[c]))
        cmd: dict[str, Any] = {"type": "play", "player": who, "card": card}
        if card not in self._choosy:
            return cmd
        if CARD_INFO[card][0] is None:  # an Item Box too: the colour answers a Bob-omb before it asks (MK-12)
            cmd["color"] = self._color(hand, card)
        if ref.play_choices(card)[1]:
            cmd["target"] = players[self._target(ref, seat)]
        return cmd

    def _weighted_play(self, ref: Referee, seat: int, distinct: list[str]) -> dict[str, Any]:
        """Pick uniformly among every (card, colour, target) move the distinct playable cards allow."""
        s = ref.state
        others = len(s.players) - 1
        choices = [ref.play_choices(card) for card in distinct]
        weights = [(4 if names_color else 1) * (others if names_target else 1) for names_color, names_target in choices]
        pick = int(self.rng.random() * sum(weights))
        index = 0
        while pick >= weights[index]:
            pick -= weights[index]
            index += 1
        card = distinct[index]
        names_color, names_target = choices[index]
        cmd: dict[str, Any] = {"type": "play", "player": s.players[seat], "card": card}
        if names_target:
            target, pick = divmod(pick, 4 if names_color else 1)
            cmd["target"] = s.players[target if target < seat else target + 1]
        if names_color:
            cmd["color"] = COLORS[pick]
        return cmd

    def _legal_pick(self, ref: Referee) -> dict[str, Any] | None:
        """The acting player's move from ``legal_moves`` (without UNO calls and catches): uniform for random bots,
        the first card play for greedy ones (answering with a card rather than taking a penalty)."""
        s = ref._s
        seat = s.pending["player"] if s.pending is not None else s.owed[0][0] if s.owed else s.current
        moves = [m for m in ref.legal_moves(s.players[seat]) if m["type"] not in ("uno", "catch")]
        if not moves:
            return None
        if self.strategy == "greedy":
            return next((m for m in moves if m["type"] == "play"), moves[0])
        return moves[int(self.rng.random() * len(moves))]

    def _answer(self, ref: Referee) -> dict[str, Any] | None:
        s = ref.state
        assert s.pending is not None
        seat = s.pending["player"]
        who = s.players[seat]
        kind = s.pending["kind"]
        if kind == "challenge":  # random bots: both answers are legal moves, so each half the time
            rate = 0.5 if self.strategy == "random" else 0.25
            return {"type": "challenge" if self.rng.random() < rate else "accept", "player": who}
        if kind == "color":
            return {"type": "choose", "player": who, "color": self._color(s.hands[seat], None)}
        if kind == "target":
            return {"type": "choose", "player": who, "target": s.players[self._target(ref, seat)]}
        return None

    def catch(self, ref: Referee) -> dict[str, Any] | None:
        """If someone forgot to call UNO, another player may catch them (half the time for random bots)."""
        s = ref.state
        if s.uno_exposed < 0 or s.phase != PLAYING:
            return None
        if self.strategy == "random" and self.rng.random() < 0.5:
            return None
        catcher = (s.uno_exposed + 1 + self.rng.randrange(len(s.players) - 1)) % len(s.players)
        return {"type": "catch", "player": s.players[catcher], "target": s.players[s.uno_exposed]}

    # -- helpers --------------------------------------------------------------------------------------------
    def _color(self, hand: list[str], without: str | None) -> str:
        if self.strategy == "greedy":
            counts = dict.fromkeys(COLORS, 0)
            for card in hand:
                c = CARD_INFO[card][0]
                if c is not None and card != without:
                    counts[c] += 1
            return max(COLORS, key=lambda c: counts[c])
        return COLORS[int(self.rng.random() * 4)]

    def _target(self, ref: Referee, seat: int) -> int:
        s = ref.state
        others = [i for i in range(len(s.players)) if i != seat]
        if self.strategy == "greedy":
            return min(others, key=lambda i: (s.count(i), i))
        return others[self.rng.randrange(len(others))]


def play_game(ref: Referee, bot: Bot, max_steps: int = 100_000, catch: bool = True) -> tuple[int, list[dict[str, Any]]]:
    """Drive a started game to its end; returns (accepted steps, events). Stops after ``max_steps``."""
    steps = 0
    events: list[dict[str, Any]] = []
    while steps < max_steps:
        cmd = bot.next_command(ref)
        if cmd is None:
            break
        out = ref.handle(cmd)
        events.extend(out)
        if out and out[0]["type"] == "rejected":
            raise RuntimeError(f"bot made an illegal move: {out[0]}")
        steps += 1
        if catch:
            caught = bot.catch(ref)
            if caught is not None:
                events.extend(ref.handle(caught))
                steps += 1
    return steps, events
