"""``unolauncher run``: the table daemon.

Example::

    $ unolauncher run                                 # /etc/unolauncher/config.toml, or defaults without it
    $ unolauncher run --config table.toml --state-dir ./.state

Exit codes: 0 after SIGTERM/SIGINT, 2 for a configuration error (one line naming the key), 1 for anything else.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path
from types import FrameType

from unolauncher.daemon.config import ConfigError, load_config


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, help="TOML configuration (default: /etc/unolauncher/config.toml if present)"
    )
    parser.add_argument("--state-dir", type=Path, help="where the journal lives (overrides table.state_dir)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])


def _say(text: str) -> None:
    print(text, flush=True)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"unolauncher run: {exc}", file=sys.stderr)
        return 2
    if args.state_dir is not None:
        config.table.state_dir = str(args.state_dir)
    _say(f"config: {config.source}")

    from unolauncher.daemon.app import Daemon  # after the config check: a typo should not wait for imports

    daemon = Daemon(config, say=_say)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        daemon.request_stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        daemon.start()
        daemon.run_until_stopped()
    except ConfigError as exc:
        print(f"unolauncher run: {exc}", file=sys.stderr)
        return 2
    except Exception:
        logging.getLogger("unolauncher.daemon").exception("the daemon failed")
        return 1
    finally:
        daemon.shutdown()
    _say("stopped")
    return 0
