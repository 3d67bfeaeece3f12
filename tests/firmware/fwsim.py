"""The co-processor under CPython: the real firmware (``firmware/unofw``) on the fake ``machine``, with a
simulated motor, magazine, card-exit beam, button and lid.

* :class:`Harness` - virtual time, in-memory data channel: the firmware loop is stepped by hand (unit tests).
* :class:`SimDevice` - real time, one end of a pty pair, the firmware loop in a thread, reachable at a stable
  symlink path (like ``/dev/serial/by-id/...``) that survives "unplugging" and "plugging in" again.

Example::

    h = Harness(magazine=10)
    h.hello()
    h.command(FIRE, encode_fire(FirePlan(fire=True, cards=3)))
    h.loop(500)
    assert h.done()[0].cards_out == 3
"""

from __future__ import annotations

import os
import select
import struct
import threading
import tty
from pathlib import Path
from typing import Any

from firmware.mpfakes import ensure_firmware_path, load_rp2040, machine, mp_time
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.interface import FireResult

ensure_firmware_path()
from unofw.app import Firmware, run_forever, step  # noqa: E402


class MemoryStream:
    """The data channel as two byte buffers (host side: :meth:`host_write`, :meth:`host_read`). With
    ``reading = False`` the host has stopped reading: the port takes nothing (a real USB CDC write would block).
    ``writes`` keeps the size of every write call the firmware made."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.to_device = bytearray()
        self.to_host = bytearray()
        self.reading = True
        self.writes: list[int] = []

    def read(self) -> bytes | None:
        with self._lock:
            data = bytes(self.to_device)
            self.to_device.clear()
        return data or None

    def writable(self) -> bool:
        return self.reading

    def write(self, data: bytes) -> int:
        if not self.reading:
            raise AssertionError("the firmware wrote to a port that said it could take nothing (it would block)")
        with self._lock:
            self.to_host.extend(data)
            self.writes.append(len(data))
        return len(data)

    def host_write(self, data: bytes) -> None:
        with self._lock:
            self.to_device.extend(data)

    def host_read(self) -> bytes:
        with self._lock:
            data = bytes(self.to_host)
            self.to_host.clear()
        return data


class PtyStream:
    """The device end of a pty pair, non-blocking; a vanished host is not an error (bytes are dropped)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)

    def read(self) -> bytes | None:
        try:
            return os.read(self.fd, 512) or None
        except (BlockingIOError, OSError):
            return None

    def writable(self) -> bool:
        try:
            return bool(select.select([], [self.fd], [], 0)[1])
        except (OSError, ValueError):
            return True  # a vanished host: write() drops the bytes

    def write(self, data: bytes) -> int:
        try:
            return os.write(self.fd, data)
        except BlockingIOError:
            return 0
        except OSError:
            return len(data)  # nobody listens any more: the bytes are gone, as on an unplugged cable


class Physics:
    """Motor, magazine and beam. Cards leave at ``cards_per_s * power`` once the motor has run forward for
    ``spinup_ms``; each breaks the beam for ``pulse_ms``. ``jam_after``: the mechanism jams after that many cards.
    Inputs (button, lid) are driven from a queue of timed level changes, so any thread may ask for a press."""

    def __init__(
        self,
        board: Any,
        magazine: int = 40,
        cards_per_s: float = 40.0,
        spinup_ms: int = 15,
        pulse_ms: int = 2,
        jam_after: int | None = None,
    ) -> None:
        self.board = board
        self.magazine = magazine
        self.cards_per_s = cards_per_s
        self.spinup_ms = spinup_ms
        self.pulse_ms = pulse_ms
        self.jam_after = jam_after
        self.ejected = 0
        self.forward_ms = 0
        self.reverse_ms = 0
        self.trace: list[tuple[int, int]] = []  # (ms, direction) at every change: +1 forward, -1 reverse, 0 off
        self._acc = 0.0
        self._on_for = 0
        self._last: int | None = None
        self._last_card: int | None = None
        self._free_at: dict[int, int] = {}
        self._lock = threading.Lock()
        self._actions: list[tuple[int, Any, int]] = []
        board._lid.drive(0)  # the box starts closed (the switch pulls the input low)

    def at(self, delay_ms: int, pin: Any, level: int) -> None:
        with self._lock:
            self._actions.append((mp_time.raw_ms() + delay_ms, pin, level))
            self._actions.sort(key=lambda a: a[0])

    def press(self, hold_ms: int = 60, bounce: bool = True, pin: Any = None) -> None:
        """A human press: contact bounce on the way down and on the way up (active low). A finger cannot press
        again before it let go: a press asked for too early starts 40 ms after the previous one ended."""
        pin = pin if pin is not None else self.board._button
        now = mp_time.raw_ms()
        start = max(0, self._free_at.get(id(pin), 0) + 40 - now)
        steps = [(0, 0), (1, 1), (2, 0), (4, 1), (5, 0)] if bounce else [(0, 0)]
        steps += [(hold_ms, 1), (hold_ms + 1, 0), (hold_ms + 3, 1)] if bounce else [(hold_ms, 1)]
        for delay, level in steps:
            self.at(start + delay, pin, level)
        self._free_at[id(pin)] = now + start + hold_ms + 3

    def set_lid(self, is_open: bool) -> None:
        self.at(0, self.board._lid, 1 if is_open else 0)

    def motor(self) -> tuple[float, bool]:
        duty, direction = self.board.motor_state()
        return duty / 65535, direction == 1

    def step(self, now: int) -> None:
        dt = 1 if self._last is None else max(0, now - self._last)
        self._last = now
        with self._lock:
            due = [a for a in self._actions if a[0] <= now]
            self._actions = [a for a in self._actions if a[0] > now]
        for due_ms, pin, level in due:
            with mp_time.edge_at(due_ms):  # the IRQ stamps the edge when the finger moved, not when we got to it
                pin.drive(level)
        power, forward = self.motor()
        direction = 0 if power <= 0 else (1 if forward else -1)
        if not self.trace or self.trace[-1][1] != direction:
            self.trace.append((now, direction))
        if power > 0 and forward:
            self.forward_ms += dt
            self._on_for += dt
            if self._on_for >= self.spinup_ms:
                self._acc += self.cards_per_s * power * dt / 1000
        else:
            if power > 0:
                self.reverse_ms += dt
            self._on_for = 0
            self._acc = 0.0
        # One card at a time, each a separate beam pulse: a late step (the host is a busy 2-core machine) slows
        # the simulated card rate instead of merging two cards into one pulse.
        self._acc = min(self._acc, 1.0)
        spaced = self._last_card is None or now - self._last_card >= self.pulse_ms + 4
        if self._acc >= 1.0 and spaced and self.board._beam.value() == 1:
            self._acc -= 1.0
            jammed = self.jam_after is not None and self.ejected >= self.jam_after
            if self.magazine > 0 and not jammed:
                self.magazine -= 1
                self.ejected += 1
                self._last_card = now
                self.board._beam.drive(0)
                self.at(self.pulse_ms, self.board._beam, 1)


MOTOR_ROLES = ("motor_enable", "motor_forward", "motor_reverse")


def fitted_pull_downs(pins: dict[str, int], missing: tuple[str, ...] = ()) -> set[int]:
    """The GPIOs of the motor lines whose pull-down is fitted (every one but ``missing``)."""
    unknown = set(missing) - set(MOTOR_ROLES)
    if unknown:
        raise ValueError(f"not motor lines: {sorted(unknown)}")
    return {pins[role] for role in MOTOR_ROLES if role not in missing}


class Harness:
    """Firmware + board + physics in virtual time, with a host side that speaks the protocol by hand."""

    def __init__(self, **physics: Any) -> None:
        mp_time.use_virtual(0)
        machine.next_reset_cause = physics.pop("reset_cause", machine.PWRON_RESET)
        driver = physics.pop("driver", None)
        self.rp2040 = load_rp2040()
        machine.pulled_down = fitted_pull_downs(self.rp2040.PINS, physics.pop("missing_pull_downs", ()))
        self.stream = MemoryStream()
        self.board = self.rp2040.Rp2040Board(stream=self.stream, driver=driver)
        self.physics = Physics(self.board, **physics)
        mp_time.hooks.append(self.physics.step)
        self.fw = Firmware(self.board)
        self.board.on_guard = self.fw.motor_guard_tripped
        self.decoder = sp.FrameDecoder()
        self.received: list[sp.Frame] = []
        self.seq = 100
        self.auto_ack = True

    # time
    def loop(self, ms: int) -> None:
        for _ in range(ms):
            step(self.fw, self.board)
            self._collect()

    def _collect(self) -> None:
        data = self.stream.host_read()
        if not data:
            return
        for frame in self.decoder.feed(data):
            self.received.append(frame)
            if self.auto_ack and sp.is_reliable_event(frame.type):
                self.stream.host_write(sp.encode_frame(sp.EVENT_ACK, self._next(), struct.pack(">H", frame.seq)))

    # host side
    def _next(self) -> int:
        self.seq = (self.seq + 1) & 0xFFFF
        return self.seq

    def send_raw(self, data: bytes) -> None:
        self.stream.host_write(data)

    def send(self, msg_type: int, body: bytes = b"", seq: int | None = None) -> int:
        seq = self._next() if seq is None else seq
        self.stream.host_write(sp.encode_frame(msg_type, seq, body))
        return seq

    def replies_to(self, seq: int) -> list[sp.Frame]:
        return [
            f
            for f in self.received
            if f.type in (sp.ACK, sp.HELLO_REPLY, sp.STATUS_REPLY) and struct.unpack(">H", f.body[:2])[0] == seq
        ]

    def command(self, msg_type: int, body: bytes = b"", seq: int | None = None) -> sp.Frame:
        seq = self.send(msg_type, body, seq)
        self.loop(2)
        replies = self.replies_to(seq)
        assert replies, f"no reply to command 0x{msg_type:02x} seq {seq}"
        return replies[-1]

    def ack_code(self, msg_type: int, body: bytes = b"", seq: int | None = None) -> int:
        reply = self.command(msg_type, body, seq)
        assert reply.type == sp.ACK
        return sp.decode_ack(reply.body)[1]

    def hello(self) -> dict[str, Any]:
        return sp.decode_hello_reply(self.command(sp.HELLO, bytes([sp.PROTOCOL_VERSION])).body)

    def configure(self, **changes: Any) -> int:
        import dataclasses

        return self.ack_code(sp.CONFIG, dataclasses.replace(sp.DeviceConfig(), **changes).encode())

    def status(self) -> dict[str, Any]:
        return sp.decode_status(self.command(sp.STATUS).body)

    def events(self, msg_type: int) -> list[sp.Frame]:
        return [f for f in self.received if f.type == msg_type]

    def done(self) -> list[FireResult]:
        seen: set[int] = set()
        out = []
        for f in self.events(sp.DONE):
            if f.seq not in seen:
                seen.add(f.seq)
                out.append(sp.decode_done(f.body)[1])
        return out

    def motor_on(self) -> bool:
        return bool(self.board.motor_state()[0])


class SimDevice:
    """The firmware on a pty in real time, in a thread; ``unplug()``/``plug()`` simulate the USB cable."""

    def __init__(self, link: Path, missing_pull_downs: tuple[str, ...] = (), **physics: Any) -> None:
        """``missing_pull_downs``: motor roles whose external pull-down (R2-R4) the simulated board lacks."""
        self.link = link
        self.physics_args = physics
        self.boots = 0
        self.resets = 0
        self.board: Any = None
        self.physics: Physics | None = None
        self.fw: Firmware | None = None
        self._thread: threading.Thread | None = None
        self._stop = False
        self._fds: tuple[int, int] | None = None
        mp_time.use_real()
        self.rp2040 = load_rp2040()
        self.rp2040.SAFE_FLAG = str(link.parent / "unofw_safe")  # RELEASE writes its flag here, not to /
        machine.pulled_down = fitted_pull_downs(self.rp2040.PINS, missing_pull_downs)
        self.plug()

    def plug(self, **physics: Any) -> None:
        """Power up (a new firmware instance: the Pico is bus-powered) on a fresh pty behind the same path."""
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo before the host opens it, or the firmware would hear itself
        self._fds = (master, slave)
        if self.link.is_symlink() or self.link.exists():
            self.link.unlink()
        self.link.symlink_to(os.ttyname(slave))
        args = {**self.physics_args, **physics}
        magazine = self.physics.magazine if self.physics is not None and "magazine" not in physics else None
        self.board = self.rp2040.Rp2040Board(stream=PtyStream(master))
        self.physics = Physics(self.board, **args)
        if magazine is not None:
            self.physics.magazine = magazine
        mp_time.hooks.append(self.physics.step)
        self._stop = False
        self.boots += 1
        ready = threading.Event()
        self.fw = Firmware(self.board)

        def main() -> None:
            def should_stop() -> bool:
                ready.set()
                return self._stop

            try:
                run_forever(self.board, should_stop, self.fw)
            except machine.ResetCalled:  # RELEASE: machine.reset() - the "Pico" reboots (into its REPL)
                self.resets += 1

        self._thread = threading.Thread(target=main, name="sim-firmware", daemon=True)
        self._thread.start()
        ready.wait(5)

    def unplug(self) -> None:
        """Pull the cable: the firmware stops (no power), the pty and the path vanish."""
        self._stop = True
        if self._thread is not None:
            self._thread.join(5)
        if self.physics is not None and self.physics.step in mp_time.hooks:
            mp_time.hooks.remove(self.physics.step)
        if self._fds is not None:
            for fd in self._fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._fds = None
        if self.link.is_symlink():
            self.link.unlink()

    def close(self) -> None:
        self.unplug()
        mp_time.use_real()
        machine.pulled_down = set()

    # the outside world
    def press(self, hold_ms: int = 60) -> None:
        assert self.physics is not None
        self.physics.press(hold_ms)

    def press_uno(self) -> None:
        assert self.physics is not None
        self.physics.press(40, pin=self.board._uno)

    def set_lid(self, is_open: bool) -> None:
        assert self.physics is not None
        self.physics.set_lid(is_open)

    def motor_on(self) -> bool:
        return self.board is not None and bool(self.board.motor_state()[0])

    def send_garbage(self, data: bytes) -> None:
        """Line noise from the device side (e.g. a brown-out glitch)."""
        assert self._fds is not None
        os.write(self._fds[0], data)
