"""Randomized ejection model — STAND-IN, to be replaced by the launcher work (issue 3).

API contract (keep it when replacing this file):

    model = EjectionModel(preset="classic")        # immutable configuration
    state = model.start(seed)                      # JSON-serialisable dict
    plan, state = model.plan(state)                # pure: same state -> same plan and next state
    state = model.lid_opened(state)                # refill: reset counters that the lid resets
    commitment(seed) -> "sha256 hex"               # published at game start, seed revealed at game end

Randomness for press *i* is derived from (seed, i) only, so any outcome can be recomputed by an auditor.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from unolauncher.launcher.interface import FirePlan


def commitment(seed: int) -> str:
    """The public commitment to a game's seed: sha256 of its decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


class EjectionModel:
    """Stand-in: fires on about one press in three, 1–6 cards."""

    def __init__(self, preset: str = "classic", custom: Any = None, has_sensor: bool = True) -> None:
        self.preset = preset
        self.custom = custom
        self.has_sensor = has_sensor

    def start(self, seed: int) -> dict[str, Any]:
        return {"preset": self.preset, "seed": seed, "press": 0}

    def plan(self, state: dict[str, Any]) -> tuple[FirePlan, dict[str, Any]]:
        rng = random.Random(f"{state['seed']}:{state['press']}")
        fire = rng.random() < 1 / 3
        plan = FirePlan(fire=fire, cards=rng.randint(1, 6) if fire else 0, run_ms=800 if fire else 0)
        return plan, {**state, "press": state["press"] + 1}

    def lid_opened(self, state: dict[str, Any]) -> dict[str, Any]:
        return dict(state)
