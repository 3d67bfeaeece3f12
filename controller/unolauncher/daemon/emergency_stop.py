"""The emergency stop's state: may the launcher fire? (the ``disable`` / ``enable`` daemon commands).

Threads: any thread may :meth:`~EmergencyStop.apply` it — MQTT's network thread stops the motor on a ``disable``
right where the payload arrives (:meth:`~EmergencyStop.stop_now_if_disable`, before the command waits in the
table's queue), the table's worker on the commands and at start-up. The press path reads
:attr:`~EmergencyStop.enabled` without a lock (one attribute read). :attr:`~EmergencyStop.journalled` — the value the
journal holds (``launcher_disabled`` / ``launcher_enabled`` events, and the referee snapshot note) — is the
worker's alone.

Example::

    >>> stop = EmergencyStop(launcher=None)
    >>> stop.stop_now_if_disable(b'{"type": "disable", "by": "dashboard"}')
    True
    >>> stop.enabled, stop.journalled      # acted at once; the worker journals it in turn
    (False, True)
    >>> stop.stop_now_if_disable(b'{"type": "disable", "by": 7}')   # not a valid disable: the worker refuses it
    False
"""

from __future__ import annotations

from unolauncher.daemon.commands import check_daemon_command, decode_command
from unolauncher.launcher.interface import Launcher

# The emergency stop's events: journalled, so a restart comes back disabled if it went down disabled.
ENABLE_EVENTS = ("launcher_disabled", "launcher_enabled")


class EmergencyStop:
    """Whether presses may fire, and the launcher switched to match (motor off at once when disabled)."""

    def __init__(self, launcher: Launcher | None) -> None:
        self.launcher = launcher
        self.enabled = True  # read by the press path without a lock
        self.journalled = True  # the last value the journal holds (worker only)
        self.latched = False  # the daemon is stopping: nothing enables the launcher again (issue 26 item 1)
        self._last_queued_disable = False  # the last payload queued for the worker is a disable (under the queue lock)
        self.merged = 0  # disables answered at once because one already waits in the worker's queue

    def merge(self, emergency: bool) -> bool:
        """For each payload about to be queued for the worker (the table holds its queue lock): True when this one,
        a ``disable``, need not queue, because the last payload queued is a disable too.

        Every ``disable`` already acted (:meth:`stop_now_if_disable`); the queued one only journals it. With nothing
        queued since the last disable, no ``enable`` can come between it and this one, so this one would only find
        "already disabled": answered at once instead, so a flood of disables queues nothing (docs/reliability.md,
        "Figures behind the guards"). Any other payload queued in between makes the next disable queue again, so
        the journal's last word is always the last command's.
        """
        if not emergency:
            self._last_queued_disable = False
            return False
        if self._last_queued_disable:
            self.merged += 1
            return True
        self._last_queued_disable = True
        return False

    def apply(self, enabled: bool) -> None:
        """The emergency stop's effect: presses refused (read without a lock) and the launcher (motor off at once).
        After :meth:`latch`, enabling does nothing."""
        if enabled and self.latched:
            return
        self.enabled = enabled
        if self.launcher is not None:
            self.launcher.set_enabled(enabled)
        # A latch that came between the check above and the launcher call (a signal handler, another thread)
        # must win: switch off again. The GPIO backend's guard is halted by the latch as well, which no enable undoes.
        if enabled and self.latched:
            self.enabled = False
            if self.launcher is not None:
                self.launcher.set_enabled(False)

    def latch(self) -> None:
        """Off for good (shutdown): presses refused, the launcher disabled, and every later :meth:`apply` of
        ``True`` ignored. Signal-safe: one attribute write, then the launcher's emergency stop (its guard's lock)."""
        self.latched = True
        self.enabled = False
        if self.launcher is not None:
            self.launcher.set_enabled(False)

    def stop_now_if_disable(self, payload: bytes) -> bool:
        """If ``payload`` is a valid ``disable`` command: launcher disabled and presses refused now. Any thread."""
        command = decode_command(payload).command
        if command is None or command.get("type") != "disable" or check_daemon_command(command) is not None:
            return False
        self.apply(False)
        return True
