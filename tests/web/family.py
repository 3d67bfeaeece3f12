"""A family of four with real cards plays one table-mode round through the dashboard alone, and every tap is counted.

The family holds a real shuffled deck (``RULESETS[...].deck``): they deal seven each, turn the starter, keep the
stock (UNO Attack: the launcher's load; Mario Kart: the draw pile) and the discard pile. Each player looks at their
own hand and at what the page greys out (the referee's ``moves`` answer the page already asked for) and plays like a
person: a matching card if they have one (Wilds last), else HIT (Attack) or Draw and then play the drawn card or Pass
(Mario Kart). They call UNO before their second-to-last card most of the time, and the table catches some who forget.
Whatever the launcher ejects or the referee makes someone draw (``hit`` / ``drew`` events), the family takes from its
stock; a reload or reshuffle puts the discard pile, all but its top card, back under it. Every command reaches the
table through taps on the page (Playwright ``click`` on the element a thumb would touch); the driver never sends one.

    driver = FamilyRound(page, table, "attack", ["mom", "dad", "lena", "ben"], seed=1)
    result = driver.play()        # -> RoundResult: taps per action kind, turns, the scores the counter sent
    print(result.summary())

Used by ``tests/web/test_family_round.py`` (the round completes through the page) and ``bench/family_round.py``
(the figures in docs/dashboard.md).
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.net import wait_until
from unolauncher.rules.cards import RULESETS

PLAYERS = ["mom", "dad", "lena", "ben"]
CALLS_UNO = 0.7  # how often a player remembers to call UNO before their second-to-last card
CATCHES = 0.6  # how often the table notices a forgotten UNO before the next player starts
CHALLENGES = 0.3  # how often a Wild Draw Four is challenged (Mario Kart)
MAX_ACTIONS = 600  # a round that does not end by then is a bug in the page, the referee or this driver


# "" when the element is inside the viewport and clear of the tab bar (a rail on the left when the phone is
# sideways; a modal sheet lies over the tabs), else what the thumb has to scroll to (the element's name and top).
OUTSIDE = """(el) => {
  const r = el.getBoundingClientRect();
  const tabs = document.querySelector(".tabs").getBoundingClientRect();
  const rail = tabs.height >= innerHeight - 1;
  const over = el.closest("dialog[open]") || el.closest(".tabs");
  const left = rail && !over ? tabs.right : 0, bottom = rail || over ? innerHeight : tabs.top;
  if (r.left >= left - 0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= bottom + 0.5) return "";
  return `${el.id || el.className || el.tagName} at ${Math.round(r.top)} px`;
}"""


class RoundStuck(AssertionError):
    """The page did not lead to the next state (a refusal, a missing control, a control that stayed off)."""


# What the page says about itself when the round gets stuck (the message of RoundStuck).
DIAGNOSIS = """() => ({
  conn: document.getElementById("conn")?.textContent,
  notice: document.getElementById("link-notice")?.hidden ? "" : document.getElementById("link-notice")?.textContent,
  silent: window.unoDashboard?.fresh?.silent, silentAt: window.unoDashboard?.fresh?.silentAt,
  now: performance.now(), stateSeq: window.unoDashboard?.stateSeq,
  moves: [...(window.unoDashboard?.moves?.answers?.keys() ?? [])],
  asked: [...(window.unoDashboard?.moves?.asked?.values() ?? [])],
  hitWhy: document.getElementById("press-who")?.textContent,
  refusals: [...document.querySelectorAll(".refusal.shown")].map((r) => r.textContent),
})"""


class Family:
    """The physical cards: hands, stock (the launcher's load or the draw pile) and the discard pile."""

    def __init__(self, ruleset: str, players: list[str], rng: random.Random) -> None:
        self.ruleset = ruleset
        self.rng = rng
        deck = list(RULESETS[ruleset].deck)
        rng.shuffle(deck)
        self.hands: dict[str, list[str]] = {p: [deck.pop() for _ in range(7)] for p in players}
        starter = deck.pop()
        while ruleset == "mario-kart" and starter == "wild draw-4":  # MK-03: shuffled back, another card turned
            deck.insert(rng.randrange(len(deck) + 1), starter)
            starter = deck.pop()
        self.discard = [starter]
        self.stock = deck  # its end is the top
        self.short: dict[str, int] = defaultdict(int)  # cards the referee counted that the stock did not have

    def take(self, player: str, count: int) -> None:
        for _ in range(count):
            if self.stock:
                self.hands[player].append(self.stock.pop())
            else:
                self.short[player] += 1

    def reshuffle(self) -> None:
        """ATK-21 / MK-18: all but the top of the discard pile goes under the stock; cards owed are taken now."""
        under = self.discard[:-1]
        self.discard = self.discard[-1:]
        self.rng.shuffle(under)
        self.stock = under + self.stock
        for player, owed in list(self.short.items()):
            self.short[player] = 0
            self.take(player, owed)

    def put_down(self, player: str, cards: list[str]) -> None:
        for card in cards:
            self.hands[player].remove(card)
            self.discard.append(card)

    def points(self, player: str) -> int:
        values = RULESETS[self.ruleset].values
        return sum(values[card] for card in self.hands[player])


@dataclass
class RoundResult:
    ruleset: str
    viewport: str
    taps: Counter[str] = field(default_factory=Counter)  # action kind -> taps
    scrolls: Counter[str] = field(default_factory=Counter)  # action kind -> controls that were off the screen
    scrolled: set[str] = field(default_factory=set)  # which, and where
    retaps: int = 0  # taps made again: lost while a control was briefly off, or refused as late (``stale``)
    actions: Counter[str] = field(default_factory=Counter)  # action kind -> times done
    turns: int = 0
    scores_sent: dict[str, int] = field(default_factory=dict)
    hand_points: dict[str, int] = field(default_factory=dict)  # what the family's real hands are worth
    seconds: float = 0.0

    PHASES = ("setup", "deal", "scores")

    @property
    def play_taps(self) -> int:
        return sum(n for kind, n in self.taps.items() if kind not in self.PHASES)

    @property
    def total(self) -> int:
        return sum(self.taps.values())

    def summary(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "viewport": self.viewport,
            "taps_round": self.total,
            "taps_setup_and_deal": self.taps["setup"] + self.taps["deal"],
            "taps_play": self.play_taps,
            "taps_scores": self.taps["scores"],
            "turns": self.turns,
            "scrolls_play": sum(n for kind, n in self.scrolls.items() if kind not in self.PHASES),
            "scrolls_setup_deal_scores": sum(self.scrolls[k] for k in self.PHASES),
            "taps_per_turn": round(self.play_taps / max(1, self.turns), 2),
            "per_action": {k: [self.actions[k], self.taps[k]] for k in sorted(self.taps)},
            "retaps": self.retaps,
            "scrolled": sorted(self.scrolled),
            "seconds": round(self.seconds, 1),
        }


class FamilyRound:
    """Drives one round on ``page`` (the dashboard, already live) for the table ``table`` (``TableHandle``)."""

    def __init__(self, page: Any, table: Any, ruleset: str, players: list[str], seed: int, viewport: str = "") -> None:
        self.page = page
        self.table = table
        self.ruleset = ruleset
        self.players = players
        self.rng = random.Random(seed)
        self.family = Family(ruleset, players, self.rng)
        self.result = RoundResult(ruleset, viewport)
        self.kind = "setup"
        self.done_seq = 0
        self.start_seq = 0
        self.wd4_guilty = False
        self.shots: Path | None = None  # a folder: a screenshot of each moment a control was off the screen

    # ---- taps ------------------------------------------------------------------------------------------------

    def offered(self, player: str, card: str) -> bool:
        return bool(self.page.evaluate("([p, c]) => window.unoDashboard.moves.canPlay(p, c)", [player, card]))

    def tap_open(self, control: Any, sheet: str) -> None:
        """Tap a control that opens ``sheet``. A new state turns Play off until the referee's moves for it arrive
        (the page's own commands, such as its entropy, make new states): a tap in that instant is lost, as a thumb's
        would be, and the family taps again once it is on. The click handler runs during the click, so whether the
        sheet opened is known when ``click()`` returns."""
        for _ in range(3):
            self.tap(control)
            if self.page.evaluate("(s) => Boolean(document.querySelector(s)?.open)", sheet):
                return
            self.result.retaps += 1
        raise self.stuck(f"{sheet} did not open")

    def stuck(self, what: str) -> RoundStuck:
        state = self.table.state
        return RoundStuck(
            f"{what}; page: {self.page.evaluate(DIAGNOSIS)}; table: current={state.get('current')} "
            f"pending={state.get('pending')} owed={state.get('owed')} seq={state.get('seq')}"
        )

    def tap(self, locator: Any) -> None:
        """One tap; a control outside the screen (or under the tabs) first costs a scroll, as it would a thumb."""
        locator.wait_for(state="visible", timeout=10_000)
        where = locator.evaluate(OUTSIDE)
        if where:
            self.result.scrolls[self.kind] += 1
            self.result.scrolled.add(f"{self.kind}: {where}")
            if self.shots is not None:  # what the thumb faced
                self.page.screenshot(path=str(self.shots / f"family-scroll-{len(self.result.scrolled)}.png"))
        try:
            locator.click(timeout=10_000)
        except Exception as exc:  # Playwright's TimeoutError: say what the page showed
            raise self.stuck(f"could not tap {locator}: {str(exc).splitlines()[0]}") from exc
        self.result.taps[self.kind] += 1

    def doing(self, kind: str) -> None:
        self.kind = kind
        self.result.actions[kind] += 1

    # ---- the table's answer ----------------------------------------------------------------------------------

    def settle(self, before: int, what: str) -> None:
        """Wait for the table to act on the tap (a newer state), the page to show it and the family to apply it."""
        if not wait_until(
            lambda: self.table.seq > before and (self.table.client.state or {}).get("seq", -1) > before, 15
        ):
            refusals = self.page.locator(".refusal.shown").all_text_contents()
            raise self.stuck(f"{what}: the table did not act (refusals on the page: {refusals})")
        self.synced()

    def synced(self) -> None:
        seq = self.table.state["seq"]
        if not wait_until(lambda: (self.page.evaluate("window.unoDashboard.stateSeq") or 0) >= seq, 10):
            raise self.stuck(f"the page did not show state {seq}")
        self.apply_events()

    def apply_events(self) -> None:
        """Apply the table's events in ``seq`` order, none skipped: they may reach this client out of order (the
        launcher's ``hit`` is published from another thread than the referee's events), so wait for any gap."""
        client = self.table.client
        upto = max(self.table.state["seq"], client.last_seq())
        if not wait_until(lambda: all(s in client.events for s in range(self.done_seq + 1, upto + 1)), 10):
            raise self.stuck(f"events {self.done_seq + 1}..{upto} did not all arrive")
        for event in client.ordered_events():
            if event["seq"] <= self.done_seq:
                continue
            if event["seq"] != self.done_seq + 1:
                break
            self.done_seq = event["seq"]
            kind = event.get("type")
            if kind == "hit" and event.get("cards"):
                self.family.take(event["player"], event["cards"])
            elif kind == "drew" and event.get("count"):
                self.family.take(event["player"], event["count"])
            elif kind in ("reloaded", "reshuffled"):
                self.family.reshuffle()
            elif kind == "turn" and event["seq"] > self.start_seq:
                self.result.turns += 1

    def stale_replies(self) -> int:
        return sum(1 for r in self.table.replies if r.get("code") == "stale")

    def send_tap(self, locator: Any, what: str) -> None:
        """Tap a control that sends a command and wait for the table to act on it. On a starved machine a tap can
        reach the table more than 2 s after it was made: the daemon refuses it (``stale``) and the page says "tap
        again if you still mean it" — and the family does (counted as a tap, and in ``retaps``)."""
        for _ in range(3):
            before, stale = self.table.seq, self.stale_replies()
            self.tap(locator)
            wait_until(lambda: self.stale_replies() > stale or self.acted(before), 15)  # noqa: B023 - called at once
            if self.acted(before):
                self.synced()
                return
            if self.stale_replies() <= stale:
                break
            self.result.retaps += 1
        self.settle(before, what)

    def acted(self, before: int) -> bool:
        return self.table.seq > before and (self.table.client.state or {}).get("seq", -1) > before

    def playable(self, player: str) -> list[str] | None:
        """The cards of ``player``'s real hand the page offers (the referee's answer it asked for), Wilds last."""
        ask = "(p) => window.unoDashboard.moves.answers.get(p)?.cards ?? null"
        seen: list[list[str] | None] = [None]  # one reading: a newer state clears the answers till the page asks

        def answered() -> bool:
            seen[0] = self.page.evaluate(ask, player)
            return seen[0] is not None

        def moved_on() -> bool:
            return self.table.state.get("current") != player or bool(self.table.state.get("pending"))

        if not wait_until(lambda: answered() or moved_on(), 10):
            raise self.stuck(f"the page has no moves for {player}")
        if seen[0] is None:
            return None  # the state moved on while the family looked: decide again from the newer one
        offered = set(seen[0] or [])
        cards = [c for c in dict.fromkeys(self.family.hands[player]) if c in offered]
        self.rng.shuffle(cards)
        return sorted(cards, key=lambda c: c.startswith("wild"))

    # ---- the round -------------------------------------------------------------------------------------------

    def play(self) -> RoundResult:
        started = time.monotonic()
        self.start()
        for _ in range(MAX_ACTIONS):
            state = self.table.state
            if state.get("phase") != "playing" and not state.get("pending"):
                break
            pending = state.get("pending") or {}
            if self.reload_asked():  # before an owed hit: HIT stays off until the launcher is refilled
                self.reload()
            elif state.get("owed"):
                self.hit(state["owed"][0]["player"])
            elif pending.get("kind") == "score":
                self.score(state)
                break
            elif pending:
                self.answer(state, pending)
            else:
                self.turn(state)
        else:
            raise RoundStuck(f"no round end after {MAX_ACTIONS} actions")
        self.result.seconds = time.monotonic() - started
        return self.result

    def start(self) -> None:
        page = self.page
        self.doing("setup")
        self.tap(page.locator("[data-tab=setup]"))
        inputs = page.locator("#setup-players input")
        while inputs.count() > len(self.players):
            self.tap(page.locator("#setup-players .icon-btn").last)
        while inputs.count() < len(self.players):
            self.tap(page.locator("#setup-add"))
        for i, name in enumerate(self.players):
            if inputs.nth(i).input_value() != name:
                inputs.nth(i).fill(name)  # a tap into the field, then typing
                self.result.taps["setup"] += 1
        for name, value in (("ruleset", self.ruleset), ("mode", "table")):
            select = page.locator(f"select[name={name}]")
            if select.input_value() != value:
                select.select_option(value)  # open the list, pick
                self.result.taps["setup"] += 2
        self.tap(page.locator("#setup-start"))
        if page.locator("#confirm-new").is_visible():  # the test daemon's previous game: not a family's first tap
            page.click("#confirm-new-yes")
        sheet = page.locator("#deal-sheet")
        sheet.wait_for(state="visible")
        self.doing("deal")
        dealer = self.players[-1]  # the first listed plays first: the sheet's default
        if sheet.locator("#deal-dealers [aria-pressed=true]").inner_text() != dealer:
            self.tap(sheet.locator(f"#deal-dealers [data-player={dealer}]"))
        self.pick(sheet, self.family.discard[-1])
        before = self.table.seq
        started = len(self.table.events("game_started"))
        self.tap(sheet.locator("#deal-send"))
        if not wait_until(lambda: len(self.table.events("game_started")) > started, 15):
            raise self.stuck("the deal did not start a game")
        seq = self.table.events("game_started")[-1]["seq"]
        if not wait_until(lambda: (self.table.client.state or {}).get("seq", -1) >= seq, 10):
            raise self.stuck("no state for the new game")
        self.start_seq = before
        self.done_seq = before
        self.synced()

    def pick(self, grid: Any, card: str) -> None:
        """Colour tab (unless already shown), then the face."""
        colour = card.split()[0]
        tab = grid.locator(f".colour-tab.c-{colour}").first
        if tab.get_attribute("aria-selected") != "true":
            self.tap(tab)
        self.tap(grid.locator(f'[data-card="{card}"]').first)

    # ---- a player's turn -------------------------------------------------------------------------------------

    def turn(self, state: dict[str, Any]) -> None:
        player = state["current"]
        cards = self.playable(player)
        if cards is None:
            return
        if cards:
            self.play_card(player, cards[0], state)
        elif state.get("chain"):
            self.doing("pass")
            self.send_tap(self.page.locator("#btn-pass"), "pass")
        elif self.ruleset == "attack":
            self.hit(player)
        else:
            self.doing("draw")
            self.send_tap(self.page.locator("#btn-draw"), "draw")
            drawn = self.playable(player)  # MK-05: only the drawn card, if it matches
            if drawn is None:
                return
            if drawn:
                self.play_card(player, drawn[0], self.table.state)
            else:
                self.doing("pass")
                self.send_tap(self.page.locator("#btn-pass"), "pass")

    def reload_asked(self) -> bool:
        return self.page.locator("#pending-box[data-kind=reload]").is_visible()

    def reload(self) -> None:
        self.doing("reload")
        self.send_tap(self.page.locator("#pending-box[data-kind=reload] .btn"), "reload")

    def hit(self, player: str) -> None:
        press = self.page.locator("#press")
        # The launcher may ask for a reload while a hit is owed (its last card went out): the family refills it,
        # then hits (the next loop turn), as the page's "launcher empty — reload it first" says.
        if not wait_until(lambda: press.is_enabled() or self.reload_asked(), 10):
            raise self.stuck(f"HIT stayed off for {player}: {self.page.locator('#press-who').inner_text()}")
        if not press.is_enabled() and self.reload_asked():
            self.reload()
            return
        self.doing("hit")
        hits = len(self.table.events("hit"))
        for _ in range(3):
            stale = self.stale_replies()
            self.tap(press)
            # The press is journalled first, the launcher's run and its ``hit`` come after it: wait for the hit.
            wait_until(lambda: len(self.table.events("hit")) > hits or self.stale_replies() > stale, 15)  # noqa: B023
            if len(self.table.events("hit")) > hits or self.stale_replies() <= stale:
                break
            self.result.retaps += 1  # "tap again if you still mean it"
            if not wait_until(lambda: press.is_enabled(), 10):
                break
        if len(self.table.events("hit")) <= hits:
            raise self.stuck(f"{player}'s press brought no hit")
        # ... and the state with the hit in it (published after the event; the next turn is decided from it).
        seq = self.table.events("hit")[-1]["seq"]
        if not wait_until(lambda: (self.table.client.state or {}).get("seq", -1) >= seq, 10):
            raise self.stuck(f"no state after {player}'s hit (seq {seq})")
        self.synced()

    def play_card(self, player: str, card: str, state: dict[str, Any]) -> None:
        hand = self.family.hands[player]
        if len(hand) == 2 and self.rng.random() < CALLS_UNO:
            self.call_uno(player)
        colour, _, face = card.partition(" ")
        extra: list[str] = []
        kind = "play wild" if colour == "wild" else "play"
        if face == "discard-all":  # ATK-09: every other card of that colour goes down with it
            kind = "play discard all"
            rest = list(hand)
            rest.remove(card)
            extra = [c for c in rest if c.startswith(colour + " ")]
        if face == "item-box":
            kind = "play item box"
        if card == "wild draw-4":
            held = {c.split()[0] for c in hand if c != card}
            self.wd4_guilty = state.get("color") in held  # MK-14: a card of the colour in play was held
        self.doing(kind)
        page = self.page
        picker = page.locator("#picker")
        self.tap_open(page.locator("#btn-play"), "#picker")
        if picker.locator("#picker-player").input_value() != player or not self.offered(player, card):
            # The table moved on while the family reached for the card (the page shows a newer state than the one
            # they decided on): close the picker and look again.
            page.keyboard.press("Escape")
            self.result.retaps += 1
            return
        self.pick(picker.locator("#picker-colours, #picker-faces"), card)
        if picker.locator("#picker-wild").is_visible():
            best = Counter(c.split()[0] for c in hand if not c.startswith("wild")).most_common(1)
            self.tap(picker.locator(f'#picker-wild-colours [data-color="{best[0][0] if best else "red"}"]'))
        if picker.locator("#picker-target").is_visible():
            target = min((p for p in self.players if p != player), key=lambda p: len(self.family.hands[p]))
            self.tap(picker.locator(f'#picker-targets [data-target="{target}"]'))
        for other in extra:
            self.tap(picker.locator(f'#picker-discard-faces [data-card="{other}"]'))
        turned = None
        if picker.locator("#picker-turned").is_visible():
            if not self.family.stock:
                self.family.reshuffle()
            turned = self.family.stock.pop()  # MK-07: the top of the stock is turned over
            self.pick(picker.locator("#picker-turned"), turned)
        self.family.put_down(player, [*extra, card])
        if turned:
            self.family.discard.append(turned)
        self.send_tap(picker.locator("#picker-send"), f"{player} plays {card}")
        exposed = self.table.state.get("uno_exposed")
        if exposed and self.rng.random() < CATCHES:
            self.catch(exposed)

    def call_uno(self, player: str) -> None:
        self.doing("uno")
        page = self.page
        before = self.table.seq
        self.tap(page.locator("#btn-uno"))
        sheet = page.locator("#seat-sheet")
        if sheet.is_visible():  # "Who calls UNO?": the button did not know for whom
            self.tap(sheet.locator("#seat-actions .chips").first.locator(".chip", has_text=player).first)
        self.settle(before, f"{player} calls UNO")

    def catch(self, exposed: str) -> None:
        self.doing("catch")
        page = self.page
        catcher = self.players[(self.players.index(exposed) + 1) % len(self.players)]
        before = self.table.seq
        self.tap(page.locator("#catchable"))  # the top bar's "Catch …!"
        self.tap(page.locator("#seat-sheet .catchers .chip", has_text=catcher).first)
        self.settle(before, f"{catcher} catches {exposed}")

    # ---- questions -------------------------------------------------------------------------------------------

    def answer(self, state: dict[str, Any], pending: dict[str, Any]) -> None:
        kind = pending.get("kind")
        chooser = pending.get("player") or state["current"]
        box = self.page.locator(f"#pending-box[data-kind={kind}]")
        box.wait_for(state="visible", timeout=10_000)
        self.doing(f"question: {kind}")
        if kind == "color":
            best = Counter(c.split()[0] for c in self.family.hands[chooser] if not c.startswith("wild"))
            colour = best.most_common(1)[0][0] if best else "red"
            self.send_tap(box.locator(f'.swatch[data-color="{colour}"]'), f"{chooser} chooses {colour}")
        elif kind == "target":
            target = min((p for p in self.players if p != chooser), key=lambda p: len(self.family.hands[p]))
            self.send_tap(box.locator(".chip", has_text=target).first, f"{chooser} aims at {target}")
        elif kind == "challenge":
            challenged = self.rng.random() < CHALLENGES
            label = ("Guilty" if self.wd4_guilty else "Not guilty") if challenged else "Accept +4"
            self.send_tap(box.locator(".btn").filter(has_text=label).first, f"{chooser}: {label}")
        else:
            raise self.stuck(f"an unexpected question: {pending}")

    def score(self, state: dict[str, Any]) -> None:
        """Enter scores, then count each hand on the keypad (one tap per card), then send."""
        page = self.page
        self.doing("scores")
        self.tap(page.locator("#pending-box[data-kind=score] .btn"))
        form = page.locator("#score-form")
        form.wait_for(state="visible")
        values = RULESETS[self.ruleset].values
        for player in self.players:
            hand = self.family.hands[player]
            self.result.hand_points[player] = self.family.points(player)
            if not hand:
                continue
            self.tap(page.locator(".counter-open", has_text=f"Count {player}’s cards"))
            keys = page.locator(f'.counter[data-player="{player}"] .counter-key')
            for card in hand:
                value = values[card]
                label = str(value) if value < 10 else f"+{value}"
                self.tap(keys.filter(has_text=re.compile(f"^{re.escape(label)}$")).first)
        ended = len(self.table.events("round_ended"))  # the daemon may have scored other games before
        self.tap(form.locator("button[type=submit]"))
        if not wait_until(lambda: len(self.table.events("round_ended")) > ended, 15):
            raise self.stuck(f"the scores were not taken: {page.locator('.refusal.shown').all_text_contents()}")
        ended = self.table.events("round_ended")[-1]
        self.result.scores_sent = {p: v for p, v in ended.get("hands", {}).items()}
