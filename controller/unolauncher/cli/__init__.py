"""The ``unolauncher`` command.

Each subcommand lives in its own module, imported only when that subcommand runs, so ``unolauncher run``
on a Pi Zero never pays for the simulator's or the league view's imports. A subcommand module provides::

    def configure(parser: argparse.ArgumentParser) -> None   # add its arguments
    def run(args: argparse.Namespace) -> int                 # do the work, return the exit code

The modules: ``run`` (the daemon), ``replay``, ``simulate``, ``verify``, ``export``, ``selftest``, ``league``,
``ha_remove``, and ``output.py`` (standard output that a full disk or a closed pipe cannot turn into a traceback).
A command holds the arguments, the printing and the exit codes; the work it drives lives in its layer below.

Example::

    $ unolauncher replay game.jsonl --state
    $ unolauncher simulate --ruleset attack --players 4 --games 1000 --seed 7
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Modules are imported lazily.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("unolauncher.cli.run", "run the table daemon (launcher, referee, journal, MQTT, dashboard)"),
    "replay": ("unolauncher.cli.replay", "apply commands from a JSONL file and print the events"),
    "simulate": ("unolauncher.cli.simulate", "play bot games and print statistics"),
    "verify": ("unolauncher.cli.verify", "check every launcher press against its round's commitment"),
    "export": ("unolauncher.cli.export", "write one game's events from a journal, for a third party's verify"),
    "selftest": ("unolauncher.cli.selftest", "check the wiring of a real launcher part by part"),
    "league": ("unolauncher.cli.league", "live standings of many tables on one broker"),
    "ha-remove": ("unolauncher.cli.ha_remove", "delete a table's Home Assistant discovery from the broker"),
}


def _available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="unolauncher", description="UNO Attack launcher controller.")
    from unolauncher import __version__

    parser.add_argument("--version", action="version", version=f"unolauncher {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        if not _available(module):
            continue
        sub.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS and _available(SUBCOMMANDS[args_list[0]][0]):
        name = args_list[0]
        module_name, help_text = SUBCOMMANDS[name]
        module = importlib.import_module(module_name)
        parser = argparse.ArgumentParser(prog=f"unolauncher {name}", description=help_text)
        module.configure(parser)
        args = parser.parse_args(args_list[1:])
        try:
            return int(module.run(args))
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0
    parser = build_parser()
    parser.parse_args(args_list)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
