"""The table's retained launcher status and Home Assistant sensors (``launcher`` and ``sensors`` topics), and the
slow-moving diagnostics in them (the outbox backlog).

Thread: the **table's worker** — after a journalled batch, after a daemon command that changes what they show,
when idle (diagnostics), and on ``republish`` after a reconnect. Each payload is published only when it changed
(they are retained). The motor (:meth:`SensorPublisher.publish_motor`) is published from any thread, when a run
starts (the press's input thread, right after the motor is on) and ends (the run's thread): a run can fall between
two journal writes, and HA's Motor sensor must see every one. The one value written elsewhere is
:attr:`SensorPublisher.last_cards_out`, set by a run's hit on the launcher's timer thread: a single reference write
the worker reads at its next publish.

Example::

    >>> from unolauncher.daemon.interfaces import PresetChoice
    >>> class Out:
    ...     def launcher_status(self, status): print("launcher", status)
    ...     def sensors(self, values): print("sensors", sorted(values)[:3])
    >>> class NoJournal:
    ...     def outbox_size(self): return 0
    >>> sensors = SensorPublisher(Out(), None, NoJournal(), lambda: {}, PresetChoice("classic"))
    >>> sensors.publish({})
    sensors ['cards_out', 'current', 'hits_owed']
    >>> sensors.publish({})          # unchanged: nothing sent
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from unolauncher.bus.discovery import sensor_values
from unolauncher.daemon.interfaces import PresetChoice
from unolauncher.launcher.interface import Launcher


class Outbox(Protocol):
    def outbox_size(self) -> int: ...


class RetainedOutput(Protocol):
    """The part of :class:`~unolauncher.daemon.interfaces.TableOutput` this publishes to."""

    def launcher_status(self, status: dict[str, Any]) -> None: ...

    def sensors(self, values: dict[str, Any]) -> None: ...

    def motor(self, on: bool) -> None: ...


class SensorPublisher:
    """Publishes the launcher status and the sensors when they changed (see the module docstring: worker only).

    ``public_state()`` reads the referee's public state under the table's lock.
    """

    def __init__(
        self,
        output: RetainedOutput,
        launcher: Launcher | None,
        journal: Outbox,
        public_state: Callable[[], dict[str, Any]],
        preset: PresetChoice,
    ) -> None:
        self.output = output
        self.launcher = launcher
        self.journal = journal
        self.public_state = public_state
        self.preset = preset
        self.last_cards_out: int | None = None  # the last run's cards (the timer thread writes it: see above)
        self.outbox_backlog = 0
        self._last_launcher: dict[str, Any] = {}
        self._last_sensors: dict[str, Any] = {}
        self._motor_lock = threading.Lock()  # any thread: see publish_motor
        self._last_motor: bool | None = None

    def publish(self, public: dict[str, Any]) -> None:
        """Retained launcher status and Home Assistant sensors, each only when it changed (they are retained)."""
        launcher = self.launcher.status().to_json() if self.launcher else {}
        if launcher and launcher != self._last_launcher:
            self._last_launcher = launcher
            self.output.launcher_status(launcher)
        sensors = sensor_values(public, launcher, self.last_cards_out, self.outbox_backlog, self.preset.name)
        if sensors != self._last_sensors:
            self._last_sensors = sensors
            self.output.sensors(sensors)
        self.publish_motor()

    def motor_then(self, then: Callable[..., None]) -> Callable[..., None]:
        """``then`` preceded by :meth:`publish_motor`: the press handler's hooks after the motor started and after a
        run ended (wired in ``daemon/app.py``)."""

        def hook(*args: Any) -> None:
            self.publish_motor()
            then(*args)

        return hook

    def publish_motor(self) -> None:
        """Any thread: the motor as it is now, published if it changed. Read and published under one lock, so two
        threads (a run starting, a run ending) cannot publish their readings in the wrong order."""
        if self.launcher is None:
            return
        with self._motor_lock:
            status = self.launcher.status()
            # A run in progress counts from the press: a run with a suspense delay starts its motor only later,
            # after the press's hook has read it (a real Home Assistant missed 1 run in 6 that way).
            on = bool(status.motor_on or status.running)
            if on != self._last_motor:
                self._last_motor = on
                self.output.motor(on)

    def publish_launcher(self) -> None:
        """The launcher changed (not the referee): publish against the referee's public state as it stands."""
        self.publish(self.public_state())

    def refresh_diagnostics(self) -> None:
        """The worker was idle for a while: publish the outbox backlog if it changed. (Not per command, where a count
        of events still in flight would only flicker.)"""
        backlog = self.journal.outbox_size()
        if backlog != self.outbox_backlog:
            self.outbox_backlog = backlog
            self.publish_launcher()

    def forget(self) -> None:
        """After a reconnect the broker may have lost the retained topics: the next publish sends both again."""
        self._last_launcher, self._last_sensors = {}, {}
        with self._motor_lock:
            self._last_motor = None
        self.outbox_backlog = self.journal.outbox_size()
