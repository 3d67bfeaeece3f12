"""Ending the subprocesses tests start (brokers, daemons) without ever leaving one behind."""

from __future__ import annotations

import signal
import subprocess


def end_process(process: subprocess.Popen[bytes], timeout: float, signum: int = signal.SIGTERM) -> int:
    """Send ``signum`` (unless it has exited already) and wait; SIGKILL if it is still there after ``timeout``.

    Returns the exit code. Example::

        end_process(broker_process, 5)  # SIGTERM: a clean stop
        end_process(daemon_process, 10, signal.SIGKILL)  # a crash
    """
    if process.poll() is None:
        process.send_signal(signum)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
    return process.returncode
