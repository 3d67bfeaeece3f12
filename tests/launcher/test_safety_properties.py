"""Safety properties of the device under random sequences of presses, lid moves, jams and time (hypothesis),
plus a smoke test of the daemon's configuration: the virtual backend on the real clock (threads, no deadlock)."""

from __future__ import annotations

import threading
import time
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.claims import ModelClaims
from unolauncher.clock import RealClock, VirtualClock
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.factory import create_launcher
from unolauncher.launcher.interface import FireResult
from unolauncher.launcher.press import PressHandler
from unolauncher.rules.ejection import EjectionModel

from .conftest import make_rig

MAX_RUN_S = 2.0
STEP = st.one_of(
    st.tuples(st.just("press"), st.floats(0.0, 0.3)),
    st.tuples(st.just("open_lid"), st.just(0.0)),
    st.tuples(st.just("close_lid"), st.just(0.0)),
    st.tuples(st.just("jam"), st.just(0.0)),
    st.tuples(st.just("refill"), st.integers(0, 20)),
    st.tuples(st.just("wait"), st.floats(0.0, 3.0)),
    st.tuples(st.just("stop"), st.just(0.0)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, max_size=25), preset=st.sampled_from(["classic", "brutal"]), seed=st.integers(0, 99))
def test_motor_safety_invariants(steps: list[tuple[str, Any]], preset: str, seed: int) -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    clock = VirtualClock()
    rig = make_rig(
        factory,
        clock,
        settings=DeviceSettings(max_run_s=MAX_RUN_S, magazine=10),
        params=VirtualParams(magazine=10, cards_per_s=3.0, pulse_ms=10, seed=seed),
    )
    violations: list[str] = []
    forward_since: list[float] = []

    def motor_changed() -> None:
        if rig.sim.motor_pin_high and rig.sim.lid_open:
            violations.append(f"motor switched on with the lid open at {clock.now()}")
        if rig.sim.motor_direction == "forward":
            if not forward_since:
                forward_since.append(clock.now())
        elif forward_since:
            ran = clock.now() - forward_since.pop()
            if ran > MAX_RUN_S + 1e-6:
                violations.append(f"motor ran forward {ran:.3f} s")

    for role in ("motor_enable", "motor_forward", "motor_reverse"):
        rig.sim.pin(role).listeners.append(motor_changed)
    hits: list[FireResult] = []
    claims = ModelClaims(EjectionModel(preset), secret=f"{seed:064x}")
    PressHandler(rig.launcher, claims.claim, lambda p, plan, r: hits.append(r), lambda e: None,
                 on_lid_opened=claims.lid_opened)  # fmt: skip
    accepted_fires = 0
    try:
        for action, value in steps:
            if action == "press":
                before = claims.presses
                rig.sim.press_button(hold_s=0.05)
                if claims.presses > before and hits[-1:] != [FireResult(0, 0, "no_fire")]:
                    accepted_fires += 1
                clock.advance(value)
            elif action == "open_lid":
                rig.sim.open_lid()
                assert not rig.sim.motor_pin_high or rig.sim.motor_direction == "reverse"
            elif action == "close_lid":
                rig.sim.close_lid()
            elif action == "jam":
                rig.sim.jam()
            elif action == "refill":
                rig.sim.refill(value)
            elif action == "wait":
                clock.advance(value)
            else:
                rig.launcher.stop()
                assert not rig.sim.motor_pin_high
            if rig.launcher.lid_open:
                assert not rig.sim.motor_pin_high
        clock.advance(MAX_RUN_S + 5)  # everything settles
        assert not rig.sim.motor_pin_high and not rig.launcher.running
        assert violations == []
        assert claims.presses == len(hits)  # every claimed press got exactly one result
        assert rig.sim.cards_out == rig.launcher.cards_counted + rig.launcher.stray_cards
    finally:
        rig.launcher.close()
        factory.reset()


def test_virtual_backend_on_the_real_clock() -> None:
    """The daemon's set-up: RealClock timers on their own threads; a press comes back as a hit, no deadlock."""
    launcher, sim = create_launcher({"backend": "virtual", "magazine": 20, "retract_ms": 30}, RealClock())
    assert sim is not None
    got = threading.Event()
    hits: list[Any] = []

    def on_hit(player: str | None, plan: Any, result: FireResult) -> None:
        hits.append(result)
        got.set()

    always = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"2": 1}}
    try:
        PressHandler(launcher, ModelClaims(EjectionModel("custom", always)).claim, on_hit, lambda e: None)
        time.sleep(0.06)  # the lid line settles (debounce on the real clock)
        sim.press_button()
        assert sim.motor_pin_high
        assert got.wait(5), "no hit within 5 s"
        assert hits[0].cards_out == 2 and hits[0].outcome == "ok" and sim.magazine == 18
    finally:
        launcher.close()
    assert not sim.motor_pin_high
