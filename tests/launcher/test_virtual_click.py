"""The ``press`` command's button (VirtualLauncher.click): every call is one press the device sees, even one made
while the last press still holds the button down — a press that used to make no edge and vanish without a word
(issue #25: presses lost right after a vetoed fire). The finger on the switch (press_button) is unchanged."""

from __future__ import annotations

from .conftest import Rig


def test_clicks_inside_a_hold_are_each_one_press(rig: Rig) -> None:
    presses: list[float] = []
    rig.launcher.on_press = lambda: presses.append(rig.clock.now())
    rig.sim.click()
    rig.clock.advance(0.01)  # 10 ms later the button is still down (press_ms = 80)
    rig.sim.click()
    rig.sim.click()
    rig.clock.advance(2.0)
    assert len(presses) == 3, presses  # the device took each one past its debounce
    assert rig.launcher._inputs.bounces == 0


def test_a_press_while_the_button_is_held_makes_no_edge(rig: Rig) -> None:
    presses: list[float] = []
    rig.launcher.on_press = lambda: presses.append(rig.clock.now())
    rig.sim.press_button()
    rig.clock.advance(0.01)
    rig.sim.press_button()  # the finger cannot press a button that is down: what click() is there for
    rig.clock.advance(2.0)
    assert len(presses) == 1


def test_a_flood_of_clicks_waits_for_no_more_than_a_few(rig: Rig) -> None:
    rig.launcher.on_press = lambda: None
    taken = [rig.sim.click() for _ in range(100)]
    assert taken.count(True) == 9 and taken[:9] == [True] * 9, taken  # one pressed now, 8 waiting
