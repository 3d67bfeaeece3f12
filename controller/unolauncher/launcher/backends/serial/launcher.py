"""The launcher behind a USB-serial co-processor (a Raspberry Pi Pico running ``firmware/``).

:class:`SerialLauncher` implements the same :class:`~unolauncher.launcher.interface.Launcher` protocol as the
GPIO launcher: the daemon cannot tell them apart. Motor timing, card counting, debouncing, the hard maximum run
time and the dead-man rule live in the firmware; this side speaks the framed protocol
(:mod:`~unolauncher.launcher.backends.serial.protocol`, spec in ``docs/serial-protocol.md``). The backend is built in
layers, one module per concern, each saying which thread runs it:

- :mod:`~unolauncher.launcher.backends.serial.settings`: :class:`SerialSettings` and reading them from ``[launcher]``;
- :mod:`~unolauncher.launcher.backends.serial.run`: the run in progress, card counts, lid, magazine, the callbacks;
- :mod:`~unolauncher.launcher.backends.serial.link`: frames, sequence numbers, retransmission, replies, events in;
- :mod:`~unolauncher.launcher.backends.serial.reconnect`: HELLO/CONFIG, heartbeat, link loss and back-off;
- this module: the public :class:`SerialLauncher` (the ``Launcher`` methods, called from the daemon's threads:
  the press path, the table worker, a signal handler's ``set_enabled``/``close``);
- :mod:`~unolauncher.launcher.backends.serial.cli`: ``python -m unolauncher.launcher.backends.serial release PORT``.

Every wait (retransmission, heartbeat, back-off) goes through the injected :class:`~unolauncher.clock.Clock`.

Example (not a doctest: needs the co-processor on a serial port)::

    launcher = SerialLauncher(SerialSettings(port="/dev/ttyACM0"), RealClock())
    launcher.on_press = lambda: launcher.fire(FirePlan(fire=True, cards=3), print)
    ...
    launcher.close()  # STOP to the firmware, port closed
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable
from typing import Any

import serial

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.link import Link
from unolauncher.launcher.backends.serial.reconnect import OpenPort, SerialConnection
from unolauncher.launcher.backends.serial.run import Run
from unolauncher.launcher.backends.serial.settings import SerialSettings, serial_settings_from
from unolauncher.launcher.interface import DoneCallback, FirePlan, FireResult, LauncherStatus

__all__ = ["OpenPort", "SerialLauncher", "SerialSettings"]


class SerialLauncher(SerialConnection):
    """The launcher on a serial co-processor; implements :class:`~unolauncher.launcher.interface.Launcher`.

    Example (not a doctest: needs the firmware simulator listening there)::

        launcher = SerialLauncher(SerialSettings(port="socket://127.0.0.1:7000"), RealClock())
        launcher.fire(FirePlan(fire=True, cards=2), lambda result: print(result.cards_out))
    """

    def __init__(
        self, settings: SerialSettings, clock: Clock, open_port: OpenPort | None = None, backend: str = "serial"
    ) -> None:
        self.on_press = None
        self.on_uno = None
        self.on_lid = None
        self.on_event = None
        self.settings = settings
        self.backend = backend
        self._clock = clock
        self._open = open_port or serial.serial_for_url
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._link: Link | None = None
        self._thread: threading.Thread | None = None
        self._run: Run | None = None
        self._seq = 0
        self._closed = False
        self._enabled = True
        self._backoff = settings.reconnect_min_s
        self._reconnect_timer: TimerHandle | None = None
        self._device: dict[str, Any] = {}
        self._lid_open = False
        self._jammed = False
        self._magazine = settings.magazine
        self._last_error = ""
        self.counters = {
            "frames_in": 0,
            "frame_errors": 0,
            "duplicates": 0,
            "retransmits": 0,
            "connects": 0,
            "link_losses": 0,
            "cards_counted": 0,
            "stale_done": 0,
        }
        self._connect()

    @classmethod
    def from_settings(cls, settings: Any, clock: Clock) -> SerialLauncher:
        """Build from the daemon's ``[launcher]`` settings (a mapping or an object with attributes); the keys are
        :func:`~unolauncher.launcher.backends.serial.settings.serial_settings_from`'s.

        Example (not a doctest: needs the co-processor on a serial port)::

            SerialLauncher.from_settings({"serial_port": "/dev/ttyACM0", "magazine": 40}, RealClock())
        """
        return cls(serial_settings_from(settings), clock)

    # ------------------------------------------------------------------ Launcher protocol

    def fire(self, plan: FirePlan, done: DoneCallback) -> bool:
        """Send the plan to the firmware; ``False`` if a run is already in progress. Never blocks on the port."""
        local: FireResult | None = None
        with self._lock:
            if self._run is not None or self._closed or not self._enabled:
                return False
            link = self._link
            if link is None or not link.ready:
                if plan.fire:
                    local = FireResult(
                        0, 0, "fault", counted=self.settings.device.has_sensor, detail="co-processor not connected"
                    )
                else:
                    local = FireResult(0, 0, "no_fire")
            else:
                run = Run(plan, done)
                self._run = run
                run.seq = self._command(
                    link,
                    sp.FIRE,
                    sp.encode_fire(plan),
                    on_reply=self._fire_reply,
                    on_timeout=lambda: self._resolve(run, self._fault_result(run, "no answer to FIRE")),
                )
                cfg = self.settings.device
                limit = (plan.suspense_ms + cfg.max_run_ms + cfg.retract_ms) / 1000 + 2.0
                run.watchdog = self._clock.call_later(limit, lambda: self._run_overdue(run))
        if local is not None:
            if local.outcome == "fault":
                self._emit(
                    {
                        "type": "fault",
                        "reason": "link_lost",
                        "message": "The launcher's co-processor is not connected: check its USB cable.",
                    }
                )
            self._clock.call_later(0, lambda: self._call_done(done, local))
        return True

    def stop(self) -> None:
        """Abort the run in progress: STOP to the firmware; ``done`` gets ``stopped`` when it confirms."""
        with self._lock:
            run = self._run
            link = self._link
            if link is not None and link.ready:
                self._command(
                    link,
                    sp.STOP,
                    b"",
                    on_timeout=lambda: (
                        self._resolve(run, self._fault_result(run, "STOP not acknowledged"))
                        if run is not None
                        else None
                    ),
                )
                return
        if run is not None:
            self._resolve(
                run, FireResult(run.cards, 0, "stopped", self.settings.device.has_sensor, "stopped on request")
            )

    def set_enabled(self, enabled: bool) -> None:
        """The emergency stop: ``False`` sends STOP at once and refuses every fire until ``True`` (the firmware's
        dead-man and max-run limits stop the motor on the co-processor itself if the link is gone)."""
        self._enabled = enabled
        if not enabled:
            self.stop()

    def status(self) -> LauncherStatus:
        dev = self._device
        link = self._link
        return LauncherStatus(
            backend=self.backend,
            # the firmware's last STATUS, unless that run has ended since (DONE arrives before the next STATUS)
            motor_on=bool(dev.get("motor_on")) and self._run is not None and link is not None and link.ready,
            running=self._run is not None,
            lid_open=self._lid_open,
            magazine_estimate=self._magazine,
            jammed=self._jammed,
            has_sensor=self.settings.device.has_sensor,
            enabled=self._enabled,
            extra={
                "connected": bool(link is not None and link.ready),
                "port": self.settings.port,
                "firmware": dict(link.info) if link is not None else {},
                "device": dict(dev),
                "last_error": self._last_error,
                **self.counters,
            },
        )

    def indicate(self, chime: bool, tension: int) -> None:
        """Press feedback (chime, dry-press tension) played by the firmware's LED and buzzer; sent once, not resent,
        and dropped while the co-processor is not connected (feedback is never worth a retransmission)."""
        with self._lock:
            link = self._link
            if link is not None and link.ready:
                body = struct.pack(sp.SIGNAL_FMT, 1 if chime else 0, max(0, min(255, tension)))
                self._command(link, sp.SIGNAL, body, retries=0)

    def probe(self, answer: Callable[[int, dict[str, Any] | None], None]) -> bool:
        """Ask the firmware for the wiring selftest's readings (PROBE, resent until answered). ``answer(code,
        readings)`` runs on the reader thread: ``(0, sp.decode_probe(...))``, an ACK error code with ``None`` (busy,
        or firmware without PROBE: unknown type), or ``(-1, None)`` when no answer came. ``False``: not connected."""
        with self._lock:
            link = self._link
            if link is None or not link.ready:
                return False
            self._command(link, sp.PROBE, b"", on_reply=answer, on_timeout=lambda: answer(-1, None))
        return True

    def health(self, now: float, deadline_s: float) -> list[str]:
        """Always empty: this side has no thread that can hold the motor on. The reader thread waits on the port by
        design; when it or the firmware stops making progress, the heartbeat reports a link loss (a ``fault``) and
        the firmware's dead-man stops its motor on its own (``device.deadman_ms``)."""
        return []

    def set_magazine(self, cards: int | None) -> None:
        """The cards loaded (``None`` = unknown), for the magazine estimate; a count above zero clears ``jammed``."""
        with self._lock:
            self._magazine = cards
            if cards:
                self._jammed = False

    def close(self) -> None:
        """STOP to the firmware (best effort), port closed, run ended as ``stopped``. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            run = self._run
            link = self._link
            self._link = None
            if self._reconnect_timer is not None:
                self._reconnect_timer.cancel()
            if link is not None:
                try:
                    self._write(link, sp.encode_frame(sp.STOP, self._next_seq()), report=False)
                    link.port.flush()
                except Exception:
                    pass
                self._drop_link(link)
        if run is not None:
            self._resolve(run, FireResult(run.cards, 0, "stopped", self.settings.device.has_sensor, "launcher closed"))
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    def _run_overdue(self, run: Run) -> None:
        with self._lock:
            link = self._link
            current = self._run is run
        if not current:
            return
        if link is not None and link.ready:
            self._command(link, sp.STOP, b"")
        self._resolve(run, self._fault_result(run, "no DONE from the co-processor in time"))
        self._emit(
            {
                "type": "fault",
                "reason": "timeout",
                "message": "The launcher's co-processor did not finish a run in time; it was told to stop.",
            }
        )
