"""Run state of the serial backend: the run in progress, what the firmware reports about it, and the callbacks.

Which thread: the serial reader thread (events and replies from the firmware: ``CARD``, ``DONE``, ``LID``,
``PRESS``...) and the clock's timer thread (a command's retries running out) end runs here; the caller's thread
reads the state through :meth:`~unolauncher.launcher.backends.serial.launcher.SerialLauncher.status`. Every change is
made under ``_lock``; ``done`` and the ``on_*`` callbacks are called outside it, each exactly once per event.

:class:`SerialRunState` is the lowest of the serial backend's layers (run state < link < reconnect < the public
:class:`~unolauncher.launcher.backends.serial.launcher.SerialLauncher`); it never touches the port.

Example (not a doctest: a layer of SerialLauncher, which sets its state up)::

    launcher._on_device_event(sp.CARD, bytes([2]))  # the firmware counted two cards of the run in progress
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from unolauncher.clock import TimerHandle
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.settings import SerialSettings
from unolauncher.launcher.events import done_callback_fault, empty_event, jam_event, lid_open_fault, max_run_event
from unolauncher.launcher.interface import (
    DoneCallback,
    EventCallback,
    FirePlan,
    FireResult,
    LidCallback,
    Outcome,
    PressCallback,
)

log = logging.getLogger("unolauncher.launcher.backends.serial")  # one logger name for the whole backend


class Run:
    """One accepted fire: its plan, its ``done`` callback, the FIRE sequence number, cards counted so far."""

    __slots__ = ("cards", "done", "plan", "seq", "watchdog")

    def __init__(self, plan: FirePlan, done: DoneCallback) -> None:
        self.plan = plan
        self.done = done
        self.seq = -1
        self.cards = 0
        self.watchdog: TimerHandle | None = None


class SerialRunState:
    """The run in progress and the launcher's sensor state, as the firmware reports them (see the module)."""

    # Set by SerialLauncher.__init__; declared here for the layers that read them.
    on_press: PressCallback | None
    on_uno: PressCallback | None
    on_lid: LidCallback | None
    on_event: EventCallback | None
    settings: SerialSettings
    counters: dict[str, int]
    _lock: threading.RLock
    _run: Run | None
    _device: dict[str, Any]
    _lid_open: bool
    _jammed: bool
    _magazine: int | None

    def _status_reply(self, code: int, status: Any) -> None:
        if status is not None:
            self._device = status
            if status["lid_open"] != self._lid_open:
                # A lid that was already open when we connected produces no LID event: the status tells us.
                self._set_lid(status["lid_open"])

    def _fire_reply(self, code: int, _: Any) -> None:
        if code == sp.AckCode.OK:
            return
        with self._lock:
            run = self._run
        if run is not None:
            self._resolve(run, self._fault_result(run, f"co-processor refused FIRE ({code_name(code)})"))

    def _on_device_event(self, kind: int, body: bytes) -> None:
        if kind == sp.PRESS:
            self._call(self.on_press)
        elif kind == sp.UNO:
            self._call(self.on_uno)
        elif kind == sp.LID:
            self._set_lid(bool(body[0]))
        elif kind == sp.CARD:
            with self._lock:
                if self._run is not None:
                    self._run.cards = body[0]
        elif kind == sp.DONE:
            self._on_done(*sp.decode_done(body))
        elif kind == sp.FAULT:
            name, detail = sp.decode_fault(body)
            self._emit({"type": "fault", "reason": name, "message": f"Launcher co-processor: {detail}."})

    def _set_lid(self, is_open: bool) -> None:
        with self._lock:
            if is_open == self._lid_open:
                return
            self._lid_open = is_open
            if is_open:
                self._magazine = self.settings.magazine  # refill: the estimate starts over
                self._jammed = False
        self._emit({"type": "lid_open" if is_open else "lid_closed"})
        callback = self.on_lid
        if callback is not None:
            try:
                callback(is_open)
            except Exception:
                log.exception("launcher lid callback failed")

    def _on_done(self, fire_seq: int, result: FireResult) -> None:
        with self._lock:
            run = self._run
            if run is None or run.seq != fire_seq:
                self.counters["stale_done"] += 1  # ends a run we already gave up on (link lost, overdue)
                return
            cards = result.cards_out
            self.counters["cards_counted"] += cards if result.counted else 0
            if self._magazine is not None and result.outcome in ("ok", "jam", "empty", "max_run", "stopped"):
                self._magazine = max(0, self._magazine - cards)
            if result.outcome in ("jam", "empty") and self._magazine is not None:
                # The host knows the magazine estimate; the firmware only knows whether any card came out.
                outcome: Outcome = "jam" if self._magazine > 0 else "empty"
                if outcome != result.outcome:
                    result = FireResult(result.cards_out, result.ran_ms, outcome, result.counted, result.detail)
            if result.outcome == "jam":
                self._jammed = True
            elif result.cards_out:
                self._jammed = False
            if result.outcome == "empty":
                self._magazine = 0
        event: dict[str, Any] | None = None
        if result.outcome == "jam":
            event = jam_event(cards, run.plan.cards)
        elif result.outcome == "empty":
            event = empty_event(cards)
        elif result.outcome == "max_run":
            event = max_run_event(self.settings.device.max_run_ms / 1000, cards)
        elif result.outcome == "fault" and result.detail == "lid_opened":
            event = lid_open_fault()
            result = FireResult(0, 0, "fault", result.counted, "lid is open: motor not started")
        elif result.detail == "lid_opened":
            result = FireResult(result.cards_out, result.ran_ms, result.outcome, result.counted, "lid opened")
        if event is not None:
            self._emit(event)
        self._resolve(run, result)

    def _fault_result(self, run: Run | None, detail: str) -> FireResult:
        cards = run.cards if run is not None else 0
        return FireResult(cards, 0, "fault", self.settings.device.has_sensor, detail)

    def _resolve(self, run: Run | None, result: FireResult) -> None:
        """End ``run`` with ``result`` exactly once (whoever gets here first wins)."""
        if run is None:
            return
        with self._lock:
            if self._run is not run:
                return
            self._run = None
            if run.watchdog is not None:
                run.watchdog.cancel()
        self._call_done(run.done, result)

    def _call_done(self, done: DoneCallback, result: FireResult) -> None:
        try:
            done(result)
        except Exception as exc:
            log.exception("launcher done callback failed")
            self._emit(done_callback_fault(exc))

    def _call(self, callback: PressCallback | None) -> None:
        if callback is None:
            return
        try:
            callback()
        except Exception:
            log.exception("launcher input callback failed")

    def _emit(self, event: dict[str, Any]) -> None:
        callback = self.on_event
        if callback is None:
            return
        try:
            callback(event)
        except Exception:
            log.exception("launcher event callback failed on %s", event.get("type"))


def code_name(code: int) -> str:
    """An ACK code as a word for messages (``"busy"``), or ``"code N"`` for one this host does not know."""
    try:
        return sp.AckCode(code).name.lower()
    except ValueError:
        return f"code {code}"
