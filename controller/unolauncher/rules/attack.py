"""UNO Attack (``attack``, ``attack-original``): what each attack card does (ATK-07..16, ATK-19), the owed hits it
causes, and the commands only this rule set has: ``hit`` (ATK-05/06, ATK-14 Hit Fire, the ejection model or the
launcher's count), ``suggest`` (ATK-22 suggestion penalty) and ``reload`` (ATK-21, table mode).

Example::

    >>> ATTACK_ACTIONS["wild hit-4"]  # ATK-12: the next player hits the launcher four times
    ('hit', 4)
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.refusal import Event, refuse
from unolauncher.rules.scoring import Scoring
from unolauncher.rules.stock import Stock
from unolauncher.rules.validation import is_int

# ATK-11..15: what each attack card makes others do, as (action, count).
ATTACK_ACTIONS: dict[str, tuple[str, int]] = {
    "hit-2": ("hit", 2),
    "wild hit-4": ("hit", 4),
    "wild attack-attack": ("attack", 2),
    "wild hit-fire": ("hit-fire", 1),
    "wild all-hit": ("all-hit", 1),
    "trade-hands": ("trade-hands", 0),
    "skip": ("skip", 0),
    "reverse": ("reverse", 0),
}


class AttackRules(Stock, Scoring):
    """UNO Attack card effects, owed hits and the hit, suggest and reload commands."""

    def _attack_effect(self, seat: int, face: str, action: str, *, target: int, out: bool, events: list[Event]) -> None:
        """The card effect of ``seat``'s play of ``face`` (its ``action`` in this game; ``target``: the seat it names,
        ``-1`` for none; ``out``: its player went out with it)."""
        s = self._s
        n = len(s.players)
        skips = s.chain_skips
        if action in ("skip", "reverse"):
            if action == "reverse":
                s.direction = -s.direction
                events.append({"type": "direction", "direction": s.direction})
                if n == 2:
                    skips += 1  # ATK-07
            else:
                skips += 1
            is_card = face in ("skip", "reverse")  # a Customizable acting as Skip/Reverse does not chain
            if not out and is_card and s.options["chain_after_skip_reverse"]:
                s.chain, s.chain_skips = True, skips  # ATK-08: the same player may keep playing
                events.append({"type": "chain", "player": s.players[seat], "skips": skips})
                return
            if out:
                return
            self._pass_turn(seat, skips, events)
            return
        s.chain, s.chain_skips = False, 0
        if action == "trade-hands":  # ATK-10
            if s.mode == "full":
                s.hands[seat], s.hands[target] = s.hands[target], s.hands[seat]
            else:
                s.table_counts[seat], s.table_counts[target] = s.table_counts[target], s.table_counts[seat]
            s.declared[seat] = s.declared[target] = False
            events.append({"type": "traded", "player": s.players[seat], "target": s.players[target]})
        custom = s.options["customizable"] if face == "wild customizable" else None
        hits_count = int(custom.get("count", 0)) if custom else 0
        for k in range(1, skips + 1):
            events.append({"type": "skipped", "player": s.players[s.step(seat, k)]})
        nxt = s.step(seat, 1 + skips)
        if action == "hit" or action == "hit-fire":  # ATK-11, ATK-12, ATK-14
            hits = hits_count or ATTACK_ACTIONS.get(face, ("hit", 2))[1]
            victim = nxt if nxt != seat else s.step(seat)  # 2 players, Skip then Hit 2: the opponent, not oneself
            s.resume = s.step(victim)
            self._add_owed(victim, 1 if action == "hit-fire" else hits, action == "hit-fire", events, front=False)
        elif action == "attack":  # ATK-13
            s.resume = nxt
            self._add_owed(target, hits_count or 2, False, events, front=False)
        elif action == "all-hit":  # ATK-15
            s.resume = nxt
            for k in range(1, n):
                self._add_owed(s.step(seat, k), hits_count or 1, False, events, front=False)
        elif not out:
            self._pass_turn(seat, skips, events, False)

    def _add_owed(self, seat: int, hits: int, until_card: bool, events: list[Event], front: bool) -> None:
        s = self._s
        entry = [seat, hits, 1 if until_card else 0]
        if front:
            s.owed.insert(0, entry)
        else:
            s.owed.append(entry)
        s.current = s.owed[0][0]
        owed: Event = {"type": "owed", "player": s.players[seat], "hits": hits}
        if until_card:
            owed["until_card"] = True
        events.append(owed)

    def _cmd_hit(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        if not self._rs.attack:
            refuse("not_in_ruleset", "Hits are for UNO Attack; draw from the stock instead.")
        if s.pending is not None:
            refuse("pending_choice", "The referee is waiting for an answer to a pending choice first.")
        if s.owed:
            expected = s.owed[0][0]
        elif s.chain:
            refuse("finish_chain", "After a Skip or Reverse, play another matching card or pass.")
        else:
            expected = s.current
        seat = expected if cmd.get("player") is None else self._seat(cmd)
        if seat != expected:
            if s.owed:
                refuse("not_your_hit", f"{s.players[expected]} owes the next hit.", player=s.players[expected])
            refuse("not_your_turn", f"It is {s.players[expected]}'s turn.", player=s.players[expected])
        cards = cmd.get("cards")
        if cards is not None and (not is_int(cards) or not 0 <= cards <= len(self._rs.deck)):
            refuse("bad_field", "cards must be a whole number from 0 to the deck size.")

        # -- apply ----------------------------------------------------------------------------------------
        events: list[Event] = []
        if self._house and self._house_no_play(seat, "hit", cmd, events):
            return events
        self._close_exposure(seat)
        count = self._ejection_count(cards, s.players[seat], events)  # the press event, if the model decided
        got = self._take(seat, count, events, hit=True)
        owed_left = 0
        if s.owed:
            entry = s.owed[0]
            if entry[2]:  # ATK-14 Hit Fire: until at least one card comes out
                if got > 0 or not self._cards_available():
                    entry[1] = 0
            else:
                entry[1] -= 1
            owed_left = entry[1]
        hit: Event = {"type": "hit", "player": s.players[seat], "cards": got, "owed_left": owed_left}
        if cmd.get("manual") is not True:
            self._stream.settle(s.players[seat])  # the press whose plan this hit settled (an undo carries it)
        if cmd.get("manual") is True and self._stream.epoch is not None:
            # A count sent by someone, not a launcher's run nor the model: on the record, under the open commitment
            # (docs/fairness.md: the daemon accepts one only with [launcher] allow_rigged; verify flags the round).
            hit.update(manual=True, commitment=self._stream.epoch["commitment"])
        events.insert(0, hit)
        if s.mode == "full" and got:
            hit["taken"] = s.hands[seat][-got:]
        if s.owed:
            if s.owed[0][1] <= 0:
                s.owed.pop(0)
                if s.owed:
                    s.current = s.owed[0][0]
                elif s.round_winner >= 0:  # ATK-19: the hits happened; now score
                    self._end_round(events)
                else:
                    s.current = s.resume
                    events.append({"type": "turn", "player": s.players[s.current]})
        else:  # ATK-05/06: a turn hit ends the turn, whatever came out
            self._pass_turn(seat, 0, events)
        return events

    def _ejection_count(self, cards: int | None, player: str, events: list[Event]) -> int:
        """How many cards a hit brings. With ``cards`` the launcher (or the table) counted them, and its press is
        already recorded (``pressed``); without, this is a press too: the script, else the model, decides."""
        if cards is not None:
            return cards
        stream = self._stream
        if stream.epoch is None:  # only a state from before launcher commitments existed
            return 0
        plan, press = stream.press(player)
        events.extend(press)
        scripted = stream.next_script()
        if scripted is not None:
            return scripted
        return plan.cards if plan.fire else 0

    def _cmd_suggest(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        if not self._rs.attack:
            refuse("not_in_ruleset", "The suggestion penalty is an UNO Attack table rule.")
        if not s.options["suggestion_penalty"]:
            refuse("option_off", "The suggestion penalty is off in this game (option suggestion_penalty).")
        seat = self._seat(cmd)
        events: list[Event] = [{"type": "penalty", "player": s.players[seat], "reason": "suggestion", "hits": 4}]
        if not s.owed:
            s.resume = s.current
        self._add_owed(seat, 4, False, events, front=True)  # ATK-22
        return events

    def _cmd_reload(self, cmd: dict[str, Any]) -> list[Event]:
        s = self._require_playing()
        if not self._rs.attack or s.mode != "table":
            refuse("not_in_ruleset", "Reload confirmations are for UNO Attack in table mode.")
        if not s.reload_pending:
            refuse("no_reload_requested", "The referee has not asked for a reload.")
        events: list[Event] = []
        s.reload_pending = False
        self._reshuffle(events)
        return events
