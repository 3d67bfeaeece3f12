"""lgpio pins that re-claim an edge-alert line only once the kernel has let go of it (found by the virtual Pi).

**Why.** lgpio watches its alert lines from one thread that sleeps in ``ppoll()`` on the lines' request file
descriptors (0.5 ms at a time). Releasing an alert line — gpiozero's ``close()``, which re-claims it as an input,
or turning edge detection off — marks the alert inactive, waits at most 2 ms (10 × 200 µs) for that thread to
notice, then ``close()``\\ s the descriptor and claims the line again at once. But a ``ppoll()`` still in progress
holds its own reference to the request, so the kernel keeps the line requested until the thread wakes; on a busy or
emulated CPU that takes longer than 2 ms, and the immediate claim fails with ``lgpio.error: 'GPIO busy'`` (EBUSY
from ``GPIO_V2_GET_LINE_IOCTL``). The virtual Pi (``tools/vpi``) saw it in the daemon's stop (the UNO button) and
in ``unolauncher selftest``, which claims and closes every input in turn — not a line held by the stopped service.

**The fix** waits for the state it means: free the line in lgpio, then watch the line in the kernel (the GPIO v2
uAPI's ``GPIO_V2_GET_LINEINFO_WATCH_IOCTL`` on the chip: the line's info now, then an event when it changes) until it
is no longer requested, and only then claim it; every re-claim does the same (a new pull, a new function, the
close), as the arm64 guest once found a plain input still busy right after an alert on it was released.
A line still requested after ``RELEASE_TIMEOUT_S`` is held by something else: :class:`LineHeldError` names it.

Example (the structures as ``<linux/gpio.h>`` declares them)::

    >>> hex(GET_LINEINFO_WATCH), LINE_INFO.size, LINE_INFO_CHANGED.size
    ('0xc100b406', 256, 288)
    >>> LineInfo.unpack(LINE_INFO.pack(b"GPIO17", b"lg", 17, 0, FLAG_USED, b"")).used
    True
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from unolauncher.errors import UnolauncherError

# <linux/gpio.h>: struct gpio_v2_line_info (name[32], consumer[32], offset, num_attrs, flags, 10 attributes of 16
# bytes, padding[4]) and struct gpio_v2_line_info_changed (info, timestamp_ns, event_type, padding[5]).
LINE_INFO = struct.Struct("=32s32sIIQ160s16x")
LINE_INFO_CHANGED = struct.Struct(f"={LINE_INFO.size}sQI20x")
GET_LINEINFO_WATCH = (3 << 30) | (LINE_INFO.size << 16) | (0xB4 << 8) | 0x06  # _IOWR(0xB4, 0x06, ...)
FLAG_USED = 1 << 0  # GPIO_V2_LINE_FLAG_USED: requested by someone (a process, or the kernel itself)
RELEASE_TIMEOUT_S = 5.0  # lgpio's thread wakes within milliseconds; anything longer is another holder


class LineHeldError(UnolauncherError, RuntimeError):
    """The line stayed requested after lgpio released it: something else holds it; the message names it."""


@dataclass(frozen=True)
class LineInfo:
    offset: int
    consumer: str
    flags: int

    @property
    def used(self) -> bool:
        return bool(self.flags & FLAG_USED)

    @classmethod
    def unpack(cls, data: bytes) -> LineInfo:
        _name, consumer, offset, _attrs, flags, _attr_data = LINE_INFO.unpack(data)
        return cls(offset, consumer.split(b"\0", 1)[0].decode(errors="replace"), flags)


@contextlib.contextmanager
def _watched(chip: str, offset: int) -> Iterator[tuple[int, LineInfo]]:
    fd = os.open(chip, os.O_RDONLY | os.O_CLOEXEC)
    try:
        request = bytearray(LINE_INFO.pack(b"", b"", offset, 0, 0, b""))
        fcntl.ioctl(fd, GET_LINEINFO_WATCH, request)  # the info now, and from now on an event per change
        yield fd, LineInfo.unpack(bytes(request))
    finally:
        os.close(fd)  # ends the watch too


def line_info(chip: str, offset: int) -> LineInfo:
    """What the kernel says of line ``offset`` of ``chip`` (``/dev/gpiochipN``) now: its consumer and flags."""
    with _watched(chip, offset) as (_fd, info):
        return info


def wait_released(chip: str, offset: int, timeout: float = RELEASE_TIMEOUT_S) -> float:
    """Block until line ``offset`` of ``chip`` (``/dev/gpiochipN``) is not requested; the seconds it waited (0.0:
    it was free already).

    Event-driven: the kernel reports the release on the watching descriptor; nothing is polled on a timer.
    Raises :class:`LineHeldError` naming the holder when the line is still requested after ``timeout`` seconds.
    """
    started = time.monotonic()
    with _watched(chip, offset) as (fd, info):
        if not info.used:
            return 0.0
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while info.used:
            left = started + timeout - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                raise LineHeldError(
                    f"GPIO {offset} on {chip} is still requested by {info.consumer or 'the kernel'!r} "
                    f"{timeout:g} s after it was released here: another program holds it"
                )
            changed = os.read(fd, LINE_INFO_CHANGED.size)
            info = LineInfo.unpack(LINE_INFO_CHANGED.unpack(changed)[0])
    return time.monotonic() - started


def release_line(pin: Any, lgpio: Any) -> int | None:
    """Free ``pin``'s line if lgpio has it claimed (an input, an output or an edge alert), and wait until the kernel
    has freed it too.

    Returns the line's pin flags (bias, active-low, drive) to claim it with again, or ``None`` when lgpio did not
    have it (then nothing was done). Every lgpio claim of a claimed line is "free, then request at once"; with an
    alert, lgpio's thread may still hold the old request; and the virtual Pi's arm64 guest once had a plain input
    (no alert of its own: selftest's button, just re-claimed after its alert was released) still busy for gpiozero's
    ``_set_pull`` free-and-claim, so no re-claim here trusts the kernel to have let go.
    """
    handle = pin.factory._handle
    if handle is None:
        return None
    mode = lgpio.gpio_get_mode(handle, pin._number)
    if not mode & (pin.GPIO_IS_LG_INPUT | pin.GPIO_IS_LG_OUTPUT | pin.GPIO_IS_LG_ALERT):
        return None
    if pin._callback is not None:
        pin._callback.cancel()
        pin._callback = None
    lgpio.gpio_free(handle, pin._number)
    try:
        wait_released(f"/dev/gpiochip{pin.factory.chip}", pin._number)
    except OSError as exc:
        if exc.errno not in (errno.ENOTTY, errno.EINVAL):  # a kernel without the v2 uAPI: claim as before
            raise
    flags: int = mode & pin.GPIO_LINE_FLAGS_MASK
    return flags


def releasing_pin_class() -> type:
    """gpiozero's lgpio pin, except that leaving edge detection waits for the kernel to free the line first.

    lgpio and gpiozero's lgpio module are imported here, when the lgpio factory is chosen (not on machines
    without lgpio, nor by the tests' mock pins).

    Example (not a doctest: needs lgpio; what :func:`~unolauncher.launcher.factory.make_pin_factory` does)::

        factory = LGPIOFactory()
        factory.pin_class = releasing_pin_class()
    """
    import lgpio
    from gpiozero.pins.lgpio import LGPIOPin

    pulls = {"up": lgpio.SET_PULL_UP, "down": lgpio.SET_PULL_DOWN, "floating": lgpio.SET_PULL_NONE}

    class ReleasingLGPIOPin(LGPIOPin):  # gpiozero is untyped (Any): nothing to check against
        def close(self) -> None:
            release_line(self, lgpio)
            super().close()  # re-claims the line as an input, as gpiozero does (the factory's close frees it)

        def _disable_event_detect(self) -> None:
            flags = release_line(self, lgpio)
            if flags is None:
                super()._disable_event_detect()
            else:
                lgpio.gpio_claim_input(self.factory._handle, self._number, flags)

        def _set_function(self, value: Any) -> None:
            release_line(self, lgpio)
            super()._set_function(value)

        def _set_pull(self, value: Any) -> None:
            # gpiozero frees the line and claims it again with the new bias, at once: free it here and wait first.
            if value not in pulls or self.function != "input" or self.info.pull not in (value, ""):
                super()._set_pull(value)  # gpiozero's own refusal, before anything is freed
                return
            release_line(self, lgpio)
            lgpio.gpio_claim_input(self.factory._handle, self._number, pulls[value])

    return ReleasingLGPIOPin
