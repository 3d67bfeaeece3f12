"""``unolauncher run``: the table daemon.

Example::

    $ unolauncher run                                 # /etc/unolauncher/config.toml, or defaults without it
    $ unolauncher run --config table.toml --state-dir ./.state

Exit codes: 0 after SIGTERM, SIGINT or SIGHUP (a stop was asked for); 2 for a configuration error, including a
machine with GPIO but no working pin factory (one line naming the key or what to install); 1 after an uncaught
exception in any thread; 3 when a critical thread stalled or died (the watchdog stopped pinging); 131 after SIGQUIT.
On every one of them the motor is switched off first. Every code but 0 makes systemd restart the service
(``Restart=on-failure``).
"""

from __future__ import annotations

import argparse
import logging
import signal
from pathlib import Path
from types import FrameType

from unolauncher.daemon import logqueue
from unolauncher.daemon.config import ConfigError, load_config

_say = logqueue.say
LOG_FLUSH_S = 2.0  # at exit, how long the last lines may take to be written

# SIGHUP too: an SSH session that drops while `dev.py run` runs in it must not skip switching the motor off.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, help="TOML configuration (default: /etc/unolauncher/config.toml if present)"
    )
    parser.add_argument("--state-dir", type=Path, help="where the journal lives (overrides table.state_dir)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])


def run(args: argparse.Namespace) -> int:
    # Through a bounded queue and a writer thread: a blocked stdout/stderr (a full journald, a pipe nobody reads)
    # drops log lines instead of blocking the daemon, its shutdown included (issue 26 item 5).
    logs = logqueue.install(args.log_level)
    try:
        return _run(args)
    finally:
        logs.flush(LOG_FLUSH_S)  # the last lines ("stopped"), if the output moves; never waited for longer
        if logs.borrowed:  # run in a test's process: its own handlers come back
            logs.uninstall()


def _run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        logqueue.complain(f"unolauncher run: {exc}")
        return 2
    if args.state_dir is not None:
        config.table.state_dir = str(args.state_dir)
    _say(f"config: {config.source}")

    from unolauncher.daemon.app import EXIT_CONFIG, EXIT_FAILED, EXIT_OK, EXIT_SIGQUIT, Daemon  # after the check

    daemon = Daemon(config, say=_say)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # Motor off first, on this (main) thread, waiting for nothing; the main loop then stops the rest.
        code = EXIT_SIGQUIT if signum == signal.SIGQUIT else EXIT_OK
        daemon.request_stop(code, f"signal {signal.Signals(signum).name}")

    for signum in STOP_SIGNALS:
        signal.signal(signum, on_signal)
    code = EXIT_FAILED
    try:
        daemon.start()
        code = daemon.run_until_stopped()
    except ConfigError as exc:
        logqueue.complain(f"unolauncher run: {exc}")
        code = EXIT_CONFIG
    except Exception:
        logging.getLogger("unolauncher.daemon").exception("the daemon failed")
    finally:
        daemon.shutdown()
    if code == EXIT_OK:
        _say("stopped")
    elif code != EXIT_CONFIG:
        _say(f"stopped with exit code {code}: {daemon.stop_reason or 'the daemon failed'}")
    return code
