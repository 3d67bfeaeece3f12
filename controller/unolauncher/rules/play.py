"""Playing a card, in every rule set: the ``play`` command's checks in their documented order (turn, card held,
match by colour or face, the drawn card after a draw (MK-05), a Wild's colour, targets for Attack-Attack and Trade
Hands (ATK-10, ATK-13), Discard All's cards (ATK-09), the Item Box's turned card in table mode (MK-07)), its
common effects (UNO exposure ATK-18/MK-15, going out), then the rule set's card effect from ``attack.py`` or
``mario_kart.py``. A fast path (``Referee.handle`` tries it first) handles the common plays with the same checks
in one go (checked against the general path by tests/rules/test_fast_paths.py).
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.actions import ACTIONS
from unolauncher.rules.attack import ATTACK_ACTIONS, AttackRules
from unolauncher.rules.cards import CARD_INFO, COLOR_SET, PLAYABLE_ON, Ruleset, matches
from unolauncher.rules.house import house_actions
from unolauncher.rules.mario_kart import MarioKartRules
from unolauncher.rules.play_context import PlayContext
from unolauncher.rules.refusal import Event, refuse, short_repr
from unolauncher.rules.schema import MAX_NAME
from unolauncher.rules.state import PLAYING
from unolauncher.rules.validation import is_color


class CardPlay(AttackRules, MarioKartRules):
    """The play command: fast path, general checks, common effects; which action each face has in this game."""

    def _fast_play(self, cmd: dict[str, Any]) -> list[Event] | None:
        """The common plays in full mode (the table is empty in table mode), outside any pending/owed state, when
        the command is exactly ``{type, player, card}`` (and ``color`` for a Wild): every check of the schema and of
        :meth:`_cmd_play` in one go, then the play; ``None`` (nothing changed) for anything else, which takes the
        general path (:meth:`_cmd_play`) and so gets its refusals in their documented order.

        ``Referee.handle`` runs this before the schema check: the checks below are the schema's for that exact shape
        (the fast-path table holds card names only, all within the schema's text limit, and a known player's name
        is text; its length is checked here), so what passes here passes the schema. tests/rules/test_fast_paths.py
        checks both paths give the same events and state, and that this path refuses nothing the schema accepts.
        """
        s = self._s
        card: Any = cmd.get("card")
        name = cmd.get("player")
        quick = self._quick.get(card) if type(card) is str else None  # (colour, face, action, plain)
        if (
            quick is None
            or type(name) is not str
            or len(name) > MAX_NAME
            or self._seats.get(name, -1) != s.current
            or s.phase != PLAYING
            or s.pending is not None
            or s.owed
            or s.house
            or (s.drawn is not None and s.drawn != card)
        ):
            return None
        seat = s.current
        color, face, action, plain = quick
        if card not in PLAYABLE_ON[s.color][s.discard[-1]]:  # cards.matches, as a table
            return None
        hand = s.hands[seat]
        if plain and not s.chain and len(hand) > 1 and len(cmd) == 3 and card in hand:
            # A plain card (number, or a face without an action here) that does not end the round.
            if s.uno_exposed >= 0 and s.uno_exposed != seat and (s.uno_next < 0 or s.uno_next == seat):
                s.uno_exposed = -1  # self._close_exposure(seat), inlined on the fast path
            hand.remove(card)
            s.discard.append(card)
            s.color = color
            if s.last_player != seat:  # self._took_turn(seat), inlined on the fast path
                s.before_last = s.last_player
                s.last_player = seat
            s.drew = False
            s.drawn = None
            s.current = nxt = (seat + s.direction) % len(s.players)
            if len(hand) == 1 and not s.declared[seat]:
                s.uno_exposed, s.uno_next = seat, nxt  # self._expose(seat, ""), inlined
            return [
                {"type": "played", "player": name, "card": card, "color": color},
                {"type": "turn", "player": s.players[nxt]},
            ]
        if color is None:  # a Wild: exactly {type, player, card, color}, with a colour
            chosen = cmd.get("color")
            if len(cmd) != 4 or type(chosen) is not str or chosen not in COLOR_SET:
                return None
        elif len(cmd) == 3:
            chosen = None
        else:
            return None
        if card not in hand:
            return None
        return self._apply_play(cmd, seat, name=name, card=card, color=color, face=face, action=action, chosen=chosen)

    def _cmd_play(self, cmd: dict[str, Any]) -> list[Event]:
        # The general path: every check in order, then every effect.
        s = self._s
        if s.phase != PLAYING:
            self._require_playing()
        name = cmd.get("player")
        seat = self._seats.get(name, -1) if type(name) is str else -1
        if seat < 0:
            seat = self._seat(cmd)
        card = cmd.get("card")
        # a house rule's play out of turn: an identical card (jump_in), an answer with a card (stacking)
        if not (self._house and self._house_may_play(seat, card)):
            self._require_turn(seat)
        info = CARD_INFO.get(card) if type(card) is str else None
        if info is None or card not in self._rs.counts:
            if type(card) is not str:
                refuse("missing_field" if card is None else "bad_field", 'The play needs a card, for example "red 7".')
            refuse("unknown_card", f"There is no card {short_repr(card)} in the {self._rs.name} deck.")
        full = s.mode == "full"
        hand = s.hands[seat] if full else None
        if hand is not None and card not in hand:
            refuse("card_not_held", f"{s.players[seat]} does not hold {card}.", player=s.players[seat], card=card)
        if s.drawn is not None and card != s.drawn:
            refuse("must_play_drawn", f"After drawing, only the drawn card ({s.drawn}) may be played.")
        if not matches(card, s.color, s.discard[-1]):
            refuse("card_does_not_match", f"{card} does not match {s.discard[-1]} ({s.color}).")
        if self._house:
            self._house_check_play(seat, card)
        color, face = info
        action = self._actions.get(face, "")
        chosen = cmd.get("color") if color is None else None
        target = -1
        discarded: list[str] = []
        turned: str | None = None
        if color is None or action:  # the rarer cards: Wilds and action cards
            count = len(hand) if hand is not None else s.table_counts[seat]
            facts = ACTIONS[action]
            if color is None:
                needs_color = facts.color
                if needs_color and chosen is None:
                    refuse("color_required", "A Wild needs a color: red, yellow, green or blue.")
                if chosen is not None and not is_color(chosen):
                    refuse("bad_color", "The color must be red, yellow, green or blue.")
            if facts.target:
                target = self._seat(cmd, "target")
                if target == seat:
                    refuse("bad_target", "Choose another player as the target.")
            if not facts.last and count <= 1:
                refuse("cannot_go_out_on_trade", "Trade Hands cannot be your last card.")
            if face == "discard-all":
                discarded = self._discard_all_cards(cmd, seat, card, color)
                if hand is None and count - 1 - len(discarded) < 0:
                    refuse("bad_field", "More cards were discarded than the player holds.")
            if face == "wild item-box":
                turned = self._item_turned(cmd)
                if cmd.get("target") is not None and self._seat(cmd, "target") == seat:
                    refuse("bad_target", "Choose another player as the target.")

        return self._apply_play(
            cmd,
            seat,
            name=s.players[seat],
            card=card,
            color=color,
            face=face,
            action=action,
            chosen=chosen,
            target=target,
            discarded=discarded,
            turned=turned,
        )

    def _apply_play(
        self,
        cmd: dict[str, Any],
        seat: int,
        *,
        name: str,
        card: str,
        color: str | None,
        face: str,
        action: str,
        chosen: Any,
        target: int = -1,
        discarded: list[str] | None = None,
        turned: str | None = None,
    ) -> list[Event]:
        """Every effect of a validated play (:meth:`_cmd_play` and :meth:`_fast_play` made the checks): ``seat``
        (``name``) plays ``card`` (``color``, ``face``, its ``action`` in this game), naming the colour ``chosen``
        (a Wild), the seat ``target`` (``-1``: none), the Discard All's other cards ``discarded``, the Item Box's
        ``turned`` card (table mode). Keyword-only: eleven facts in a row are easy to pass in the wrong order."""
        s = self._s
        full = s.mode == "full"
        hand = s.hands[seat] if full else None
        self._close_exposure(seat)  # ATK-18: the next player started, the catch window is closed
        prev_color = s.color
        if hand is not None:
            hand.remove(card)
            if discarded:
                for extra in discarded:
                    hand.remove(extra)
            left = len(hand)
        else:
            s.table_counts[seat] -= 1 + len(discarded or ())
            left = s.table_counts[seat]
        if discarded:
            s.discard.extend(discarded)
        s.discard.append(card)
        s.color = color if color is not None else (chosen if ACTIONS[action].color else None)
        self._took_turn(seat)
        s.drew = False
        s.drawn = None
        played: Event = {"type": "played", "player": name, "card": card, "color": s.color}
        events: list[Event] = [played]
        if target >= 0:
            played["target"] = s.players[target]
        if discarded:
            played["discarded"] = discarded
        out = left == 0
        if out:
            s.round_winner = seat
            events.append({"type": "went_out", "player": name})
        # The house rules' effects get the play as one object, built only in games that play a house rule: the rule
        # sets' own effects take plain arguments, as this runs for every action card and Wild (docs/performance.md).
        if self._house and self._house_rule_effect(
            PlayContext(seat, card, face, action, target, out, prev_color, turned, cmd), events
        ):
            pass  # a house rule took the card's effect over
        elif self._rs.attack:
            self._attack_effect(seat, face, action, target=target, out=out, events=events)
        elif color is not None and not action:
            if not out:
                self._pass_turn(seat, 0, events)  # a number card: the common case
        elif face == "wild item-box":  # MK-07
            self._item_box(seat, turned, cmd, out, events)
        else:
            self._draw_rules_effect(seat, face, prev_color, out, events)
        if not out and (len(s.hands[seat]) if full else s.table_counts[seat]) == 1 and not s.declared[seat]:
            self._expose(seat, action)  # ATK-18 / MK-15: can be caught until the next player starts
        if out and s.phase == PLAYING and not s.owed and s.pending is None:
            self._end_round(events)
        return events

    def _action_map(self) -> dict[str, str]:
        """Face -> action for this game (ATK-11..16); Mario Kart/classic action faces map to their own name; the house
        rules switched on add theirs."""
        if not self._rs.attack:
            actions = {face: face for face in ("skip", "reverse", "draw-2", "wild draw-4", "wild item-box")}
        else:
            actions = {face: action for face, (action, _) in ATTACK_ACTIONS.items()}
            custom = self._s.options.get("customizable")
            actions["wild customizable"] = "wild" if custom is None else str(custom["action"])
            actions["discard-all"] = "discard-all"
        house_actions(self._s.options, actions)  # the house rules' faces (house_rules/)
        return actions

    def _discard_all_cards(self, cmd: dict[str, Any], seat: int, card: str, color: str | None) -> list[str]:
        s = self._s
        if s.mode == "full":  # ATK-09: every other card of that colour goes too
            hand = list(s.hands[seat])
            hand.remove(card)
            return [c for c in hand if CARD_INFO[c][0] == color]
        extra = cmd.get("discarded", [])
        if type(extra) is not list or any(type(c) is not str or c not in self._rs.counts for c in extra):
            refuse("bad_field", "discarded must be a list of cards of the Discard All's colour.")
        if any(CARD_INFO[c][0] != color for c in extra):
            refuse("bad_field", "discarded may only hold cards of the Discard All's colour.")
        return list(extra)

    def _item_turned(self, cmd: dict[str, Any]) -> str | None:
        s = self._s
        if s.mode == "full":
            return None  # drawn from the stock when applying
        turned = cmd.get("turned")
        if turned is None:
            refuse("turned_required", "In table mode, report the card turned by the Item Box in a turned field.")
        if type(turned) is not str or turned not in self._rs.counts:
            refuse("unknown_card", f"There is no card {short_repr(turned)} in the {self._rs.name} deck.")
        return turned


QuickTable = dict[str, tuple[str | None, str, str, bool]]
_QUICK_TABLES: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[QuickTable, frozenset[str]]] = {}


def quick_table(rs: Ruleset, actions: dict[str, str]) -> QuickTable:
    """The fast-path table of a full-mode game: the cards whose play needs no field beyond player, card and (for a
    Wild) color (:data:`~unolauncher.rules.actions.ACTIONS`' ``quick``), as (colour, face, action, plain: a coloured
    card without an action). Targets, Discard All's list and the Item Box's turned card keep to the general path.
    Shared by every game with the same rule set and the same face -> action map (read-only), since building it costs
    about as much as a dozen steps. Keyed on the whole map, not only the Customizable's action: any option that
    changes what a face does (a house rule) gets its own table."""
    return _tables(rs, actions)[0]


def choosy_cards(rs: Ruleset, actions: dict[str, str]) -> frozenset[str]:
    """The cards of the deck whose play may carry a colour or a target in a game with this face -> action map (every
    Wild, and whatever acts as a targeting action): a bot holding none takes the short way."""
    return _tables(rs, actions)[1]


def _tables(rs: Ruleset, actions: dict[str, str]) -> tuple[QuickTable, frozenset[str]]:
    key = (rs.name, tuple(sorted(actions.items())))
    tables = _QUICK_TABLES.get(key)
    if tables is None:
        table: QuickTable = {}
        choosy = set()
        for c in rs.counts:
            color, face = CARD_INFO[c]
            action = actions.get(face, "")
            facts = ACTIONS[action]
            if facts.quick:
                table[c] = (color, face, action, color is not None and not action)
            if facts.target or color is None:  # the Item Box's colour is optional (it answers a Bob-omb, MK-12)
                choosy.add(c)
        tables = _QUICK_TABLES[key] = (table, frozenset(choosy))
    return tables
