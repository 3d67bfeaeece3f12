"""The power-cut filesystem (``support/cutfs.py``) does what its model says, so a power-cut test built on it proves
something: a write not fsynced disappears at a cut, an fsynced one survives, metadata follows ext4's journal.

The first half checks the model itself (``Tree``, no kernel involved, with a hand-driven clock); the second the
same promises through a real FUSE mount, with plain syscalls and with SQLite in WAL mode (``-shm`` mapped).
"""

from __future__ import annotations

import copy
import os
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cutfs import PAGE, CutFS, Inode, Tree, mounted, require_fuse

pytestmark = pytest.mark.timeout(120)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def durable(tree: Tree, path: str) -> bytes | None:
    """What a file holds after the cut (``None``: the name is not durable)."""
    ino = tree.disk.get(path)
    return None if ino is None else tree.inodes[ino].durable_bytes()


def new_file(tree: Tree, path: str, content: bytes, sync: bool) -> Inode:
    inode = tree.create(path, 0o100644)
    inode.write(0, content, tree.clock())
    if sync:
        tree.fsync(inode)
    return inode


# -- the model ----------------------------------------------------------------------------------------------------


def test_a_write_not_fsynced_disappears_and_an_fsynced_one_survives() -> None:
    tree = Tree()
    kept = new_file(tree, "/kept", b"a" * 5000, sync=True)
    kept.write(100, b"B" * 10, 0.0)  # after the fsync: lost
    new_file(tree, "/lost", b"never synced", sync=False)
    stats = tree.cut("drop", random.Random(0))
    assert durable(tree, "/kept") == b"a" * 5000
    assert durable(tree, "/lost") is None  # its creation was never committed either
    assert stats["pages_lost"] >= 2 and stats["metadata_ops_lost"] == 1


def test_any_fsync_commits_the_whole_metadata_journal_but_only_its_own_data() -> None:
    tree = Tree()
    new_file(tree, "/unsynced", b"data", sync=False)
    new_file(tree, "/synced", b"x", sync=True)  # ext4: one running transaction, committed by any fsync
    tree.cut("drop", random.Random(0))
    assert durable(tree, "/unsynced") == b""  # the name survived, its data and size did not
    assert durable(tree, "/synced") == b"x"


def test_rename_over_a_file_is_durable_only_with_the_next_fsync() -> None:
    tree = Tree()
    new_file(tree, "/config", b"old", sync=True)
    new_file(tree, "/config.tmp", b"new", sync=False)
    tree.rename("/config.tmp", "/config")
    assert bytes(tree.lookup("/config").data) == b"new"  # live at once
    cut_now = copy.deepcopy(tree)
    cut_now.cut("drop", random.Random(0))
    assert durable(cut_now, "/config") == b"old"  # no fsync since: the rename is not durable

    tree.fsync(tree.lookup("/"))  # fsyncdir: the rename commits, the new file's data does not
    tree.cut("drop", random.Random(0))
    assert durable(tree, "/config") == b""  # ext4's zero-length file after a rename without fsync


def test_rename_after_fsync_of_the_data_replaces_atomically() -> None:
    tree = Tree()
    new_file(tree, "/config", b"old", sync=True)
    new_file(tree, "/config.tmp", b"new", sync=True)
    tree.rename("/config.tmp", "/config")
    tree.fsync(tree.lookup("/"))
    tree.cut("drop", random.Random(0))
    assert durable(tree, "/config") == b"new"
    assert durable(tree, "/config.tmp") is None


def test_unlink_and_directories_follow_the_journal() -> None:
    tree = Tree()
    tree.create("/d", 0o40755, is_dir=True)
    new_file(tree, "/d/f", b"f", sync=True)
    tree.remove("/d/f", is_dir=False)
    tree.remove("/d", is_dir=True)
    tree.cut("drop", random.Random(0))
    assert durable(tree, "/d/f") == b"f"  # the unlink and rmdir were never committed


def test_truncate_then_extend_reads_zeros_in_the_gap_after_a_sync() -> None:
    tree = Tree()
    inode = new_file(tree, "/f", b"x" * (3 * PAGE), sync=True)
    inode.truncate(10, 0.0)
    inode.write(2 * PAGE, b"y", 0.0)
    tree.fsync(inode)
    tree.cut("drop", random.Random(0))
    assert durable(tree, "/f") == b"x" * 10 + b"\0" * (2 * PAGE - 10) + b"y"


def test_random_model_writes_back_some_pages_and_never_loses_synced_ones() -> None:
    outcomes = set()
    for seed in range(20):
        tree = Tree()
        inode = new_file(tree, "/f", b"a" * (4 * PAGE), sync=True)
        for page in range(4):
            inode.write(page * PAGE, b"b" * PAGE, 0.0)
        stats = tree.cut("random", random.Random(seed))
        content = durable(tree, "/f")
        assert content is not None and len(content) == 4 * PAGE
        pages = tuple(content[p * PAGE : (p + 1) * PAGE] for p in range(4))
        assert set(pages) <= {b"a" * PAGE, b"b" * PAGE}, "a page is old or new, never anything else"
        assert stats["pages_written_back_at_cut"] == pages.count(b"b" * PAGE)
        outcomes.add(pages)
    assert len(outcomes) > 5, "the written-back part must vary with the seed"


def test_ext4_model_commits_metadata_and_writes_back_expired_pages_on_its_timers() -> None:
    clock = FakeClock()
    tree = Tree(clock)
    inode = new_file(tree, "/f", b"a" * PAGE, sync=True)
    inode.write(0, b"b" * PAGE, clock())  # same size: only the flusher writes it back
    new_file(tree, "/g", b"g", sync=False)  # a new name and a new size: the next commit (data=ordered)
    clock.now = 5.0
    tree.ext4_commit()
    tree.ext4_writeback(expire_s=30.0)
    assert durable(tree, "/g") == b"g"
    assert durable(tree, "/f") == b"a" * PAGE  # dirty for 5 s only
    clock.now = 30.0
    tree.ext4_writeback(expire_s=30.0)
    tree.cut("drop", random.Random(0))
    assert durable(tree, "/f") == b"b" * PAGE


def test_image_round_trip(tmp_path: Path) -> None:
    tree = Tree()
    tree.create("/d", 0o40755, is_dir=True)
    new_file(tree, "/d/f", b"content", sync=True)
    new_file(tree, "/gone", b"x", sync=False)
    tree.cut("drop", random.Random(0))
    tree.write_image(tmp_path / "image")
    again = Tree.from_image(tmp_path / "image")
    assert sorted(again.live) == ["/", "/d", "/d/f"]
    assert durable(again, "/d/f") == b"content" and not again.pending()["dirty_pages"]


# -- through the kernel ---------------------------------------------------------------------------------------------


@pytest.fixture
def cutfs(tmp_path: Path) -> Iterator[CutFS]:
    fusermount = require_fuse()
    fs = CutFS(tmp_path / "mnt", tmp_path / "image", model="drop", fusermount=fusermount)
    fs.mount()
    try:
        yield fs
    finally:
        fs.close()


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def test_mounted_writes_vanish_at_a_cut_unless_fsynced(cutfs: CutFS) -> None:
    root = cutfs.mountpoint
    with open(root / "synced", "wb") as f:
        f.write(b"s" * 9000)
        f.flush()
        os.fsync(f.fileno())
        f.write(b"t" * 100)  # after the fsync
    (root / "unsynced").write_bytes(b"u" * 100)  # created after the last fsync, never synced
    assert (root / "unsynced").read_bytes() == b"u" * 100  # the live view has it
    stats = cutfs.cut()
    assert stats["pages_lost"] >= 2 and stats["metadata_ops_lost"] == 1
    with pytest.raises(OSError) as dead:
        (root / "synced").read_bytes()
    assert dead.value.errno == 5  # EIO: a dead disk
    assert mounted(root)  # still listed in /proc/mounts, though os.path.ismount may say otherwise now
    cutfs.unmount()
    assert not mounted(root)
    cutfs.mount()
    assert sorted(os.listdir(root)) == ["synced"]
    assert (root / "synced").read_bytes() == b"s" * 9000


def test_mounted_rename_is_durable_after_fsync_of_the_directory(cutfs: CutFS) -> None:
    root = cutfs.mountpoint
    for name, content in (("a", b"old"), ("a.tmp", b"new")):
        with open(root / name, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
    os.replace(root / "a.tmp", root / "a")
    cutfs.power_cycle()
    assert (root / "a").read_bytes() == b"old" and (root / "a.tmp").read_bytes() == b"new"
    os.replace(root / "a.tmp", root / "a")
    fsync_dir(root)
    cutfs.power_cycle()
    assert sorted(os.listdir(root)) == ["a"] and (root / "a").read_bytes() == b"new"


def test_sqlite_wal_full_commits_survive_and_unsynced_ones_do_not(cutfs: CutFS) -> None:
    path = cutfs.mountpoint / "j.sqlite3"
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (n INTEGER)")
    for n in range(300):
        db.execute("INSERT INTO t VALUES (?)", (n,))
    db.execute("PRAGMA synchronous=OFF")  # from here on, commits reach the page cache only
    for n in range(300, 400):
        db.execute("INSERT INTO t VALUES (?)", (n,))
    assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (400,)
    stats = cutfs.cut()
    db.close()
    assert stats["pages_lost"] > 0
    cutfs.unmount()
    cutfs.mount()
    again = sqlite3.connect(str(path))
    try:
        assert again.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert again.execute("SELECT COUNT(*), MAX(n) FROM t").fetchone() == (300, 299)
    finally:
        again.close()


@pytest.mark.parametrize("model", ["random", "ext4"])
def test_sqlite_full_commits_survive_every_model(tmp_path: Path, model: str) -> None:
    """SQLite's own promise (WAL + FULL: a commit that returned is durable) holds on each cut model, torn pages
    included: the model is harsh, not wrong."""
    fs = CutFS(
        tmp_path / "mnt", tmp_path / "image", model=model, seed=7, timers=(0.05, 0.05, 0.1), fusermount=require_fuse()
    )
    fs.mount()
    try:
        path = fs.mountpoint / "j.sqlite3"
        committed = 0
        for cycle in range(6):
            db = sqlite3.connect(str(path), isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER, pad TEXT)")
            assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (committed,), f"cycle {cycle}"
            for _ in range(150):
                db.execute("INSERT INTO t VALUES (?, ?)", (committed, "p" * 300))
                committed += 1
            db.execute("PRAGMA synchronous=OFF")
            db.execute("INSERT INTO t VALUES (-1, 'maybe')")  # may or may not survive: not counted
            fs.cut()
            db.close()
            fs.unmount()
            fs.mount()
            check = sqlite3.connect(str(path), isolation_level=None)
            assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            check.execute("DELETE FROM t WHERE n = -1")
            check.close()
    finally:
        fs.close()
