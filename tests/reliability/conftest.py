"""Fixtures for the fault and abuse suite: real mosquitto brokers, a small filesystem, scripted tables."""

from __future__ import annotations

import os
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


def fill(directory: Path, name: str = "filler") -> Path:
    """Write zeros into ``directory/name`` until the filesystem is full; return the file (delete it to free)."""
    path = directory / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 20, 4096, 1):  # big blocks first, then top up what is left
            block = b"\0" * size
            for _ in range(100_000):  # bounded: far beyond any test filesystem
                try:
                    os.write(fd, block)
                except OSError:
                    break
    finally:
        os.close(fd)
    return path
