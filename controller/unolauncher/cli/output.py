"""Standard output for the CLIs that print results (``verify``, ``export``, ``replay``): a full disk, ``/dev/full`` or
a closed pipe behind it gives one line on stderr and exit status 2 (a closed pipe: 0, as ``head`` expects), never a
traceback — not even from the interpreter's last flush at exit.

Example::

    >>> write_stdout("", "unolauncher verify")
    0
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable


def write_stdout(text: str | Iterable[str], prog: str) -> int:
    """Write ``text`` (or each piece of it, as it comes) to stdout and flush it: 0, or the exit status after saying
    why it could not be written."""
    try:
        for piece in [text] if isinstance(text, str) else text:
            sys.stdout.write(piece)
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return 0
    except OSError as exc:
        _drop_stdout()
        print(f"{prog}: cannot write to standard output: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def _drop_stdout() -> None:
    """Point stdout at /dev/null so that what is still buffered does not fail again when Python exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test's StringIO): nothing buffered to fail later
        pass
