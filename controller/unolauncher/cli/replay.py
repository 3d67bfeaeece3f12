"""``unolauncher replay FILE|- [--state]``: apply commands (one JSON object per line) and print the events.

Output is one compact JSON object per line with sorted keys, so the same input always gives byte-identical
output. A line that is not JSON gives ``{"type": "error", "line": N, "message": ...}`` and replay goes on;
rejected commands are ordinary ``rejected`` events. The exit code is 0 either way (2 if the file cannot be read).

Example::

    $ echo '{"type":"new_game","ruleset":"classic","players":["a","b"],"seed":1}' | unolauncher replay - --state
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

from unolauncher import strict_json
from unolauncher.cli.output import write_stdout
from unolauncher.rules.referee import Referee

MAX_LINE = 64 * 1024  # as for a command on MQTT


def dumps(value: Any) -> str:
    """The one canonical JSON text used for replay output."""
    return strict_json.dumps(value, sort_keys=True, ensure_ascii=True)


def replay_lines(lines: Iterable[bytes | str], with_state: bool = False) -> Iterator[str]:
    """Yield the output lines (without newline) for the given input lines."""
    ref = Referee()
    for lineno, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            yield dumps({"type": "error", "line": lineno, "message": f"line {lineno}: not valid UTF-8 text"})
            continue
        if not text.strip():
            continue
        try:
            command = strict_json.loads(text, max_bytes=MAX_LINE)
        except strict_json.StrictJSONError as exc:
            yield dumps({"type": "error", "line": lineno, "message": f"line {lineno}: not valid JSON ({exc.reason})"})
            continue
        for event in ref.handle(command):
            yield dumps(event)
    if with_state:
        yield dumps(ref.public_state())


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSONL file of commands, or - for standard input")
    parser.add_argument("--state", action="store_true", help="print the final public state as the last line")


def run(args: argparse.Namespace) -> int:
    stream: IO[bytes]
    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"unolauncher replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        lines = (line + "\n" for line in replay_lines(stream, with_state=args.state))
        written = write_stdout(lines, "unolauncher replay")
        if written:
            return written
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return 0
