"""Fixtures for the fault and abuse suite (helpers that are not fixtures live in ``reliability/helpers.py``)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs mounted under ``tmp_path`` (needs root or CAP_SYS_ADMIN), unmounted afterwards.

    Without the privilege the test skips with the reason (a failure under CI=true, whose runner is root).
    """
    mount_point = tmp_path / "small-fs"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs for the disk-full test: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)
