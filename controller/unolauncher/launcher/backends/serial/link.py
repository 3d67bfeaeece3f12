"""The serial link of the serial backend: framing, sequence numbers, retransmission, replies and events in.

Which thread: commands are sent from the caller's thread (``fire``, ``stop``, ``indicate``) and from the clock's
timer thread (heartbeat, retransmission); bytes are read on the serial reader thread, one per connection
(:mod:`~unolauncher.launcher.backends.serial.reconnect` starts it), which decodes frames, matches replies to the
commands waiting for them and hands the firmware's events to
:class:`~unolauncher.launcher.backends.serial.run.SerialRunState`. A command is resent with the same sequence number
until answered (the firmware answers a duplicate from its reply cache); reliable events are acknowledged and
de-duplicated with a replay window.

Example (not a doctest: a layer of SerialLauncher, which opens the port)::

    launcher._command(link, sp.STATUS, b"", on_reply=on_reply, retries=0)  # one STATUS request, not resent
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable
from typing import Any

from unolauncher.clock import Clock, TimerHandle
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.run import SerialRunState

log = logging.getLogger("unolauncher.launcher.backends.serial")  # one logger name for the whole backend

_REPLY_TYPES = {sp.HELLO: sp.HELLO_REPLY, sp.STATUS: sp.STATUS_REPLY, sp.PROBE: sp.PROBE_REPLY}


class Command:
    """One command waiting for its reply: the frame to resend (same seq), attempts so far, what to call."""

    __slots__ = ("attempts", "frame", "on_reply", "on_timeout", "retries", "timer", "type")

    def __init__(
        self,
        msg_type: int,
        frame: bytes,
        on_reply: Callable[[int, Any], None] | None,
        on_timeout: Callable[[], None] | None,
        retries: int,
    ) -> None:
        self.type = msg_type
        self.frame = frame
        self.on_reply = on_reply
        self.on_timeout = on_timeout
        self.retries = retries
        self.attempts = 0
        self.timer: TimerHandle | None = None


class Link:
    """One open port and everything that only makes sense while it stays open."""

    def __init__(self, port: Any, now: float) -> None:
        self.port = port
        self.decoder = sp.FrameDecoder()
        self.window = sp.ReplayWindow()
        self.pending: dict[int, Command] = {}
        self.ready = False
        self.info: dict[str, Any] = {}
        self.last_rx = now
        self.heartbeat: TimerHandle | None = None
        self.alive = True


class SerialLink(SerialRunState):
    """Commands out (resent until answered) and frames in, over the open :class:`Link` (see the module)."""

    # Set by SerialLauncher.__init__; declared here for the layers that read them.
    _clock: Clock
    _write_lock: threading.Lock
    _link: Link | None
    _seq: int
    _last_error: str

    def _lost(self, link: Link, reason: str) -> None:
        """The port failed: provided by :class:`~unolauncher.launcher.backends.serial.reconnect.SerialConnection`."""
        raise NotImplementedError

    def _write(self, link: Link, frame: bytes, report: bool = True) -> None:
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

    def _command(
        self,
        link: Link,
        msg_type: int,
        body: bytes,
        *,
        on_reply: Callable[[int, Any], None] | None = None,
        on_timeout: Callable[[], None] | None = None,
        retries: int | None = None,
    ) -> int:
        """Send a command and keep resending it (same seq) until a reply comes or the retries run out."""
        with self._lock:
            seq = self._next_seq()
            frame = sp.encode_frame(msg_type, seq, body)
            cmd = Command(msg_type, frame, on_reply, on_timeout, self.settings.retries if retries is None else retries)
            link.pending[seq] = cmd
            cmd.timer = self._clock.call_later(self.settings.reply_timeout_s, lambda: self._retry(link, seq))
        self._write(link, frame)
        return seq

    def _retry(self, link: Link, seq: int) -> None:
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

    # ------------------------------------------------------------------ incoming

    def _on_bytes(self, link: Link, data: bytes) -> None:
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

    def _on_frame(self, link: Link, frame: sp.Frame) -> None:
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
        elif kind == sp.PROBE_REPLY:
            probe = sp.decode_probe(frame.body)
            self._reply(link, probe["seq"], sp.AckCode.OK, probe, kind)
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

    def _reply(self, link: Link, seq: int, code: int, payload: Any, kind: int) -> None:
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
