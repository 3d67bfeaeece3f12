"""When switching the motor off does not return: end the process at once, and say why without waiting.

A pin write that never returns (a driver or kernel call stuck) holds the motor guard's lock, so the next "motor off"
— the watchdog's, SIGTERM's — would wait on that lock for ever, the process would never exit, and the motor would stay
on until systemd's own watchdog killed it. Every stop path therefore switches the motor off through
:func:`off_or_exit`: at once, on the calling thread (a signal handler's motor-off waits for no thread to be
scheduled), watched by a bare thread that, if the call has not returned within :data:`OFF_WAIT_S`, runs
:func:`exit_now`: one line to stderr without blocking, systemd told, the process ended with ``os._exit`` — no
clean-up that could wait on the stuck thread. The kernel then releases the GPIO lines (``dtparam=strict_gpiod``;
the driver inputs' pull-downs hold them low) and systemd restarts the service (a non-zero code).

Example::

    >>> off_or_exit(lambda: None, lambda: print("exit now"))   # returned in time: nothing else happens
    True
    >>> import threading
    >>> within(threading.Event().wait, 0.05)   # never returns: given up on after 0.05 s
    False
"""

from __future__ import annotations

import _thread
import fcntl
import os
import threading
from collections.abc import Callable

OFF_WAIT_S = 0.5  # how long a "motor off" may take before the process ends itself (it takes microseconds)


def within(action: Callable[[], object], timeout: float = OFF_WAIT_S) -> bool:
    """Run ``action`` on a daemon thread of its own; True if it finished within ``timeout`` (signal-safe)."""
    worker = threading.Thread(target=action, name="motor-off", daemon=True)
    worker.start()
    worker.join(timeout)
    return not worker.is_alive()


def off_or_exit(off: Callable[[], object], give_up: Callable[[], object], timeout: float = OFF_WAIT_S) -> bool:
    """Run ``off`` now on this thread; if it has not returned within ``timeout``, a watcher runs ``give_up`` (which
    ends the process: :func:`exit_now`). The watcher is a bare thread (``_thread``): starting it waits for nothing."""
    done = threading.Event()

    def watch() -> None:
        if not done.wait(timeout):
            give_up()

    _thread.start_new_thread(watch, ())
    try:
        off()
    finally:
        done.set()
    return True


def say_now(line: str, fd: int = 2) -> None:
    """Write ``line`` to ``fd`` (stderr: the journal under systemd) if it can be done without waiting; else drop it."""
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)  # the process ends next: nobody else shares it for long
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8", "replace")[:4096])
    except OSError:
        pass


def exit_now(code: int, reason: str, notify: Callable[..., object] | None = None) -> None:
    """Say why (stderr, systemd's ``STATUS=``), then end the process at once with ``code``."""
    line = f"CRITICAL unolauncher.daemon: {reason}; exiting at once (code {code}) without waiting for the stuck thread"
    say_now(line)
    if notify is not None:
        try:
            notify(f"STATUS={line}"[:400])
        except Exception:
            pass
    os._exit(code)
