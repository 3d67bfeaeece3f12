"""The GPIO launcher's input edges: button, UNO button, card beam and lid switch.

Which thread: gpiozero's callback thread (one per pin factory: lgpio's alert thread on a Pi; under mock pins the
thread that drives the pin). Nothing here takes a lock of its own: the filters' state below is only touched on that
thread, and what changes the launcher's state is handed to
:class:`~unolauncher.launcher.backends.gpio.runs.RunControl` (which takes its lock). Each edge is timed for the
watchdog (:attr:`GpioInputs.progress`) and guarded: an exception switches the motor off and ends the run as ``fault``.

Filters: button and UNO edges closer than ``debounce_ms`` to the previous edge are contact bounce; the card beam
ignores a falling edge closer than ``beam_min_gap_ms`` (4 ms, as the co-processor firmware) to the last card it
counted: a flicker of the beam as one card passes is one card, not two. The lid's debounce is the run control's
(it decides what the lid means for a run).

Example (not a doctest: a part of GpioLauncher, which builds the devices)::

    inputs = GpioInputs(DeviceSettings(), clock, runs, lid_level_open=lambda: not lid.is_active)
    button.when_activated = inputs.button_pressed
"""

from __future__ import annotations

from collections.abc import Callable

from unolauncher.clock import Clock
from unolauncher.launcher.backends.gpio.entry import input_edge
from unolauncher.launcher.backends.gpio.runs import RunControl
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.interface import PressCallback
from unolauncher.progress import Progress


class GpioInputs:
    """Edge handlers for gpiozero's ``when_activated``/``when_deactivated``, with their filters and counters."""

    def __init__(
        self, settings: DeviceSettings, clock: Clock, runs: RunControl, lid_level_open: Callable[[], bool]
    ) -> None:
        self.on_press: PressCallback | None = None
        self.on_uno: PressCallback | None = None
        self.progress = Progress()  # edge callbacks still running, for health()
        self.bounces = 0  # button edges dropped by the debounce
        self.beam_glitches = 0  # beam edges dropped by the glitch filter
        self._settings = settings
        self._clock = clock
        self._runs = runs
        self._lid_level_open = lid_level_open
        self._last_button_edge = -1e9
        self._last_uno_edge = -1e9
        self._last_card_edge = -1e9

    def fault(self, message: str) -> None:
        """An edge handler failed: the run control switches the motor off and reports it."""
        self._runs.fault(message)

    @input_edge
    def card(self) -> None:
        """Falling edge of the beam: a card (unless the beam flickered)."""
        now = self._clock.now()
        if now - self._last_card_edge < self._settings.beam_min_gap_ms / 1000:
            self.beam_glitches += 1  # the beam flickered as a card passed: that card was counted already
            return
        self._last_card_edge = now
        self._runs.card()

    @input_edge
    def button_pressed(self) -> None:
        now = self._clock.now()
        if now - self._last_button_edge < self._settings.debounce_ms / 1000:
            self._last_button_edge = now
            self.bounces += 1
            return
        self._last_button_edge = now
        callback = self.on_press
        if callback is not None:
            try:
                callback()
            except Exception:
                self._runs.motor_off()  # a broken press path must not leave the motor running
                raise

    def button_released(self) -> None:
        self._last_button_edge = self._clock.now()

    @input_edge
    def uno_pressed(self) -> None:
        now = self._clock.now()
        if now - self._last_uno_edge < self._settings.debounce_ms / 1000:
            self.bounces += 1
            return
        self._last_uno_edge = now
        if self.on_uno is not None:
            self.on_uno()

    @input_edge
    def lid_edge(self) -> None:
        self._runs.lid_edge(self._lid_level_open())
