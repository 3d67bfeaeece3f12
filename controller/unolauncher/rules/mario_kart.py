"""UNO Mario Kart and classic UNO, the draw rules: action-card effects (MK-06 Draw Two, Skip, Reverse), the Wild
Item Box and its items (MK-07..12: Mushroom, Banana, Green Shell, Lightning, Bob-omb), the Wild Draw Four and its
challenge (MK-13/14), pending choices (a colour, a Green Shell target) and the commands that answer them
(``accept``, ``challenge``, ``choose``), and the ``draw`` command (MK-05: play the drawn card or pass).
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.cards import CARD_INFO, ITEMS, PLAYABLE_ON, matches
from unolauncher.rules.refusal import Event, refuse
from unolauncher.rules.schema import MAX_NAME
from unolauncher.rules.scoring import Scoring
from unolauncher.rules.state import IDLE, PLAYING, GameState
from unolauncher.rules.stock import Stock
from unolauncher.rules.validation import is_color


class MarioKartRules(Stock, Scoring):
    """Mario Kart / classic card effects, items, the WD4 challenge, pending choices and the draw command."""

    def _draw_rules_effect(self, seat: int, face: str, prev_color: str | None, out: bool, events: list[Event]) -> None:
        """A Skip, Reverse, Draw Two, Wild Draw Four or plain Wild (the Item Box is :meth:`_item_box`)."""
        s = self._s
        n = len(s.players)
        nxt = (seat + s.direction) % n  # s.step(seat), inlined: this runs for every action card and Wild
        if face == "skip":
            if not out:
                events.append({"type": "skipped", "player": s.players[nxt]})
                self._pass_turn(seat, 1, events, False)
        elif face == "reverse":
            s.direction = -s.direction
            events.append({"type": "direction", "direction": s.direction})
            if not out:
                skips = 1 if n == 2 else 0
                if skips:
                    events.append({"type": "skipped", "player": s.players[(seat + s.direction) % n]})
                self._pass_turn(seat, skips, events, False)
        elif face == "draw-2":  # MK-06, MK-16
            self._draw(nxt, 2, events)
            if not out:
                events.append({"type": "skipped", "player": s.players[nxt]})
                self._pass_turn(seat, 1, events, False)
        elif face == "wild draw-4":  # MK-13
            if out:
                self._draw(nxt, 4, events)  # documented: no challenge against an empty hand
                return
            guilty: bool | None = None
            if s.mode == "full":
                guilty = prev_color is not None and any(CARD_INFO[c][0] == prev_color for c in s.hands[seat])
            s.wd4 = {"by": seat, "guilty": guilty}
            s.current = nxt
            s.pending = {"kind": "challenge", "player": nxt, "by": seat}
            events.append({"type": "pending", "kind": "challenge", "player": s.players[nxt], "by": s.players[seat]})
        elif not out:
            self._pass_turn(seat, 0, events)

    def _item_box(self, seat: int, turned: str | None, cmd: dict[str, Any], out: bool, events: list[Event]) -> None:
        s = self._s
        if s.mode == "full":
            if not s.stock:
                self._reshuffle(events)
            if s.stock:
                turned = s.stock.pop()
        elif turned is not None:
            if s.table_stock == 0:
                self._reshuffle(events)  # MK-18: as in full mode, the card was turned from a reshuffled stock
            s.table_stock = max(0, s.table_stock - 1)
        if turned is None:  # documented: nothing left to turn, the player names the colour
            if not out:
                self._ask(seat, "color", "item-box", cmd, events)
            return
        color, _ = CARD_INFO[turned]
        item = ITEMS[color]
        s.discard.append(turned)
        s.color = color
        events.append({"type": "item", "player": s.players[seat], "card": turned, "item": item, "color": color})
        if item == "mushroom":  # MK-08
            if not out:
                self._another_turn(seat, events)
        elif item == "banana":  # MK-09: whoever took the turn before this player's (consecutive turns count once)
            victim = s.before_last
            if victim >= 0 and victim != seat:
                self._draw(victim, 2, events)
            if not out:
                self._pass_turn(seat, 0, events)
        elif item == "green-shell":  # MK-10
            self._ask(seat, "target", "green-shell", cmd, events)
        elif item == "lightning":  # MK-11
            for k in range(1, len(s.players)):
                self._draw(s.step(seat, k), 1, events)
            if not out:
                self._another_turn(seat, events)
        elif not out:  # MK-12 Bob-omb (documented: no effect when the Item Box was the last card)
            self._draw(seat, 2, events)
            self._ask(seat, "color", "bob-omb", cmd, events)

    def _another_turn(self, seat: int, events: list[Event]) -> None:
        s = self._s
        s.drew, s.drawn = False, None
        s.current = seat
        events.append({"type": "turn", "player": s.players[seat], "again": True})

    def _ask(self, seat: int, kind: str, reason: str, cmd: dict[str, Any], events: list[Event]) -> None:
        """Resolve a choice from the play command if it carried the answer, else make it pending."""
        s = self._s
        answer = cmd.get(kind)
        if kind == "color" and is_color(answer):
            self._resolve_choice(seat, kind, reason, answer, events)
            return
        if kind == "target" and type(answer) is str and answer in self._seats and self._seats[answer] != seat:
            self._resolve_choice(seat, kind, reason, self._seats[answer], events)
            return
        s.current = seat
        s.pending = {"kind": kind, "player": seat, "reason": reason}
        events.append({"type": "pending", "kind": kind, "player": s.players[seat], "reason": reason})

    def _resolve_choice(self, seat: int, kind: str, reason: str, answer: Any, events: list[Event]) -> None:
        s = self._s
        s.pending = None
        if kind == "color":
            s.color = answer
            events.append({"type": "color_chosen", "player": s.players[seat], "color": answer})
            if reason == "start":
                events.append({"type": "turn", "player": s.players[s.current]})
                return
        else:  # Green Shell
            events.append({"type": "target_chosen", "player": s.players[seat], "target": s.players[answer]})
            self._draw(answer, 1, events)
        if s.round_winner >= 0:
            self._end_round(events)
        else:
            self._pass_turn(seat, 0, events)

    def _fast_draw(self, cmd: dict[str, Any]) -> list[Event] | None:
        """A legal draw in full mode with cards in the stock, when the command is exactly ``{type, player}``: the
        schema's check for that shape (a known player's name, within the length limit) and :meth:`_cmd_draw`'s in
        one go, then the draw; ``None`` (nothing changed) for anything else. ``Referee.handle`` runs it before the
        schema check (see ``CardPlay._fast_play``); an empty fast-path table (table mode) turns it off too."""
        s = self._s
        name = cmd.get("player")
        if (
            type(name) is not str
            or len(cmd) != 2
            or len(name) > MAX_NAME
            or s.phase != PLAYING
            or s.pending is not None
            or s.drew
            or not s.stock
            or self._rs.attack
            or s.house
            or not self._quick
            or self._seats.get(name, -1) != s.current
        ):
            return None
        seat = s.current
        if s.uno_exposed >= 0 and (s.uno_exposed == seat or s.uno_next < 0 or s.uno_next == seat):
            s.uno_exposed = -1  # the next player started, or the exposed player now holds two cards
        card = s.stock.pop()
        s.hands[seat].append(card)
        s.declared[seat] = False
        s.drew = True
        if s.last_player != seat:  # self._took_turn(seat), inlined on the fast path (MK-09)
            s.before_last = s.last_player
            s.last_player = seat
        events: list[Event] = [
            {"type": "dispense", "player": name, "count": 1},
            {"type": "drew", "player": name, "count": 1, "cards": [card]},
        ]
        if card in PLAYABLE_ON[s.color][s.discard[-1]]:  # cards.matches, as a table
            s.drawn = card
        else:  # MK-05: not playable, the turn ends (_pass_turn(seat, 0, events), inlined)
            s.chain, s.chain_skips, s.drew, s.drawn = False, 0, False, None
            s.current = nxt = (seat + s.direction) % len(s.players)
            events.append({"type": "turn", "player": s.players[nxt]})
        return events

    def _cmd_draw(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        if self._rs.attack:
            refuse("use_hit", "In UNO Attack you hit the launcher instead of drawing.")
        seat = self._seat(cmd)
        self._require_turn(seat)  # owed hits exist only in UNO Attack, refused above
        if s.drew:
            refuse("already_drew", "You already drew this turn; play the drawn card or pass.")
        events: list[Event] = []
        if self._house and self._house_no_play(seat, "draw", cmd, events):
            return events
        self._close_exposure(seat)
        self._took_turn(seat)  # MK-09: a turn spent drawing (and passing) counts
        got = self._draw(seat, 1, events)
        s.drew = True
        if s.mode == "full":
            drawn = s.hands[seat][-1] if got else None
            if drawn is None or not matches(drawn, s.color, s.discard[-1]):
                self._pass_turn(seat, 0, events)  # MK-05: not playable, the turn ends
            else:
                s.drawn = drawn
        return events

    def _pending_for(self, cmd: dict[str, Any], kinds: tuple[str, ...]) -> tuple[GameState, int]:
        s = self._s
        if s.phase == IDLE:
            refuse("no_game", "No game is running; start one with new_game.")
        seat = self._seat(cmd)
        if s.pending is None or s.pending["kind"] not in kinds:
            refuse("nothing_pending", "There is no such question to answer right now.")
        if s.pending["player"] != seat:
            chooser = s.players[s.pending["player"]]
            refuse("not_your_choice", f"{chooser} must answer.", player=chooser)
        return s, seat

    def _cmd_accept(self, cmd: dict[str, Any]) -> list[Event]:
        s, seat = self._pending_for(cmd, ("challenge",))
        events: list[Event] = [{"type": "accepted", "player": s.players[seat]}]
        if self._house and self._house_no_play(seat, "accept", cmd, events):
            return events
        self._close_exposure(seat)
        s.pending, s.wd4 = None, None
        self._draw(seat, 4, events)  # MK-13
        events.append({"type": "skipped", "player": s.players[seat]})
        self._pass_turn(seat, 0, events)
        return events

    def _cmd_challenge(self, cmd: dict[str, Any]) -> list[Event]:
        s, seat = self._pending_for(cmd, ("challenge",))
        assert s.wd4 is not None
        guilty = s.wd4["guilty"]
        if s.mode == "table":
            guilty = cmd.get("guilty")
            if type(guilty) is not bool:
                refuse("guilty_required", "In table mode, report the outcome with guilty: true or false.")
        by = s.wd4["by"]
        events: list[Event] = [
            {"type": "challenged", "player": s.players[seat], "target": s.players[by], "guilty": bool(guilty)}
        ]
        if self._house and self._house_no_play(seat, "challenge", {**cmd, "guilty": bool(guilty)}, events):
            return events
        self._close_exposure(seat)
        s.pending, s.wd4 = None, None
        if guilty:  # MK-14: the WD4 player draws 4, play continues normally with the challenger
            self._draw(by, 4, events)
            s.current = seat
            events.append({"type": "turn", "player": s.players[seat]})
        else:
            self._draw(seat, 6, events)
            events.append({"type": "skipped", "player": s.players[seat]})
            self._pass_turn(seat, 0, events)
        return events

    def _cmd_choose(self, cmd: dict[str, Any]) -> list[Event]:
        s, seat = self._pending_for(cmd, ("color", "target"))
        assert s.pending is not None
        kind, reason = s.pending["kind"], s.pending["reason"]
        answer: Any
        if kind == "color":
            answer = cmd.get("color")
            if not is_color(answer):
                refuse("bad_color", "The color must be red, yellow, green or blue.")
        else:
            answer = self._seat(cmd, "target")
            if answer == seat:
                refuse("bad_target", "Choose another player as the target.")
        events: list[Event] = []
        self._close_exposure(seat)
        self._resolve_choice(seat, kind, reason, answer, events)
        return events
