"""The launcher behind a USB-serial co-processor (a Raspberry Pi Pico running ``firmware/``).

:class:`SerialLauncher` implements the same :class:`~unolauncher.launcher.interface.Launcher` protocol as the
GPIO launcher: the daemon cannot tell them apart. Motor timing, card counting, debouncing, the hard maximum run
time and the dead-man rule live in the firmware; this side speaks the framed protocol
(:mod:`~unolauncher.launcher.serial_protocol`, spec in ``docs/serial-protocol.md``):

- one reader thread per connection turns bytes into frames (garbage is dropped at the next delimiter);
- commands are retransmitted with the same sequence number until answered (the firmware answers a duplicate
  from its reply cache instead of executing it twice); events from the firmware are acknowledged and
  de-duplicated with a replay window;
- a STATUS request every ``heartbeat_s`` keeps the firmware's dead-man satisfied and proves the link is alive;
- when the port fails or the firmware falls silent, the run in progress ends as ``fault`` (the firmware's
  dead-man stops its motor), a ``fault`` event is emitted and the port is reopened with exponential back-off -
  so pulling the USB cable and plugging it back in just works.

Every wait (retransmission, heartbeat, back-off) goes through the injected :class:`~unolauncher.clock.Clock`.

Example (not a doctest: needs the co-processor on a serial port)::

    launcher = SerialLauncher(SerialSettings(port="/dev/ttyACM0"), RealClock())
    launcher.on_press = lambda: launcher.fire(FirePlan(fire=True, cards=3), print)
    ...
    launcher.close()          # STOP to the firmware, port closed
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import serial

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher import serial_protocol as sp
from unolauncher.launcher.events import done_callback_fault, empty_event, jam_event, lid_open_fault, max_run_event
from unolauncher.launcher.interface import (
    DoneCallback,
    EventCallback,
    FirePlan,
    FireResult,
    LauncherStatus,
    LidCallback,
    Outcome,
    PressCallback,
    require_in_range,
)
from unolauncher.launcher.setting import setting

log = logging.getLogger(__name__)

OpenPort = Callable[..., Any]
_REPLY_TYPES = {sp.HELLO: sp.HELLO_REPLY, sp.STATUS: sp.STATUS_REPLY}


@dataclass(frozen=True)
class SerialSettings:
    """Where the co-processor is and how patient to be with it.

    Example::

        >>> settings = SerialSettings(port="/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode-if00", magazine=40)
        >>> settings.baudrate, settings.device.retract_ms  # the defaults
        (115200, 120)
    """

    port: str
    baudrate: int = 115200  # ignored by USB CDC, used by a real UART
    heartbeat_s: float = 0.25  # STATUS request period; must stay well under device.deadman_ms
    reply_timeout_s: float = 0.2  # a command unanswered this long is sent again (same seq)
    retries: int = 4
    link_timeout_s: float = 1.0  # nothing heard for this long: the link is lost
    reconnect_min_s: float = 0.2
    reconnect_max_s: float = 5.0
    magazine: int | None = None  # cards loaded after a refill (lid opened); None = unknown
    device: sp.DeviceConfig = field(default_factory=sp.DeviceConfig)

    def __post_init__(self) -> None:
        checks = [
            ("port", bool(self.port)),
            ("heartbeat_s", 0.01 <= self.heartbeat_s <= 10),
            ("reply_timeout_s", 0.005 <= self.reply_timeout_s <= 10),
            ("retries", 0 <= self.retries <= 50),
            ("link_timeout_s", self.link_timeout_s > self.heartbeat_s),
            ("reconnect_min_s", 0.001 <= self.reconnect_min_s <= self.reconnect_max_s),
            ("magazine", self.magazine is None or 0 <= self.magazine <= 500),
            ("device.deadman_ms", self.device.deadman_ms >= 2 * self.heartbeat_s * 1000),
        ]
        require_in_range("serial launcher", self, checks)


class _Command:
    __slots__ = ("attempts", "frame", "on_reply", "on_timeout", "retries", "timer", "type")

    def __init__(self, msg_type: int, frame: bytes, on_reply: Callable[[int, Any], None] | None,
                 on_timeout: Callable[[], None] | None, retries: int) -> None:
        self.type = msg_type
        self.frame = frame
        self.on_reply = on_reply
        self.on_timeout = on_timeout
        self.retries = retries
        self.attempts = 0
        self.timer: TimerHandle | None = None


class _Link:
    """One open port and everything that only makes sense while it stays open."""

    def __init__(self, port: Any, now: float) -> None:
        self.port = port
        self.decoder = sp.FrameDecoder()
        self.window = sp.ReplayWindow()
        self.pending: dict[int, _Command] = {}
        self.ready = False
        self.info: dict[str, Any] = {}
        self.last_rx = now
        self.heartbeat: TimerHandle | None = None
        self.alive = True


class _Run:
    __slots__ = ("cards", "done", "plan", "seq", "watchdog")

    def __init__(self, plan: FirePlan, done: DoneCallback) -> None:
        self.plan = plan
        self.done = done
        self.seq = -1
        self.cards = 0
        self.watchdog: TimerHandle | None = None


class SerialLauncher:
    """The launcher on a serial co-processor; implements :class:`~unolauncher.launcher.interface.Launcher`.

    Example (not a doctest: needs the firmware simulator listening there)::

        launcher = SerialLauncher(SerialSettings(port="socket://127.0.0.1:7000"), RealClock())
        launcher.fire(FirePlan(fire=True, cards=2), lambda result: print(result.cards_out))
    """

    def __init__(self, settings: SerialSettings, clock: Clock, open_port: OpenPort | None = None,
                 backend: str = "serial") -> None:
        self.on_press: PressCallback | None = None
        self.on_uno: PressCallback | None = None
        self.on_lid: LidCallback | None = None
        self.on_event: EventCallback | None = None
        self.settings = settings
        self.backend = backend
        self._clock = clock
        self._open = open_port or serial.serial_for_url
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._link: _Link | None = None
        self._thread: threading.Thread | None = None
        self._run: _Run | None = None
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
        self.counters = {"frames_in": 0, "frame_errors": 0, "duplicates": 0, "retransmits": 0, "connects": 0,
                         "link_losses": 0, "cards_counted": 0, "stale_done": 0}
        self._connect()

    @classmethod
    def from_settings(cls, settings: Any, clock: Clock) -> SerialLauncher:
        """Build from the daemon's ``[launcher]`` settings (a mapping or an object with attributes).

        Keys: ``serial_port`` (or ``port``; a device path or any pyserial URL), ``magazine``, and the same
        timing keys as the GPIO launcher - ``jam_timeout_s``, ``max_run_s``, ``retract_ms``, ``retract_power``,
        ``debounce_ms`` - which are sent to the firmware; ``deadman_ms`` and ``baudrate`` are serial-only;
        ``pins.sensor = -1`` means no card sensor (open loop).

        Example (not a doctest: needs the co-processor on a serial port)::

            SerialLauncher.from_settings({"serial_port": "/dev/ttyACM0", "magazine": 40}, RealClock())
        """

        get = partial(setting, settings)
        port = get("serial_port") or get("port")
        if not port or not isinstance(port, str):
            raise ValueError("the serial backend needs serial_port (a device such as /dev/ttyACM0 or a pyserial URL)")
        pins = get("pins", {})
        has_sensor = not (isinstance(pins, dict) and pins.get("sensor") == -1)
        base = sp.DeviceConfig()

        def ms(key: str, scale: float, field: str) -> int:
            value = get(key)
            if value is None:
                return int(getattr(base, field))
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"launcher setting {key} must be a number, got {value!r}")
            result = round(value * scale)
            low, high = sp.DEVICE_LIMITS[field]
            if not low <= result <= high:
                raise ValueError(f"launcher setting {key}={value!r} is outside what the co-processor accepts "
                                 f"({low / scale:g} to {high / scale:g})")
            return result

        device = sp.DeviceConfig(
            deadman_ms=ms("deadman_ms", 1, "deadman_ms"),
            max_run_ms=ms("max_run_s", 1000, "max_run_ms"),
            jam_ms=ms("jam_timeout_s", 1000, "jam_ms"),
            retract_ms=ms("retract_ms", 1, "retract_ms"),
            retract_power=ms("retract_power", 100, "retract_power"),
            has_sensor=has_sensor,
            debounce_ms=ms("debounce_ms", 1, "debounce_ms"),
        )
        magazine = get("magazine")
        return cls(SerialSettings(port=port, baudrate=int(get("baudrate", 115200)), magazine=magazine, device=device),
                   clock)

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
                    local = FireResult(0, 0, "fault", counted=self.settings.device.has_sensor,
                                       detail="co-processor not connected")
                else:
                    local = FireResult(0, 0, "no_fire")
            else:
                run = _Run(plan, done)
                self._run = run
                run.seq = self._command(link, sp.FIRE, sp.encode_fire(plan), self._fire_reply,
                                        lambda: self._resolve(run, self._fault_result(run, "no answer to FIRE")))
                cfg = self.settings.device
                limit = (plan.suspense_ms + cfg.max_run_ms + cfg.retract_ms) / 1000 + 2.0
                run.watchdog = self._clock.call_later(limit, lambda: self._run_overdue(run))
        if local is not None:
            if local.outcome == "fault":
                self._emit({"type": "fault", "reason": "link_lost", "message": "The launcher's co-processor is not "
                            "connected: check its USB cable."})
            self._clock.call_later(0, lambda: self._call_done(done, local))
        return True

    def stop(self) -> None:
        """Abort the run in progress: STOP to the firmware; ``done`` gets ``stopped`` when it confirms."""
        with self._lock:
            run = self._run
            link = self._link
            if link is not None and link.ready:
                self._command(link, sp.STOP, b"", None,
                              lambda: self._resolve(run, self._fault_result(run, "STOP not acknowledged"))
                              if run is not None else None)
                return
        if run is not None:
            self._resolve(run, FireResult(run.cards, 0, "stopped", self.settings.device.has_sensor,
                                          "stopped on request"))

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
        """Press feedback (chime, dry-press tension) played by the firmware's LED and buzzer."""
        with self._lock:
            link = self._link
            if link is not None and link.ready:
                body = struct.pack(sp.SIGNAL_FMT, 1 if chime else 0, max(0, min(255, tension)))
                self._command(link, sp.SIGNAL, body, None, None, retries=0)

    def set_magazine(self, cards: int | None) -> None:
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
            self._resolve(run, FireResult(run.cards, 0, "stopped", self.settings.device.has_sensor,
                                          "launcher closed"))
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    # ------------------------------------------------------------------ connection

    def _connect(self) -> None:
        with self._lock:
            self._reconnect_timer = None
            if self._closed:
                return
            try:
                port = self._open(self.settings.port, baudrate=self.settings.baudrate, timeout=0.05,
                                  write_timeout=1.0)
            except (serial.SerialException, OSError, ValueError) as exc:
                self._schedule_reconnect(f"cannot open {self.settings.port}: {exc}")
                return
            link = _Link(port, self._clock.now())
            self._link = link
            try:
                port.reset_input_buffer()
            except Exception:
                pass
            self._thread = threading.Thread(target=self._reader, args=(link,), name="serial-launcher", daemon=True)
            self._thread.start()
            self._command(link, sp.HELLO, bytes([sp.PROTOCOL_VERSION]), self._hello_reply,
                          lambda: self._lost(link, "no answer to HELLO: is the unolauncher firmware running there?"))

    def _schedule_reconnect(self, reason: str) -> None:
        self._last_error = reason
        log.warning("serial launcher: %s; retrying in %.1f s", reason, self._backoff)
        self._reconnect_timer = self._clock.call_later(self._backoff, self._connect)
        self._backoff = min(self.settings.reconnect_max_s, self._backoff * 2)

    def _drop_link(self, link: _Link) -> None:
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

    def _lost(self, link: _Link, reason: str) -> None:
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
            self._emit({"type": "fault", "reason": "link_lost", "message": f"Lost the launcher's co-processor: "
                        f"{reason}."})

    def _reader(self, link: _Link) -> None:
        port = link.port
        while link.alive and not self._closed:
            try:
                data = port.read(port.in_waiting or 1)
            except Exception as exc:  # SerialException, OSError, or TypeError/AttributeError from a closed port
                self._lost(link, f"read failed ({type(exc).__name__}: {exc})")
                return
            if data:
                self._on_bytes(link, data)

    def _write(self, link: _Link, frame: bytes, report: bool = True) -> None:
        try:
            with self._write_lock:
                link.port.write(frame)
        except Exception as exc:
            if report:
                # Deferred: the caller may hold the lock or be inside fire(), and done must not run in there.
                reason = f"write failed ({type(exc).__name__}: {exc})"
                self._clock.call_later(0, lambda: self._lost(link, reason))
            else:
                raise

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFFFF
        return self._seq

    def _command(self, link: _Link, msg_type: int, body: bytes, on_reply: Callable[[int, Any], None] | None,
                 on_timeout: Callable[[], None] | None, retries: int | None = None) -> int:
        """Send a command and keep resending it (same seq) until a reply comes or the retries run out."""
        with self._lock:
            seq = self._next_seq()
            frame = sp.encode_frame(msg_type, seq, body)
            cmd = _Command(msg_type, frame, on_reply, on_timeout, self.settings.retries if retries is None else retries)
            link.pending[seq] = cmd
            cmd.timer = self._clock.call_later(self.settings.reply_timeout_s, lambda: self._retry(link, seq))
        self._write(link, frame)
        return seq

    def _retry(self, link: _Link, seq: int) -> None:
        with self._lock:
            cmd = link.pending.get(seq)
            if cmd is None or not link.alive:
                return
            if cmd.attempts < cmd.retries:
                cmd.attempts += 1
                self.counters["retransmits"] += 1
                cmd.timer = self._clock.call_later(self.settings.reply_timeout_s, lambda: self._retry(link, seq))
                frame = cmd.frame
            else:
                del link.pending[seq]
                frame = b""
        if frame:
            self._write(link, frame)
        elif cmd.on_timeout is not None:
            cmd.on_timeout()

    def _heartbeat(self, link: _Link) -> None:
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
        self._command(link, sp.STATUS, b"", self._status_reply, None, retries=0)

    # ------------------------------------------------------------------ incoming

    def _on_bytes(self, link: _Link, data: bytes) -> None:
        errors = link.decoder.errors
        frames = link.decoder.feed(data)
        if link.decoder.errors != errors:
            self.counters["frame_errors"] += link.decoder.errors - errors
            self._last_error = link.decoder.last_error
        for frame in frames:
            self.counters["frames_in"] += 1
            try:
                self._on_frame(link, frame)
            except (struct.error, IndexError, ValueError, UnicodeError) as exc:
                self.counters["frame_errors"] += 1
                self._last_error = f"malformed frame type 0x{frame.type:02x}: {exc}"
                log.warning("serial launcher: %s", self._last_error)
            except Exception:  # never let one odd frame kill the reader thread
                self.counters["frame_errors"] += 1
                log.exception("serial launcher: frame type 0x%02x could not be handled", frame.type)

    def _on_frame(self, link: _Link, frame: sp.Frame) -> None:
        link.last_rx = self._clock.now()
        kind = frame.type
        if kind == sp.ACK:
            seq, code = sp.decode_ack(frame.body)
            self._reply(link, seq, code, None, kind)
        elif kind == sp.HELLO_REPLY:
            info = sp.decode_hello_reply(frame.body)
            self._reply(link, info["seq"], sp.AckCode.OK, info, kind)
        elif kind == sp.STATUS_REPLY:
            status = sp.decode_status(frame.body)
            self._reply(link, status["seq"], sp.AckCode.OK, status, kind)
        elif 0x90 <= kind <= 0xAF:
            if not link.ready:
                return  # left over from before our HELLO; the firmware dropped them too
            if sp.is_reliable_event(kind):
                self._write(link, sp.encode_frame(sp.EVENT_ACK, self._next_seq(), struct.pack(">H", frame.seq)))
            verdict = link.window.check(frame.seq)
            if verdict is not sp.Verdict.NEW:
                self.counters["duplicates"] += 1
                return
            link.window.accept(frame.seq)
            self._on_device_event(kind, frame.body)

    def _reply(self, link: _Link, seq: int, code: int, payload: Any, kind: int) -> None:
        with self._lock:
            cmd = link.pending.get(seq)
            if cmd is None:
                return  # a late answer to a retransmitted command: already handled
            if kind != sp.ACK and kind != _REPLY_TYPES.get(cmd.type, sp.ACK):
                raise sp.FrameError(f"reply type 0x{kind:02x} does not answer command 0x{cmd.type:02x}")
            del link.pending[seq]
            if cmd.timer is not None:
                cmd.timer.cancel()
        if cmd.on_reply is not None:
            cmd.on_reply(code, payload)

    def _hello_reply(self, code: int, info: Any) -> None:
        with self._lock:
            link = self._link
            if link is None:
                return
            if code != sp.AckCode.OK or info is None or info["version"] != sp.PROTOCOL_VERSION:
                reason = f"firmware refused HELLO ({_code_name(code)})" if code else (
                    f"firmware speaks protocol {info['version']}, this host {sp.PROTOCOL_VERSION}")
                self._last_error = reason
            else:
                reason = ""
                link.info = info
                link.window.reset()
                link.ready = True
                self._backoff = self.settings.reconnect_min_s
                self.counters["connects"] += 1
                self._command(link, sp.CONFIG, self.settings.device.encode(), self._config_reply, None)
                link.heartbeat = self._clock.call_later(self.settings.heartbeat_s, lambda: self._heartbeat(link))
        if reason:
            self._emit({"type": "fault", "reason": "protocol", "message": f"Launcher co-processor: {reason}."})
            self._lost(link, reason)
            return
        self._emit({"type": "launcher_connected", "port": self.settings.port, "firmware": info["firmware"],
                    "rebooted": info["first_since_boot"]})
        if info["reset_cause"]:
            self._emit({"type": "fault", "reason": "watchdog_reset",
                        "message": "The launcher's co-processor was reset by its watchdog."})

    def _config_reply(self, code: int, _: Any) -> None:
        if code != sp.AckCode.OK:
            self._emit({"type": "fault", "reason": "protocol",
                        "message": f"Launcher co-processor refused the configuration ({_code_name(code)})."})

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
            self._resolve(run, self._fault_result(run, f"co-processor refused FIRE ({_code_name(code)})"))

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

    # ------------------------------------------------------------------ helpers

    def _fault_result(self, run: _Run | None, detail: str) -> FireResult:
        cards = run.cards if run is not None else 0
        return FireResult(cards, 0, "fault", self.settings.device.has_sensor, detail)

    def _run_overdue(self, run: _Run) -> None:
        with self._lock:
            link = self._link
            current = self._run is run
        if not current:
            return
        if link is not None and link.ready:
            self._command(link, sp.STOP, b"", None, None)
        self._resolve(run, self._fault_result(run, "no DONE from the co-processor in time"))
        self._emit({"type": "fault", "reason": "timeout", "message": "The launcher's co-processor did not finish "
                    "a run in time; it was told to stop."})

    def _resolve(self, run: _Run | None, result: FireResult) -> None:
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


def _code_name(code: int) -> str:
    try:
        return sp.AckCode(code).name.lower()
    except ValueError:
        return f"code {code}"


def release(port: str, timeout_s: float = 2.0) -> bool:
    """Ask the firmware on ``port`` to reboot into its REPL once (so ``mpremote`` can reach it).

    Example (not a doctest: a shell command)::

        python -m unolauncher.launcher.serial_launcher release /dev/ttyACM0
    """
    import time

    handle = serial.serial_for_url(port, baudrate=115200, timeout=0.05)
    try:
        decoder = sp.FrameDecoder()
        handle.write(sp.encode_frame(sp.HELLO, 1, bytes([sp.PROTOCOL_VERSION])))
        handle.write(sp.encode_frame(sp.RELEASE, 2))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for frame in decoder.feed(handle.read(64)):
                if frame.type == sp.ACK and sp.decode_ack(frame.body) == (2, sp.AckCode.OK):
                    return True
        return False
    finally:
        handle.close()


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m unolauncher.launcher.serial_launcher")
    sub = parser.add_subparsers(dest="action", required=True)
    rel = sub.add_parser("release", help="reboot the co-processor into its REPL once (for mpremote)")
    rel.add_argument("port")
    args = parser.parse_args(argv)
    try:
        ok = release(args.port)
    except (serial.SerialException, OSError) as exc:
        print(f"cannot open {args.port}: {exc}")
        return 1
    print("released: the co-processor reboots into its REPL" if ok else "no answer from the firmware")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
