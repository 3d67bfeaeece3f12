"""Bot players for simulation and benchmarks: ``random`` (uniform over legal moves) and ``greedy``.

A bot looks at the referee's live state (``full`` mode) and returns the next command for whoever must act —
the current player, the player owing hits, or the player a pending choice waits for. Bots use their own seeded
RNG, never the referee's, so the referee's randomness is the same whatever the bots do.

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

from unolauncher.rules.cards import CARD_INFO, COLORS, PLAYABLE_ON, RULESETS
from unolauncher.rules.referee import Referee
from unolauncher.rules.state import BETWEEN, PLAYING

STRATEGIES = ("random", "greedy")
_TARGETED = {"wild attack-attack", "blue trade-hands", "red trade-hands", "green trade-hands", "yellow trade-hands"}


# Cards whose play carries a colour or a target, so they stand for several legal moves (see Bot._weighted_play).
_CHOOSY = frozenset(c for c, (color, _) in CARD_INFO.items() if color is None) | _TARGETED


def _needs_color(card: str) -> bool:
    return CARD_INFO[card][0] is None and card != "wild item-box"


def _targeted(s: Any, card: str) -> bool:
    return card in _TARGETED or (card == "wild customizable" and s.options["customizable"] is not None)


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

    def next_command(self, ref: Referee) -> dict[str, Any] | None:
        """The next command to send, or ``None`` when the game is over (or nothing can be done)."""
        s = ref._s  # what ref.state returns, without a property call on every simulated step
        if s.phase != PLAYING:
            return {"type": "next_round"} if s.phase == BETWEEN else None
        players = s.players
        if s.pending is not None:
            return self._answer(ref)
        if s.owed:
            return {"type": "hit", "player": players[s.owed[0][0]]}
        seat = s.current
        who = players[seat]
        hand = s.hands[seat]
        # The distinct playable cards, sorted so the choice is reproducible (a set's order depends on string
        # hashing): Referee.legal_moves lists them the same way, but a bot does not need a dict per move, and this
        # runs once per simulated step.
        if s.drawn is not None:
            playable = [s.drawn]
        else:
            playable = sorted(PLAYABLE_ON[s.color][s.discard[-1]].intersection(hand))
            if len(hand) == 1 and playable and playable[0].endswith("trade-hands"):
                playable = []  # ATK-10
        rng = self.rng
        if not playable or (self.renege_rate and rng.random() < self.renege_rate):
            if RULESETS[s.ruleset].attack:
                return {"type": "pass" if s.chain else "hit", "player": who}
            return {"type": "pass" if s.drew else "draw", "player": who}
        if len(hand) == 2 and self.uno_rate and not s.declared[seat] and rng.random() < self.uno_rate:
            return {"type": "uno", "player": who}
        if self.strategy == "random":
            # Uniform over the distinct legal moves, as RLCard's random agent samples its legal action ids: two
            # copies of a card are one move, and a card that needs a colour or a target is one move per colour
            # and target. Only the (rare) hands holding such a card pay for the weighting.
            if _CHOOSY.isdisjoint(playable):
                card = playable[int(rng.random() * len(playable))]
                return {"type": "play", "player": who, "card": card}
            return self._weighted_play(ref, seat, playable)
        values = RULESETS[s.ruleset].values
        in_hand_order = [c for c in hand if c in playable]  # ties go to the first in the hand
        card = max(in_hand_order, key=lambda c: (CARD_INFO[c][0] is not None, values[c]))
        if CARD_INFO[card][0] is not None and card not in _TARGETED:
            return {"type": "play", "player": who, "card": card}
        cmd: dict[str, Any] = {"type": "play", "player": who, "card": card}
        if CARD_INFO[card][0] is None:
            cmd["color"] = self._color(hand, card)
        if _targeted(s, card):
            cmd["target"] = players[self._target(ref, seat)]
        return cmd

    def _weighted_play(self, ref: Referee, seat: int, distinct: list[str]) -> dict[str, Any]:
        """Pick uniformly among every (card, colour, target) move the distinct playable cards allow."""
        s = ref.state
        others = len(s.players) - 1
        weights = [(4 if _needs_color(card) else 1) * (others if _targeted(s, card) else 1) for card in distinct]
        pick = int(self.rng.random() * sum(weights))
        index = 0
        while pick >= weights[index]:
            pick -= weights[index]
            index += 1
        card = distinct[index]
        cmd: dict[str, Any] = {"type": "play", "player": s.players[seat], "card": card}
        if _targeted(s, card):
            target, pick = divmod(pick, 4 if _needs_color(card) else 1)
            cmd["target"] = s.players[target if target < seat else target + 1]
        if _needs_color(card):
            cmd["color"] = COLORS[pick]
        return cmd

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
