"""An outside verifier, written from docs/ejection.md ("How one press is decided", "Writing your own verifier") and
docs/fairness.md alone: standard library only, no import of the package. It exists to prove the docs are enough.

    python tests/outside_verifier.py game.jsonl     # exit 0: every revealed commitment checks out; 1: findings

It prints one line per finding ("warning:" lines do not fail, unless --strict).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import sys
from typing import Any

CLASSIC_CARDS = {1: 2, 2: 4, 3: 10, 4: 14, 5: 16, 6: 15, 7: 12, 8: 9, 9: 6, 10: 5, 11: 4, 12: 3}
PRESETS: dict[str, dict[str, Any]] = {  # docs/ejection.md, "Presets and their expected statistics"
    "classic": {"miss_hazard": [0.30, 0.27, 0.32, 0.50, 1.0], "hit_repeat": [0.20, 0.06, 0.02], "cards": CLASSIC_CARDS,
                "suspense_chance": 0.15, "suspense_ms": [300, 1200]},
    "gentle": {"miss_hazard": [0.22, 0.20, 0.22, 0.25, 0.30, 0.45, 1.0], "hit_repeat": [0.10, 0.02],
               "cards": {1: 30, 2: 30, 3: 20, 4: 12, 5: 6, 6: 2}},
    "brutal": {"miss_hazard": [0.45, 0.45, 0.60, 1.0], "hit_repeat": [0.45, 0.30, 0.15],
               "cards": {3: 4, 4: 7, 5: 9, 6: 11, 7: 12, 8: 12, 9: 11, 10: 10, 11: 8, 12: 7, 13: 5, 14: 3, 15: 2},
               "suspense_chance": 0.25, "suspense_ms": [400, 1500]},
    "sequence": {"sequence": [2, 6, 9, 13, 17, 21, 24, 26, 27, 29, 32, 36, 37, 41, 44, 47, 48, 51, 54, 57, 58, 62, 66,
                              69, 72, 73, 77, 81, 84, 85, 88, 92, 93, 96], "cards": CLASSIC_CARDS},
}  # fmt: skip
ENTROPY = re.compile(r"[A-Za-z0-9+/=_-]{16,128}")
CARD_KEY = re.compile(r"[1-9][0-9]?")


def hmac_hex(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def sha_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def table(preset: str, custom: Any) -> dict[str, Any]:
    """The preset's parameters with the documented defaults; ValueError for a table that breaks the rules."""
    raw = PRESETS.get(preset) if preset != "custom" else custom
    if not isinstance(raw, dict):
        raise ValueError(f"unknown preset {preset!r}")
    cards: dict[int, float] = {}
    for key, weight in (raw.get("cards") or {}).items():
        if isinstance(key, str) and not CARD_KEY.fullmatch(key):
            raise ValueError(f"card count {key!r} is not canonical")
        count = int(key)
        if count in cards or not 1 <= count <= 30 or not isinstance(weight, int | float) or weight < 0:
            raise ValueError(f"card count {key!r} or its weight is out of the rules")
        cards[count] = weight
    if not any(w > 0 for w in cards.values()):
        raise ValueError("no card count has a weight")
    sequence = raw.get("sequence") or []
    miss = raw.get("miss_hazard", [0.0] if sequence else None)
    if miss is None:
        raise ValueError("no miss_hazard")
    counts = sorted(n for n, w in cards.items() if w > 0)
    sums, total = [], 0.0
    for n in counts:
        total += float(cards[n])
        sums.append(total)
    return {"miss": list(miss), "repeat": list(raw.get("hit_repeat", [0.2])), "counts": counts, "sums": sums,
            "chance": raw.get("suspense_chance", 0.0), "suspense": list(raw.get("suspense_ms", [0, 0])),
            "sequence": set(sequence), "period": raw.get("period", max(sequence) if sequence else 0)}  # fmt: skip


def plan(p: dict[str, Any], ms_per_card: int, state: dict[str, Any], player: str) -> tuple[dict[str, Any], str]:
    """The next press's plan and draw; advances ``state``."""
    digest = bytes.fromhex(hmac_hex(state["key"], f"press:{state['press']}:{player}"))
    u = [int.from_bytes(digest[8 * k : 8 * k + 8], "big") / 2**64 for k in range(4)]
    state["press"] += 1
    state["since_lid"] += 1
    run = state["run"]
    if p["sequence"]:
        fire = ((state["since_lid"] - 1) % p["period"]) + 1 in p["sequence"]
    else:
        chance = p["repeat"][min(run, len(p["repeat"])) - 1] if run > 0 else p["miss"][min(-run, len(p["miss"]) - 1)]
        fire = u[0] < chance
    state["run"] = max(run, 0) + 1 if fire else min(run, 0) - 1
    result = {"fire": fire, "cards": 0, "run_ms": 0, "power": 1.0, "suspense_ms": 0}
    if fire:
        target = u[1] * p["sums"][-1]
        result["cards"] = next((n for n, s in zip(p["counts"], p["sums"], strict=True) if target < s), p["counts"][-1])
        if u[2] < p["chance"]:
            low, high = p["suspense"]
            result["suspense_ms"] = math.trunc(low + u[3] * (high - low))
        result["run_ms"] = min(4000, 150 + result["cards"] * ms_per_card)
    return result, digest[:8].hex()


def same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def verify(events: list[dict[str, Any]], allow_rigged: bool = False) -> tuple[list[str], list[str]]:
    """(findings, warnings) for a table's events in seq order."""
    findings: list[str] = []
    warnings: list[str] = []
    rounds: dict[str, dict[str, Any]] = {}
    previous: Any = None  # the game's last commitment; "game" right after game_started; None: not known
    last_seq = None
    for event in events:
        seq, kind, key = event.get("seq"), event.get("type"), event.get("commitment")
        if isinstance(seq, int):
            if last_seq is not None and seq != last_seq + 1:
                findings.append(f"seq {seq} after {last_seq}")
            last_seq = seq
        if kind == "game_started":
            previous = "game"
        if kind in ("round_started", "ejection_commit"):
            if key is None and kind == "round_started":
                continue
            if not isinstance(key, str) or key in rounds:
                findings.append(f"seq {seq}: commitment opened twice or malformed")
                continue
            for other in rounds.values():
                if other["secret"] is None and not other["superseded"]:
                    other["superseded"] = True
                    findings.append(f"{other['key'][:12]}: never revealed before a later commitment")
            rounds[key] = {"key": key, "event": event, "ops": [], "commits": set(), "secret": None, "presses": None,
                           "superseded": False}  # fmt: skip
            if event.get("rigged") is True and not allow_rigged:
                findings.append(f"{key[:12]}: rigged")
            start = (event.get("run"), event.get("since_lid"))
            if start == (None, None):
                warnings.append(f"{key[:12]}: no starting streak (an older journal)")
            elif previous is not None:
                expected = (0, 0) if previous == "game" else streak_after(previous)
                if start != expected:
                    findings.append(f"{key[:12]}: starts at streak {start}, the previous commitment left {expected}")
            previous = rounds[key]
            continue
        if not isinstance(key, str) or kind not in (
            "press", "ejection_lid", "ejection_entropy", "ejection_carry", "ejection_entropy_commit",
            "ejection_entropy_withheld", "round_ended", "ejection_reveal", "hit",
        ):  # fmt: skip
            continue
        found = rounds.get(key)
        if found is None:
            if not rounds and kind in ("round_ended", "ejection_reveal"):
                continue  # the log begins after its opening (retention)
            findings.append(f"seq {seq}: {kind} under a commitment the log does not open")
            continue
        if kind == "hit":
            if event.get("manual") is True and not allow_rigged:
                findings.append(f"{key[:12]}: a manual hit")
        elif kind in ("round_ended", "ejection_reveal"):
            found["secret"], found["presses"] = str(event.get("secret")), event.get("presses")
        elif kind == "ejection_entropy_commit":
            found["commits"].add(event.get("hash"))
            if any(op.get("type") == "press" for op in found["ops"]):
                findings.append(f"{key[:12]}: an entropy commitment after the first press")
        elif kind == "ejection_entropy_withheld":
            warnings.append(f"{key[:12]}: entropy withheld by {event.get('client')}")
        else:
            found["ops"].append(event)
    for r in rounds.values():
        if r["secret"] is not None:
            findings.extend(f"{r['key'][:12]}: {f}" for f in check_round(r, warnings))
    return findings, warnings


def streak_after(r: dict[str, Any]) -> tuple[int, int]:
    """(run, since_lid) after a commitment's recorded presses (not the retried ones) and lid openings."""
    run, since_lid = r["event"].get("run") or 0, r["event"].get("since_lid") or 0
    for op in r["ops"]:
        if op["type"] == "press" and op.get("retry") is not True:
            fired = (op.get("plan") or {}).get("fire") is True
            run, since_lid = (max(run, 0) + 1 if fired else min(run, 0) - 1), since_lid + 1
        elif op["type"] == "ejection_lid":
            since_lid = 0
    return run, since_lid


def check_round(r: dict[str, Any], warnings: list[str]) -> list[str]:
    opened = r["event"]
    if sha_hex(r["secret"]) != r["key"]:
        return ["the secret does not hash to the commitment"]
    try:
        p = table(str(opened.get("preset", "classic")), opened.get("custom"))
    except ValueError as exc:
        return [f"unusable table: {exc}"]
    ms_per_card = opened.get("ms_per_card") or 110
    state = {"key": r["secret"], "press": 0, "run": opened.get("run") or 0, "since_lid": opened.get("since_lid") or 0}
    made: dict[Any, tuple[Any, ...]] = {}
    carried: set[Any] = set()
    out: list[str] = []
    for op in r["ops"]:
        kind = op["type"]
        if kind == "ejection_carry":
            carried.add(op.get("index"))
            continue
        recorded = (op.get("index"), op.get("player"), json.dumps(op.get("plan"), sort_keys=True), op.get("draw"))
        if kind == "press" and op.get("retry") is True:
            if op.get("index") not in carried or made.get(op.get("index")) != recorded:
                out.append(f"press {op.get('index')} repeated without its carried plan")
            carried.discard(op.get("index"))
            continue
        if kind == "press":
            due = state["press"]
            if op.get("index") != due:
                out.append(f"press {op.get('index')} where {due} was due")
            player = op.get("player") if isinstance(op.get("player"), str) else ""
            wanted, draw = plan(p, ms_per_card, state, player)
            if draw != op.get("draw") or not same_json(wanted, op.get("plan")):
                out.append(f"press {due} does not match")
            made[due] = recorded
            continue
        if op.get("press") != state["press"]:
            out.append(f"{kind} at press {op.get('press')} where {state['press']} was due")
        if kind == "ejection_lid":
            state["since_lid"] = 0
            continue
        entropy = op.get("entropy")
        if not isinstance(entropy, str) or not ENTROPY.fullmatch(entropy):
            out.append("malformed entropy")
            entropy = str(entropy)
        if "hash" not in op:
            warnings.append(f"{r['key'][:12]}: entropy without commit-then-reveal")
        elif op.get("hash") not in r["commits"] or sha_hex(entropy) != op.get("hash") or state["press"] != 0:
            out.append("entropy that no commitment covers")
        state["key"] = hmac_hex(state["key"], f"entropy:{entropy}")
    if r["presses"] != state["press"]:
        out.append(f"the reveal counts {r['presses']} presses, the events hold {state['press']}")
    return out


def main(argv: list[str]) -> int:
    strict, allow_rigged = "--strict" in argv, "--allow-rigged" in argv
    path = next(a for a in argv if not a.startswith("--"))
    with open(path, encoding="utf-8") as handle:
        events = [json.loads(line) for line in handle if line.strip()]
    findings, warnings = verify(events, allow_rigged)
    for line in findings + [f"warning: {w}" for w in warnings]:
        print(line)
    return 1 if findings or (strict and warnings) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
