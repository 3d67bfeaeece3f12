"""The state directory keeps the launcher's secrets before their reveal (the journal's command rows): only the
daemon's user may read it. The directory is made 0700 and the journal's files 0600 at every start, an older install's
world-readable files included (docs/fairness.md, "Who can read the Pi's files").

Example::

    >>> import pathlib, tempfile
    >>> state = pathlib.Path(tempfile.mkdtemp()) / "state"
    >>> make_private(state, state / "journal.sqlite3")
    >>> oct(state.stat().st_mode & 0o777), oct((state / "journal.sqlite3").stat().st_mode & 0o777)
    ('0o700', '0o600')
"""

from __future__ import annotations

import os
from pathlib import Path

SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's; it gives new ones the database file's mode


def make_private(state_dir: Path, journal: Path) -> None:
    """Create ``state_dir`` (0700) and ``journal`` (0600, empty if new) and tighten them if they exist already.
    Raises OSError when that is not possible (the caller names the setting)."""
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(state_dir, 0o700)
    os.close(os.open(journal, os.O_CREAT | os.O_WRONLY, 0o600))
    for path in (journal, *(journal.with_name(journal.name + side) for side in SIDE_FILES)):
        if path.exists():
            os.chmod(path, 0o600)
