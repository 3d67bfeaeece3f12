"""The ejection model: purity, per-press randomness, the sequence preset, and each preset's statistics.

Statistical tests draw 100,000 presses from fixed seeds and compare with the exact figures of
``EjectionModel.expected()`` (docs/ejection.md). Tolerances are stated per check; each is more than 4 standard
errors of the sample (presses are correlated through the streak rules, so the error is taken as twice the
binomial one), so they fail for a real change and not by chance — and they are deterministic anyway.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import math
from typing import Any

import pytest

from unolauncher.rules.ejection import (
    ORIGINAL_SEQUENCE,
    EjectionConfigError,
    EjectionModel,
    FirePlan,
    commitment,
    mix_entropy,
    press_uniforms,
)

N = 100_000


def key(seed: int) -> str:
    """A round secret for a test: 64 hex characters, like the daemon draws."""
    return hashlib.sha256(f"test-key-{seed}".encode()).hexdigest()


def sample(model: EjectionModel, seed: int, n: int = N, player: str = "ann") -> list[FirePlan]:
    state = model.start(key(seed))
    plans = []
    for _ in range(n):
        plan, state = model.plan(state, player)
        plans.append(plan)
    return plans


def streaks(plans: list[FirePlan], fired: bool) -> list[int]:
    runs, current = [], 0
    for plan in plans:
        if plan.fire == fired:
            current += 1
        elif current:
            runs.append(current)
            current = 0
    return runs


def test_commitment_is_sha256_of_the_secret_text() -> None:
    assert commitment("ab" * 32) == hashlib.sha256(b"ab" * 32).hexdigest()


def test_plan_is_pure_and_repeatable() -> None:
    model = EjectionModel("classic")
    state = model.start(key(99))
    frozen = copy.deepcopy(state)
    first = model.plan(state, "ann")
    assert state == frozen  # input untouched
    assert model.plan(state, "ann") == first
    assert sample(model, 5, 500) == sample(EjectionModel("classic"), 5, 500)
    assert sample(model, 5, 500) != sample(model, 6, 500)
    assert sample(model, 5, 500) != sample(model, 5, 500, player="bob")  # the hitter is part of the draw


def test_state_is_json() -> None:
    model = EjectionModel("brutal")
    state = model.start(key(3))
    for _ in range(20):
        _, state = model.plan(state, None)
    assert json.loads(json.dumps(state)) == state


def test_randomness_of_press_i_depends_only_on_key_index_and_player() -> None:
    """Replaying from a saved mid-round state gives the same plans as playing straight through."""
    model = EjectionModel("classic")
    state = model.start(key(2024))
    plans = []
    saved: dict[str, Any] = {}
    for i in range(200):
        if i == 120:
            saved = json.loads(json.dumps(state))
        plan, state = model.plan(state, "ann")
        plans.append(plan)
    resumed = saved
    for i in range(120, 200):
        plan, resumed = model.plan(resumed, "ann")
        assert plan == plans[i]
    # The documented derivation (docs/ejection.md): u1 of press i by a player picks the card count.
    u = press_uniforms(key(2024), 7, "ann")
    digest = hmac.new(key(2024).encode(), b"press:7:ann", hashlib.sha256).digest()
    assert u[1] == int.from_bytes(digest[8:16], "big") / 2**64


def test_entropy_rekeys_every_later_press() -> None:
    model = EjectionModel("classic")
    state = model.start(key(1))
    mixed = model.with_entropy(state, "00112233445566778899")
    assert mixed["key"] == hmac.new(key(1).encode(), b"entropy:00112233445566778899", hashlib.sha256).hexdigest()
    assert mixed["key"] == mix_entropy(key(1), "00112233445566778899")
    assert {k: v for k, v in mixed.items() if k != "key"} == {k: v for k, v in state.items() if k != "key"}
    later = [model.plan(dict(s, press=i), "ann")[0] for s in (state, mixed) for i in range(40)]
    assert later[:40] != later[40:]


def test_sequence_preset_fires_on_the_original_presses() -> None:
    model = EjectionModel("sequence")
    plans = sample(model, 11, 96 * 2)
    fired = [i + 1 for i, plan in enumerate(plans) if plan.fire]
    assert fired[:34] == list(ORIGINAL_SEQUENCE)
    assert fired[34:] == [n + 96 for n in ORIGINAL_SEQUENCE]  # repeats every 96 presses


def test_sequence_restarts_on_lid_open_and_power_cycle() -> None:
    model = EjectionModel("sequence")
    state = model.start(key(1))
    for _ in range(5):
        _, state = model.plan(state, "ann")
    state = model.lid_opened(state)
    after_lid = []
    for _ in range(6):
        plan, state = model.plan(state, "ann")
        after_lid.append(plan.fire)
    assert after_lid == [False, True, False, False, False, True]  # presses 2 and 6 again
    assert state["press"] == 11  # the audit index keeps counting
    fresh = model.start(key(1))  # a new commitment starts the count again
    assert model.plan(fresh, "a")[0].fire is False and model.plan(model.plan(fresh, "a")[1], "a")[0].fire is True


def test_classic_hard_limits() -> None:
    plans = sample(EjectionModel("classic"), 77)
    assert max(streaks(plans, False)) == 4  # never more than 4 presses in a row without firing
    assert max(p.cards for p in plans) == 12 and min(p.cards for p in plans if p.fire) >= 1
    assert all(p.cards == 0 and p.run_ms == 0 for p in plans if not p.fire)


@pytest.mark.parametrize("preset, seed", [("classic", 1), ("gentle", 2), ("brutal", 3), ("sequence", 4)])
def test_preset_statistics_match_expected(preset: str, seed: int) -> None:
    model = EjectionModel(preset)
    want = model.expected()
    plans = sample(model, seed)
    fires = [p for p in plans if p.fire]
    fire_rate = len(fires) / N
    # fire rate: 2 x binomial standard error ~ 0.003; tolerance 0.012
    assert fire_rate == pytest.approx(want["fire_rate"], abs=0.012)
    mean_cards = sum(p.cards for p in fires) / len(fires)
    sd = math.sqrt(sum((p.cards - mean_cards) ** 2 for p in fires) / len(fires))
    assert mean_cards == pytest.approx(want["mean_cards"], abs=5 * sd / math.sqrt(len(fires)))
    share_3_8 = sum(1 for p in fires if 3 <= p.cards <= 8) / len(fires)
    assert share_3_8 == pytest.approx(want["p_cards_3_8"], abs=0.02)
    assert max(p.cards for p in fires) == want["max_cards"]
    assert max(streaks(plans, False)) == want["max_dry_run"]


def test_classic_matches_the_toy_description() -> None:
    """RULES.md 'With the launcher' + issue 3: ~1 in 3 fires, rarely more than 2 in a row, typically 3-8 cards."""
    want = EjectionModel("classic").expected()
    assert 0.30 <= want["fire_rate"] <= 0.36
    assert want["p_cards_3_8"] >= 0.7
    plans = sample(EjectionModel("classic"), 8)
    fire_runs = streaks(plans, True)
    share_three = sum(1 for r in fire_runs if r >= 3) / len(fire_runs)
    assert share_three == pytest.approx(want["p_three_fires"], abs=0.005)
    assert share_three < 0.03  # "rarely"


def test_preset_ordering_gentle_classic_brutal() -> None:
    rates = {p: EjectionModel(p).expected()["cards_per_press"] for p in ("gentle", "classic", "brutal")}
    assert rates["gentle"] < rates["classic"] < rates["brutal"]


def test_suspense_only_on_fires_and_within_bounds() -> None:
    plans = sample(EjectionModel("classic"), 21, 20_000)
    delayed = [p for p in plans if p.suspense_ms]
    fires = [p for p in plans if p.fire]
    assert all(p.fire for p in delayed) and all(300 <= p.suspense_ms <= 1200 for p in delayed)
    assert len(delayed) / len(fires) == pytest.approx(0.15, abs=0.02)
    assert not any(p.suspense_ms for p in sample(EjectionModel("gentle"), 21, 5000))


def test_run_ms_follows_card_count() -> None:
    plans = [p for p in sample(EjectionModel("classic"), 5, 2000) if p.fire]
    assert all(p.run_ms == 150 + 110 * p.cards and p.power == 1.0 for p in plans)


def test_custom_table() -> None:
    model = EjectionModel("custom", {"miss_hazard": [0.5, 1.0], "hit_repeat": [0.0], "cards": {"2": 1, "5": 1}})
    plans = sample(model, 9, 20_000)
    assert max(streaks(plans, False)) == 1 and max(streaks(plans, True)) == 1
    assert {p.cards for p in plans if p.fire} == {2, 5}
    assert model.expected()["fire_rate"] == pytest.approx(sum(p.fire for p in plans) / len(plans), abs=0.01)


def test_custom_sequence_table() -> None:
    model = EjectionModel("custom", {"sequence": [1, 3], "period": 4, "cards": {"1": 1}})
    assert [p.fire for p in sample(model, 0, 8)] == [True, False, True, False] * 2


@pytest.mark.parametrize(
    "table, message",
    [
        ({"miss_hazard": [0.5]}, "needs 'cards'"),
        ({"miss_hazard": [1.5], "cards": {"1": 1}}, "between 0 and 1"),
        ({"miss_hazard": [0.0], "cards": {"1": 1}}, "may never fire"),
        ({"miss_hazard": [0.5], "cards": {"x": 1}}, "in ASCII digits without a leading zero"),
        ({"miss_hazard": [0.5], "cards": {"40": 1}}, "from 1 to 30"),
        ({"miss_hazard": [0.5], "cards": {"2": 0}}, "must not all be zero"),
        ({"miss_hazard": [0.5], "cards": {"2": 1}, "speed": 3}, "unknown custom ejection key 'speed'"),
        ({"sequence": [5], "period": 4, "cards": {"1": 1}}, "between 1 and the period"),
        ("not a table", "must be a table"),
    ],
)
def test_bad_custom_tables_refused(table: Any, message: str) -> None:
    with pytest.raises(EjectionConfigError, match=message):
        EjectionModel("custom", table)


def test_unknown_preset_and_bad_key_refused() -> None:
    with pytest.raises(EjectionConfigError, match="unknown ejection preset 'wild'"):
        EjectionModel("wild")
    with pytest.raises(EjectionConfigError, match="needs a table"):
        EjectionModel("custom")
    with pytest.raises(EjectionConfigError, match="non-empty text"):
        EjectionModel().start(12)  # type: ignore[arg-type]
