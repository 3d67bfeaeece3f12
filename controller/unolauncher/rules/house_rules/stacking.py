"""The ``stacking`` house rule (docs/rules.md, "HR-ST stacking"): a penalty card answered with another passes the
summed penalty on; the player who cannot or will not answer takes it all.

- ``stacking`` (HR-ST-1, HR-ST-3): a Draw Two on a Draw Two (classic, Mario Kart) adds 2 cards to the stack and
  passes it to the next player, who answers with a Draw Two or ``draw``s the whole sum (and loses the turn, as
  MK-06's victim). In UNO Attack a Hit 2 on a Hit 2 stacks the hits: the player owing a Hit 2's hits may, before
  the first hit, play a Hit 2 instead, and the next player owes the sum, taken by presses as any owed hits.
- ``stacking_wd4`` (HR-ST-2): a Wild Draw Four on a Wild Draw Four (the answer to the pending challenge) adds 4;
  only the last victim may challenge, and only the last Wild Draw Four. Guilty: its player takes the whole stack;
  not guilty: the challenger takes it plus 2 (MK-14's 4 and 6 when nothing was stacked).

The kinds never mix; a penalty card that is its player's last card ends the stack (the next player takes the sum).
The open stack is the state's ``house["stacking"]``: ``{"kind", "player", "cards"}`` (``"hits"`` for a Hit 2),
absent when nothing is stacked, so games without the rule keep their exact JSON.

Example::

    >>> from collections import Counter
    >>> from unolauncher.rules.cards import DECKS
    >>> from unolauncher.rules.referee import Referee
    >>> ref = Referee()
    >>> hands = {"ann": ["red draw-2", "red 1"], "bob": ["blue draw-2", "blue 1"], "cy": ["green 1", "green 2"]}
    >>> stock = sorted((Counter(DECKS["classic"]) - Counter(["red 5", *sum(hands.values(), [])])).elements())
    >>> _ = ref.handle({"type": "new_game", "ruleset": "classic", "players": ["ann", "bob", "cy"],
    ...                 "options": {"stacking": True},
    ...                 "deal": {"dealer": "cy", "hands": hands, "starter": "red 5", "stock": stock}})
    >>> _ = ref.handle({"type": "play", "player": "ann", "card": "red draw-2"})
    >>> _ = ref.handle({"type": "play", "player": "bob", "card": "blue draw-2"})
    >>> ref.public_state()["house"]
    {'stacking': {'kind': 'draw-2', 'player': 'cy', 'cards': 4}}
    >>> [e["count"] for e in ref.handle({"type": "draw", "player": "cy"}) if e["type"] == "drew"]
    [4]
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.cards import CARD_INFO, matches
from unolauncher.rules.checks import Option, boolean
from unolauncher.rules.house_banner import Banner
from unolauncher.rules.house_rules import HouseRule
from unolauncher.rules.play_context import PlayContext
from unolauncher.rules.refusal import Event

NAME = "stacking"
DRAW_TWO, WILD_DRAW_FOUR, HIT_TWO = "draw-2", "wild draw-4", "hit-2"
ADDS = {DRAW_TWO: 2, WILD_DRAW_FOUR: 4, HIT_TWO: 2}


class Stacking(HouseRule):
    """HR-ST: Draw Two / Hit 2 stacking (``stacking``), Wild Draw Four stacking (``stacking_wd4``)."""

    name = NAME
    options = (
        Option("stacking", False, boolean, "HR-ST house rule: a Draw Two on a Draw Two (UNO Attack: a Hit 2 on a Hit "
               "2) passes the summed penalty to the next player; who cannot or will not stack takes it all",
               optional=True, setup="stacking"),
        Option("stacking_wd4", False, boolean, "HR-ST-2 house rule: a Wild Draw Four on a Wild Draw Four passes the "
               "summed draw on; only the last victim may challenge, and only the last one",
               optional=True, rulesets=("classic", "mario-kart"), setup="stacking_wd4"),
    )  # fmt: skip

    # -- who may answer, with what ----------------------------------------------------------------------------
    def may_play(self, ref: Any, seat: int, card: str) -> bool:
        """An answer with a card although a choice is pending (the Wild Draw Four's challenge) or hits are owed (a
        Hit 2's): the turn checks would refuse it; the play's other checks follow."""
        face = CARD_INFO[card][1] if card in CARD_INFO else ""
        return face in (WILD_DRAW_FOUR, HIT_TWO) and self._answerable(ref, seat) == face

    def refusal(self, ref: Any, seat: int, card: str) -> tuple[str, str] | None:
        """A Draw Two stack on its player's turn: only a Draw Two answers it (else they draw the sum)."""
        stack = ref._s.house.get(NAME)
        if stack is None or stack["kind"] != DRAW_TWO or CARD_INFO[card][1] == DRAW_TWO:
            return None
        if ref._seats.get(stack["player"]) != seat:
            return None
        cards = stack["cards"]
        return "card_does_not_match", f"Only a Draw Two answers the Draw Two stack; else draw its {cards} cards."

    def plays(self, ref: Any, seat: int) -> list[str]:
        """The cards of ``seat``'s hand that answer a Wild Draw Four or a Hit 2 now (legal_moves lists them)."""
        face = self._answerable(ref, seat)
        if face is None:
            return []
        s = ref._s
        return [c for c in set(s.hands[seat]) if CARD_INFO[c][1] == face and matches(c, s.color, s.discard[-1])]

    def _answerable(self, ref: Any, seat: int) -> str | None:
        """The face ``seat`` may answer with out of the usual turn checks now, or ``None``."""
        s = ref._s
        if s.phase != "playing":
            return None
        pending = s.pending
        if pending is not None:  # HR-ST-2: the victim of a Wild Draw Four, before they accept or challenge
            if pending["kind"] == "challenge" and pending["player"] == seat and s.options.get("stacking_wd4"):
                return WILD_DRAW_FOUR
            return None
        stack = s.house.get(NAME)
        # HR-ST-3: a Hit 2's victim before their first hit, when nothing else is owed
        if stack is None or stack["kind"] != HIT_TWO or len(s.owed) != 1:
            return None
        return HIT_TWO if s.owed[0] == [seat, stack["hits"], 0] and ref._seats.get(stack["player"]) == seat else None

    # -- what a penalty card does ---------------------------------------------------------------------------
    def effect(self, ref: Any, play: PlayContext, events: list[Event]) -> bool:
        s = ref._s
        seat, face, out = play.seat, play.face, play.out
        options = s.options
        if face == HIT_TWO and ref._rs.attack and options.get("stacking"):
            self._hit_two(ref, seat, out, events)
            return True
        if ref._rs.attack or face not in (DRAW_TWO, WILD_DRAW_FOUR):
            return False
        if not options.get("stacking" if face == DRAW_TWO else "stacking_wd4"):
            return False
        stack = s.house.pop(NAME, None)
        cards = ADDS[face] + (stack["cards"] if stack is not None and stack["kind"] == face else 0)
        nxt = s.step(seat)
        if face == WILD_DRAW_FOUR:
            s.pending = s.wd4 = None  # an answer: the challenge of the Wild Draw Four answered is gone (HR-ST-2)
        if out:  # HR-ST-4: a last card ends the stack, the next player takes the sum (no challenge, as MK-13)
            ref._draw(nxt, cards, events)
            return True
        s.house[NAME] = {"kind": face, "player": s.players[nxt], "cards": cards}
        if face == DRAW_TWO:
            ref._pass_turn(seat, 0, events)  # the next player answers or draws the sum
            return True
        guilty: bool | None = None  # MK-13/14, judged on this card alone: the last Wild Draw Four
        if s.mode == "full":
            guilty = play.prev_color is not None and any(CARD_INFO[c][0] == play.prev_color for c in s.hands[seat])
        s.wd4 = {"by": seat, "guilty": guilty}
        s.current = nxt
        s.pending = {"kind": "challenge", "player": nxt, "by": seat}
        events.append({"type": "pending", "kind": "challenge", "player": s.players[nxt], "by": s.players[seat]})
        return True

    def _hit_two(self, ref: Any, seat: int, out: bool, events: list[Event]) -> None:
        """HR-ST-3: a Hit 2 in UNO Attack; on a Hit 2 whose hits its player owed, the next player owes the sum."""
        s = ref._s
        stack = s.house.pop(NAME, None)
        if stack is not None and s.owed and s.owed[0][0] == seat:  # an answer (may_play checked it)
            s.owed.pop(0)
            hits = stack["hits"] + 2
            victim = s.step(seat)
        else:  # as ATK-11 (attack.py): after a Skip/Reverse chain its skips count
            skips, hits = s.chain_skips, 2
            for k in range(1, skips + 1):
                events.append({"type": "skipped", "player": s.players[s.step(seat, k)]})
            nxt = s.step(seat, 1 + skips)
            victim = nxt if nxt != seat else s.step(seat)
        s.chain, s.chain_skips = False, 0
        s.resume = s.step(victim)
        ref._add_owed(victim, hits, False, events, front=False)
        if not out:  # HR-ST-4: after its player went out, the hits are only taken (ATK-19)
            s.house[NAME] = {"kind": HIT_TWO, "player": s.players[victim], "hits": hits}

    # -- taking the stack ---------------------------------------------------------------------------------
    def no_play(self, ref: Any, seat: int, kind: str, cmd: dict[str, Any], events: list[Event]) -> bool:
        s = ref._s
        stack = s.house.get(NAME)
        if stack is None or ref._seats.get(stack["player"]) != seat:
            return False
        if kind == "hit":  # the first hit: the victim takes the hits, the stack is closed
            del s.house[NAME]
            return False
        if kind not in ("draw", "accept", "challenge") or (kind == "draw") != (stack["kind"] == DRAW_TWO):
            return False
        del s.house[NAME]
        cards = stack["cards"]
        ref._close_exposure(seat)
        if kind == "challenge":
            by = s.wd4["by"]
            s.pending = s.wd4 = None
            if cmd["guilty"]:  # HR-ST-2: the last Wild Draw Four was played illegally: its player takes the stack
                ref._draw(by, cards, events)
                s.current = seat
                events.append({"type": "turn", "player": s.players[seat]})
                return True
            cards += 2  # MK-14: a failed challenge costs two more
        s.pending = s.wd4 = None
        ref._draw(seat, cards, events)
        events.append({"type": "skipped", "player": s.players[seat]})
        ref._pass_turn(seat, 0, events)
        return True

    # -- the phone's banner -------------------------------------------------------------------------------
    def banner(self) -> tuple[Banner, ...]:
        """Who answers the open stack, with what card, or how many hits (UNO Attack) or cards they take."""
        fields = {"player": "player", "card": "kind"}
        return (
            Banner("banner.stack_hits", {**fields, "count": "hits"}, faces=("card",), when="hits", tone="hit"),
            Banner("banner.stack_draw", {**fields, "count": "cards"}, faces=("card",), when="cards"),
        )


RULE = Stacking()
