"""Issue #25, "Done when": a verifier written from the docs alone (tests/outside_verifier.py) agrees with ``unolauncher
verify`` and the phone's fairness.js (real Chromium) on honest play through a real daemon — entropy committed and
revealed, presses, an undone press fired again — and all three flag each attack on the exported events."""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.net import wait_until
from unolauncher.rules.ejection_stream import EjectionStream
from unolauncher.rules.referee import Referee

from .conftest import PhoneFactory, TableHandle, wait_for_catalogue

OUTSIDE = Path(__file__).resolve().parents[1] / "outside_verifier.py"
PLAYERS = ["ann", "bob", "cy"]
GAME = {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table",
        "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 7, "cy": 7}}}  # fmt: skip
PHONE = """async (events) => {
  const m = await import('./js/fairness.js');
  const f = new m.Fairness(() => null);  // a phone that received these events (it sends nothing here)
  for (const e of events) f.observeEvent(e);
  return [...f.rounds.values()].filter((r) => r.secret !== null).map((r) => r.result);
}"""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def honest_export(table: TableHandle, tmp_path: Path) -> list[dict[str, Any]]:
    """One game on the real daemon, exported by ``unolauncher export``."""
    client = table.client
    reply = table.command(GAME)
    assert reply["ok"], reply
    assert client.wait_for_seq(reply["seq"])
    with client.lock:
        commitment = next(e["commitment"] for s, e in sorted(client.events.items(), reverse=True)
                          if e.get("type") == "round_started" and s <= reply["seq"])  # fmt: skip
    entropy = secrets.token_hex(16)
    assert table.command({"type": "entropy", "hash": sha(entropy), "client": "outside", "commitment": commitment})["ok"]
    for _ in range(20):
        answer = table.command({"type": "entropy", "entropy": entropy, "commitment": commitment})
        if answer.get("code") != "entropy_too_early":
            break
        time.sleep(0.1)  # poll: the table says when its window has closed (the phone retries the same way)
    assert answer["ok"], answer

    def presses() -> list[dict[str, Any]]:
        with client.lock:
            return [e for e in client.events.values() if e.get("type") == "press" and e.get("commitment") == commitment]

    def settled() -> bool:  # every press of the round has its hit (the run is over)
        with client.lock:
            last = max((s for s, e in client.events.items() if e.get("commitment") == commitment), default=0)
            return any(e.get("type") in ("hit", "hit_failed") for s, e in client.events.items() if s > last)

    def press_once(count: int) -> None:
        """One press: the round's ``count``-th press event comes (never an ignored press: the button is free)."""
        assert table.command({"type": "press"})["ok"]
        assert wait_until(lambda: len(presses()) >= count, 10), "the table did not use the press"

    for n in range(1, 5):
        press_once(n)
        assert wait_until(settled, 10), "the press's hit never came"
    assert table.command({"type": "undo"})["ok"]  # the last hit taken back: its plan is carried
    press_once(5)  # the carried plan fires again
    assert any(p.get("retry") for p in presses()), "no press fired the carried plan again"
    assert wait_until(settled, 10)
    assert table.command(GAME)["ok"]  # the round's secret comes out
    journal = sqlite3.connect(f"file:{table.daemon.state_dir / 'journal.sqlite3'}?mode=ro", uri=True)
    games = journal.execute("SELECT COUNT(*) FROM journal WHERE kind = 'event' AND body LIKE '%\"game_started\"%'")
    count = games.fetchone()[0]
    journal.close()
    out = tmp_path / "game.jsonl"
    export = ["export", "--state-dir", str(table.daemon.state_dir), "--game", str(count - 1), "--output", str(out)]
    done = subprocess.run([sys.executable, "-m", "unolauncher", *export], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def three_verdicts(page: Any, events: list[dict[str, Any]], path: Path) -> dict[str, bool]:
    """Whether each verifier passes these events: the outside one, ``unolauncher verify``, the phone."""
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    outside = subprocess.run([sys.executable, str(OUTSIDE), str(path)], capture_output=True, text=True, check=False)
    verify = subprocess.run([sys.executable, "-m", "unolauncher", "verify", "--events", str(path)],
                            capture_output=True, text=True, check=False)  # fmt: skip
    phone = page.evaluate(PHONE, events)
    return {
        "outside": outside.returncode == 0,
        "verify": verify.returncode == 0,
        "phone": bool(phone) and all(r and r["status"] == "verified" for r in phone),
    }


def first(events: list[dict[str, Any]], test: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    return next(e for e in events if test(e))


def test_three_verifiers_agree_on_honest_play_and_flag_each_attack(
    phones: PhoneFactory, dashboard_url: str, table: TableHandle, tmp_path: Path
) -> None:
    events = honest_export(table, tmp_path)
    kinds = {e["type"] for e in events}
    assert {"ejection_entropy_commit", "ejection_entropy", "ejection_carry", "ejection_reveal"} <= kinds, kinds
    page = phones.open(dashboard_url)
    wait_for_catalogue(page)  # the presets come from the daemon
    assert three_verdicts(page, events, tmp_path / "honest.jsonl") == {"outside": True, "verify": True, "phone": True}

    def tamper_press(ev: list[dict[str, Any]]) -> None:
        press = first(ev, lambda e: e["type"] == "press" and not e.get("retry"))
        press["plan"]["fire"] = not press["plan"]["fire"]

    def swap_entropy(ev: list[dict[str, Any]]) -> None:
        first(ev, lambda e: e["type"] == "ejection_entropy")["entropy"] = secrets.token_hex(16)  # the box's own

    def late_entropy(ev: list[dict[str, Any]]) -> None:  # the item 1: a contribution no commitment covers
        mixed = first(ev, lambda e: e["type"] == "ejection_entropy")
        other = secrets.token_hex(16)
        mixed.update(entropy=other, hash=sha(other))

    def manual_hit(ev: list[dict[str, Any]]) -> None:  # item 2
        hit = first(ev, lambda e: e["type"] == "hit")
        key = first(ev, lambda e: e["type"] == "round_started")["commitment"]
        hit.update(manual=True, commitment=key)

    def reroll(ev: list[dict[str, Any]]) -> None:  # items 3-4: the repeated press drawn afresh
        retry = first(ev, lambda e: e["type"] == "press" and e.get("retry"))
        retry["plan"] = {**retry["plan"], "cards": retry["plan"]["cards"] + 1, "fire": True}

    def rigged(ev: list[dict[str, Any]]) -> None:  # item 6, as the phones and the export show it
        first(ev, lambda e: e["type"] == "round_started")["rigged"] = True

    for attack in (tamper_press, swap_entropy, late_entropy, manual_hit, reroll, rigged):
        attacked = copy.deepcopy(events)
        attack(attacked)
        verdicts = three_verdicts(page, attacked, tmp_path / f"{attack.__name__}.jsonl")
        assert verdicts == {"outside": False, "verify": False, "phone": False}, (attack.__name__, verdicts)


TWO_DRY = {"ejection_preset": "custom", "ejection_custom": {"miss_hazard": [0.0, 0.0, 1.0], "hit_repeat": [0.0],
                                                            "cards": {"1": 1}}}  # fmt: skip


def two_round_events(restart: bool) -> list[dict[str, Any]]:
    """A table-mode game as the daemon publishes it (the referee's events, numbered): two dry presses, the round
    ends, the next round's first press. ``restart``: a box whose streak starts again at every round (issue #25
    item 9), consistent with itself — every plan recomputed from its own claimed start."""
    referee = Referee()
    if restart:
        referee._stream = _RestartingStream()
    deal = {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 7, "cy": 1}}
    commands: list[dict[str, Any]] = [
        {
            "type": "new_game",
            "ruleset": "attack",
            "players": PLAYERS,
            "mode": "table",
            "deal": deal,
            "options": TWO_DRY,
            "secret": secrets.token_hex(32),
        },
    ]
    events: list[dict[str, Any]] = []

    def run(command: dict[str, Any]) -> None:
        out = referee.handle(command)
        assert out and out[0]["type"] != "rejected", out
        events.extend(out)

    def press() -> None:
        player = referee.hitter()
        run({"type": "pressed", "player": player})
        run({"type": "hit", "player": player, "cards": events[-1]["plan"]["cards"]})

    run(commands[0])
    press()
    press()
    run({"type": "play", "player": "cy", "card": "red 7"})
    run({"type": "score", "hands": {"ann": 10, "bob": 10}})
    run({"type": "next_round", "deal": {"starter": "blue 2"}, "secret": secrets.token_hex(32)})
    press()
    run({**commands[0], "secret": secrets.token_hex(32)})  # replaced: round 2's secret comes out
    return [{**e, "seq": n} for n, e in enumerate(events, start=1)]


class _RestartingStream(EjectionStream):
    """A launcher record whose streak starts again at every commitment (the behaviour issue #25 item 9 found)."""

    __slots__ = ()

    def close(self) -> dict[str, Any] | None:
        reveal = super().close()
        self.data = {**self.data, "streak": [0, 0]}
        return reveal


def test_three_verifiers_flag_a_streak_restarted_at_a_round(
    phones: PhoneFactory, dashboard_url: str, tmp_path: Path
) -> None:
    """Item 9: "at most N dry presses in a row" runs through the game. A box that restarts it at a new round (so a
    due fire comes out dry) is flagged by all three, even though each of its rounds is consistent in itself."""
    page = phones.open(dashboard_url)
    wait_for_catalogue(page)  # the presets come from the daemon
    honest = two_round_events(restart=False)
    opened = [e for e in honest if e["type"] == "round_started"]
    assert [(e["run"], e["since_lid"]) for e in opened[:2]] == [(0, 0), (-2, 2)]
    round_two = [e for e in honest if e["type"] == "press" and e["commitment"] == opened[1]["commitment"]]
    assert round_two[0]["plan"]["fire"] is True  # the third press in a row had to fire
    assert three_verdicts(page, honest, tmp_path / "honest.jsonl") == {"outside": True, "verify": True, "phone": True}
    restarted = two_round_events(restart=True)
    second = [e for e in restarted if e["type"] == "round_started"][1]
    assert (second["run"], second["since_lid"]) == (0, 0)
    verdicts = three_verdicts(page, restarted, tmp_path / "restarted.jsonl")
    assert verdicts == {"outside": False, "verify": False, "phone": False}, verdicts
