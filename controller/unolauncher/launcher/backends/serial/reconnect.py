"""Connecting to the co-processor and reconnecting: open the port, HELLO, CONFIG, heartbeat, link loss, back-off.

Which thread: the first connection is opened on the thread that builds the launcher; later ones, the heartbeat and
the back-off run on the clock's timer thread; a read failure is noticed on the serial reader thread (started here,
one per connection, named ``serial-launcher``), a write failure on the timer thread. When the port fails or the
firmware falls silent, the run in progress ends as ``fault`` (the firmware's dead-man stops its motor), a ``fault``
event is emitted and the port is reopened with exponential back-off - so pulling the USB cable and plugging it back
in just works.

Example (not a doctest: a layer of SerialLauncher, which calls it)::

    launcher._lost(link, "read failed")  # run ends as fault, reconnect scheduled after the back-off
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import serial

from unolauncher.clock import TimerHandle
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.link import Link, SerialLink
from unolauncher.launcher.backends.serial.run import code_name

log = logging.getLogger("unolauncher.launcher.backends.serial")  # one logger name for the whole backend

OpenPort = Callable[..., Any]


class SerialConnection(SerialLink):
    """Opens the port, says HELLO and CONFIG, keeps the link alive and reopens it after a loss (see the module)."""

    # Set by SerialLauncher.__init__; declared here for the layers that read them.
    _open: OpenPort
    _thread: threading.Thread | None
    _closed: bool
    _backoff: float
    _reconnect_timer: TimerHandle | None

    def _connect(self) -> None:
        with self._lock:
            self._reconnect_timer = None
            if self._closed:
                return
            try:
                port = self._open(self.settings.port, baudrate=self.settings.baudrate, timeout=0.05, write_timeout=1.0)
            except (serial.SerialException, OSError, ValueError) as exc:
                self._schedule_reconnect(f"cannot open {self.settings.port}: {exc}")
                return
            link = Link(port, self._clock.now())
            self._link = link
            try:
                port.reset_input_buffer()
            except Exception:
                pass
            self._thread = threading.Thread(target=self._reader, args=(link,), name="serial-launcher", daemon=True)
            self._thread.start()
            self._command(
                link,
                sp.HELLO,
                bytes([sp.PROTOCOL_VERSION]),
                on_reply=self._hello_reply,
                on_timeout=lambda: self._lost(link, "no answer to HELLO: is the unolauncher firmware running there?"),
            )

    def _schedule_reconnect(self, reason: str) -> None:
        self._last_error = reason
        log.warning("serial launcher: %s; retrying in %.1f s", reason, self._backoff)
        self._reconnect_timer = self._clock.call_later(self._backoff, self._connect)
        self._backoff = min(self.settings.reconnect_max_s, self._backoff * 2)

    def _drop_link(self, link: Link) -> None:
        link.alive = False
        link.ready = False
        for cmd in link.pending.values():
            if cmd.timer is not None:
                cmd.timer.cancel()
        link.pending.clear()
        if link.heartbeat is not None:
            link.heartbeat.cancel()
        try:
            link.port.close()
        except Exception:
            pass

    def _lost(self, link: Link, reason: str) -> None:
        """The port failed or the firmware went silent: end the run, say so, reconnect later."""
        with self._lock:
            if not link.alive or self._link is not link:
                return
            self._link = None
            was_ready = link.ready
            self._drop_link(link)
            self.counters["link_losses"] += 1
            run = self._run
            self._device = {}
            if not self._closed:
                self._schedule_reconnect(reason)
        if run is not None:
            # The firmware's dead-man stops its motor once it hears nothing from us.
            self._resolve(run, self._fault_result(run, f"serial link lost: {reason}"))
        if was_ready or run is not None:
            self._emit(
                {"type": "fault", "reason": "link_lost", "message": f"Lost the launcher's co-processor: {reason}."}
            )

    def _reader(self, link: Link) -> None:
        port = link.port
        while link.alive and not self._closed:
            try:
                data = port.read(port.in_waiting or 1)
            except Exception as exc:  # SerialException, OSError, or TypeError/AttributeError from a closed port
                self._lost(link, f"read failed ({type(exc).__name__}: {exc})")
                return
            if data:
                self._on_bytes(link, data)

    def _heartbeat(self, link: Link) -> None:
        with self._lock:
            if not link.alive or self._link is not link:
                return
            if self._clock.now() - link.last_rx > self.settings.link_timeout_s:
                silent = True
            else:
                silent = False
                link.heartbeat = self._clock.call_later(self.settings.heartbeat_s, lambda: self._heartbeat(link))
        if silent:
            self._lost(link, f"co-processor silent for more than {self.settings.link_timeout_s:g} s")
            return
        self._command(link, sp.STATUS, b"", on_reply=self._status_reply, retries=0)

    def _hello_reply(self, code: int, info: Any) -> None:
        with self._lock:
            link = self._link
            if link is None:
                return
            if code != sp.AckCode.OK or info is None or info["version"] != sp.PROTOCOL_VERSION:
                reason = (
                    f"firmware refused HELLO ({code_name(code)})"
                    if code
                    else (f"firmware speaks protocol {info['version']}, this host {sp.PROTOCOL_VERSION}")
                )
                self._last_error = reason
            else:
                reason = ""
                link.info = info
                link.window.reset()
                link.ready = True
                self._backoff = self.settings.reconnect_min_s
                self.counters["connects"] += 1
                self._command(link, sp.CONFIG, self.settings.device.encode(), on_reply=self._config_reply)
                link.heartbeat = self._clock.call_later(self.settings.heartbeat_s, lambda: self._heartbeat(link))
        if reason:
            self._emit({"type": "fault", "reason": "protocol", "message": f"Launcher co-processor: {reason}."})
            self._lost(link, reason)
            return
        self._emit(
            {
                "type": "launcher_connected",
                "port": self.settings.port,
                "firmware": info["firmware"],
                "rebooted": info["first_since_boot"],
            }
        )
        if info["reset_cause"]:
            self._emit(
                {
                    "type": "fault",
                    "reason": "watchdog_reset",
                    "message": "The launcher's co-processor was reset by its watchdog.",
                }
            )

    def _config_reply(self, code: int, _: Any) -> None:
        if code != sp.AckCode.OK:
            self._emit(
                {
                    "type": "fault",
                    "reason": "protocol",
                    "message": f"Launcher co-processor refused the configuration ({code_name(code)}).",
                }
            )
