"""A filesystem that loses power on request: the test-side stand-in for an SD card whose cache dies with the Pi.

What a real power cut does, and what SIGKILL does not: the kernel's page cache holds every ``write()`` until it
is written back or fsynced, and the filesystem's journal holds every create, rename and unlink until its next
commit; a cut loses both. A process killed with SIGKILL keeps them all (the kernel writes them later), so a crash
test cannot tell whether a program relies on ``fsync`` correctly. This module is a FUSE filesystem (Debian's
``fuse3`` + PyPI ``mfusepy``) in the spirit of the research tool LazyFS: it keeps the whole tree in memory in two
versions — what processes see *now* and what is *durable* — and a **cut** keeps only the durable one.

The model (one page = 4 KiB):

- **Data.** A ``write()`` or ``truncate()`` changes the live file at once (every reader sees it) and marks its
  pages dirty. A page becomes durable when it is *written back*; the file's size is inode metadata and becomes
  durable when it is *committed*. ``fsync``/``fdatasync`` of a file writes back every dirty page of that file and
  commits its size. Nothing else makes data durable, except the ``ext4`` model's timers below.
- **Metadata.** ``create``, ``mkdir``, ``rename``, ``unlink`` and ``rmdir`` change the live tree at once and are
  queued, in order, as one journal the way ext4's jbd2 keeps one running transaction: **any** ``fsync`` (of any
  file) or ``fsyncdir`` commits every queued operation. So a new file survives a cut only once something was
  fsynced after it was created, and a file renamed over another without an fsync of its data survives as an empty
  file (ext4's well-known zero-length-file-after-rename case).
- **A cut** freezes the filesystem (every later operation fails with ``EIO``, as a dead disk would answer), keeps
  the durable version and writes it into the *image* directory; the next mount starts from that image with
  nothing pending. Three ways to decide what was durable at the moment of the cut:

  ``drop``    only what was fsynced (the strictest: every unsynced byte is gone);
  ``random``  the kernel had already written back a random part: each dirty page and each file's size is
              written back with probability 1/2, and a random prefix of the metadata journal is committed (a torn
              mix of old and new pages — what a real disk may leave);
  ``ext4``    ext4's timers run while mounted: every ``commit_s`` the metadata journal is committed, and with it
              (``data=ordered``) the dirty pages and size of every file whose size changed; every
              ``writeback_s`` pages dirty for longer than ``expire_s`` are written back. Linux's defaults are
              5 s, 5 s and 30 s; tests scale them down so that the timers fire between cuts.

Not modelled: hard links, symlinks, extended attributes, reordering *within* one page, a disk that lies about
fsync. POSIX record locks are the kernel's (the filesystem declares no lock handler), and shared ``mmap`` works
(SQLite's ``-shm`` file): the kernel writes mapped pages back through ``write()``.

The filesystem runs in its own process (``fuse_main`` blocks): :class:`CutFS` starts it, reads the mount state from
``/proc/mounts`` (``os.path.ismount`` says False once a cut mount answers ``EIO``), talks to it over a Unix socket,
and unmounts with ``fusermount3 -uz``.

Example::

    with CutFS(tmp_path / "mnt", tmp_path / "image", model="drop") as fs:
        (fs.mountpoint / "a").write_bytes(b"lost")  # never fsynced
        stats = fs.cut()  # power gone: {"pages_lost": 1, ...}
        fs.unmount()
        fs.mount()  # power back: the image, nothing pending
        assert not (fs.mountpoint / "a").exists()
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

PAGE = 4096
MODELS = ("drop", "random", "ext4")
LINUX_EXT4_TIMERS = (5.0, 5.0, 30.0)  # commit interval, dirty writeback interval, dirty expire (Linux defaults)


# -- the model (pure: no FUSE, so it is unit-testable on its own) -----------------------------------------------


@dataclass
class Inode:
    """One file or directory: its live content and what of it is durable."""

    ino: int
    is_dir: bool
    mode: int
    data: bytearray = field(default_factory=bytearray)  # what processes read now
    dirty: dict[int, float] = field(default_factory=dict)  # page index -> when it was first dirtied
    size_dirty: float | None = None  # when the live size first differed from the durable one
    store: bytearray = field(default_factory=bytearray)  # the durable pages (may reach past disk_size)
    disk_size: int = 0  # the durable size
    mtime_ns: int = field(default_factory=time.time_ns)

    def write(self, offset: int, data: bytes, now: float) -> None:
        end = offset + len(data)
        if end > len(self.data):
            self._mark_size(now)
            self.data.extend(b"\0" * (end - len(self.data)))
        self.data[offset:end] = data
        self._mark(offset // PAGE, (end - 1) // PAGE if data else offset // PAGE - 1, now)
        self.mtime_ns = time.time_ns()

    def truncate(self, size: int, now: float) -> None:
        old = len(self.data)
        if size < old:
            del self.data[size:]
            # The pages past the new end read as zeros from now on; writing them back zeroes the durable copy.
            self._mark(size // PAGE, (max(old, len(self.store)) - 1) // PAGE, now)
        elif size > old:
            self.data.extend(b"\0" * (size - old))
            self._mark(old // PAGE, (size - 1) // PAGE, now)
        if size != old:
            self._mark_size(now)
        self.mtime_ns = time.time_ns()

    def _mark(self, first: int, last: int, now: float) -> None:
        for page in range(first, last + 1):
            self.dirty.setdefault(page, now)

    def _mark_size(self, now: float) -> None:
        if self.size_dirty is None:
            self.size_dirty = now

    def write_back(self, page: int) -> None:
        """Make one page durable as it reads now (zeros past the live end)."""
        self.dirty.pop(page, None)
        chunk = bytes(self.data[page * PAGE : (page + 1) * PAGE]).ljust(PAGE, b"\0")
        end = (page + 1) * PAGE
        if len(self.store) < end:
            self.store.extend(b"\0" * (end - len(self.store)))
        self.store[page * PAGE : end] = chunk

    def commit_size(self) -> None:
        self.disk_size = len(self.data)
        self.size_dirty = None

    def sync(self) -> None:
        """fsync: every dirty page and the size."""
        for page in list(self.dirty):
            self.write_back(page)
        self.commit_size()

    def durable_bytes(self) -> bytes:
        return bytes(self.store[: self.disk_size]).ljust(self.disk_size, b"\0")

    def unsynced(self) -> bool:
        return bool(self.dirty) or self.size_dirty is not None


class Tree:
    """The filesystem's state: live names, durable names, the metadata journal, and the inodes behind them.

    Paths are absolute (``/a/b``); ``/`` is always there. Every method raises ``OSError`` with the errno a real
    filesystem would return. Thread-safety is the caller's (the FUSE side holds one lock around every call).
    """

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.inodes: dict[int, Inode] = {1: Inode(1, True, stat.S_IFDIR | 0o755)}
        self.live: dict[str, int] = {"/": 1}
        self.disk: dict[str, int] = {"/": 1}
        self.journal: list[tuple[float, tuple[str, ...]]] = []  # (when, ("link", path) | ("unlink", path) | ...)
        self._next_ino = 2

    # -- loading and saving ----------------------------------------------------------------------------------

    @classmethod
    def from_image(cls, image: Path, clock: Any = time.monotonic) -> Tree:
        """A tree whose every file and directory is durable: the content of ``image`` (a real directory)."""
        tree = cls(clock)
        if not image.is_dir():
            return tree
        for dirpath, dirnames, filenames in os.walk(image):
            relative = os.path.relpath(dirpath, image)
            rel = "/" if relative == "." else "/" + relative.replace(os.sep, "/")
            for name in sorted(dirnames):
                tree._load(_join(rel, name), True, b"", os.stat(os.path.join(dirpath, name)).st_mode)
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                tree._load(_join(rel, name), False, Path(full).read_bytes(), os.stat(full).st_mode)
        return tree

    def _load(self, path: str, is_dir: bool, content: bytes, mode: int) -> None:
        inode = self._new_inode(is_dir, mode)
        inode.data = bytearray(content)
        inode.store = bytearray(content)
        inode.disk_size = len(content)
        self.live[path] = self.disk[path] = inode.ino

    def write_image(self, image: Path) -> None:
        """Write the durable tree into ``image`` (replacing it): what the next mount starts from."""
        staging = image.with_name(image.name + ".new")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for path in sorted(self.disk, key=lambda p: (p.count("/"), p)):
            if path == "/":
                continue
            inode = self.inodes[self.disk[path]]
            target = staging / path.lstrip("/")
            if not target.parent.is_dir():
                continue  # its directory is not durable: unreachable after the cut
            if inode.is_dir:
                target.mkdir()
            else:
                target.write_bytes(inode.durable_bytes())
            target.chmod(stat.S_IMODE(inode.mode))
        old = image.with_name(image.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if image.exists():
            image.rename(old)
        staging.rename(image)
        shutil.rmtree(old, ignore_errors=True)

    # -- lookups ---------------------------------------------------------------------------------------------

    def _new_inode(self, is_dir: bool, mode: int) -> Inode:
        inode = Inode(self._next_ino, is_dir, mode)
        self.inodes[inode.ino] = inode
        self._next_ino += 1
        return inode

    def lookup(self, path: str) -> Inode:
        ino = self.live.get(path)
        if ino is None:
            raise OSError(errno.ENOENT, path)
        return self.inodes[ino]

    def children(self, path: str) -> list[str]:
        if not self.lookup(path).is_dir:
            raise OSError(errno.ENOTDIR, path)
        prefix = path.rstrip("/") + "/"
        return sorted(
            p[len(prefix) :] for p in self.live if p != path and p.startswith(prefix) and "/" not in p[len(prefix) :]
        )

    def _parent_dir(self, path: str) -> None:
        parent = self.live.get(path.rsplit("/", 1)[0] or "/")
        if parent is None:
            raise OSError(errno.ENOENT, path)
        if not self.inodes[parent].is_dir:
            raise OSError(errno.ENOTDIR, path)

    # -- metadata (live at once, durable at the next journal commit) ---------------------------------------------

    def create(self, path: str, mode: int, is_dir: bool = False) -> Inode:
        self._parent_dir(path)
        if path in self.live:
            raise OSError(errno.EEXIST, path)
        inode = self._new_inode(is_dir, mode)
        self.live[path] = inode.ino
        self.journal.append((self.clock(), ("link", path, str(inode.ino))))
        return inode

    def remove(self, path: str, is_dir: bool) -> None:
        inode = self.lookup(path)
        if is_dir != inode.is_dir:
            raise OSError(errno.EISDIR if inode.is_dir else errno.ENOTDIR, path)
        if is_dir and self.children(path):
            raise OSError(errno.ENOTEMPTY, path)
        del self.live[path]
        self.journal.append((self.clock(), ("unlink", path)))

    def rename(self, old: str, new: str) -> None:
        self.lookup(old)
        self._parent_dir(new)
        target = self.live.get(new)
        if target is not None and self.inodes[target].is_dir and self.children(new):
            raise OSError(errno.ENOTEMPTY, new)
        _move(self.live, old, new)  # the inode keeps its number across the rename
        self.journal.append((self.clock(), ("rename", old, new)))

    def commit_journal(self, upto: int | None = None) -> int:
        """Apply the first ``upto`` (default: all) queued metadata operations to the durable tree; returns how many."""
        count = len(self.journal) if upto is None else upto
        for _, op in self.journal[:count]:
            if op[0] == "link":
                self.disk[op[1]] = int(op[2])
            elif op[0] == "unlink":
                for path in [p for p in self.disk if p == op[1] or p.startswith(op[1] + "/")]:
                    del self.disk[path]
            else:
                if op[1] in self.disk:
                    _move(self.disk, op[1], op[2])
        del self.journal[:count]
        return count

    # -- sync points -------------------------------------------------------------------------------------------

    def fsync(self, inode: Inode) -> None:
        """``fsync``/``fdatasync`` of a file (or directory): its data and size, and the whole metadata journal."""
        inode.sync()
        self.commit_journal()

    def ext4_commit(self) -> None:
        """A jbd2 commit: the metadata journal, and (``data=ordered``) every file whose size is not durable yet."""
        self.commit_journal()
        for inode in self.inodes.values():
            if inode.size_dirty is not None:
                inode.sync()

    def ext4_writeback(self, expire_s: float) -> None:
        """The flusher thread: pages dirty for longer than ``expire_s`` are written back."""
        oldest = self.clock() - expire_s
        for inode in self.inodes.values():
            for page in [p for p, since in inode.dirty.items() if since <= oldest]:
                inode.write_back(page)

    def cut(self, model: str, rng: random.Random) -> dict[str, int]:
        """The power goes: decide what reached the disk (``random``: a random part of what is pending), and count
        what is lost. The durable tree is then :attr:`disk` with each inode's durable bytes."""
        written_back = 0
        if model == "random":
            self.commit_journal(rng.randint(0, len(self.journal)))
            for inode in self.inodes.values():
                for page in list(inode.dirty):
                    if rng.random() < 0.5:
                        inode.write_back(page)
                        written_back += 1
                if inode.size_dirty is not None and rng.random() < 0.5:
                    inode.commit_size()
        stats = {
            "pages_lost": sum(len(i.dirty) for i in self.inodes.values()),
            "sizes_lost": sum(i.size_dirty is not None for i in self.inodes.values()),
            "metadata_ops_lost": len(self.journal),
            "pages_written_back_at_cut": written_back,
        }
        self.journal.clear()
        return stats

    def pending(self) -> dict[str, int]:
        return {
            "dirty_pages": sum(len(i.dirty) for i in self.inodes.values()),
            "dirty_sizes": sum(i.size_dirty is not None for i in self.inodes.values()),
            "metadata_ops": len(self.journal),
        }


def _join(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name


def _move(names: dict[str, int], old: str, new: str) -> None:
    """Rename ``old`` (and, for a directory, everything under it) to ``new``, replacing what ``new`` was."""
    for path in [p for p in names if p == new or p.startswith(new + "/")]:
        del names[path]
    for path in [p for p in names if p == old or p.startswith(old + "/")]:
        names[new + path[len(old) :]] = names.pop(path)


# -- the FUSE side (runs in the filesystem's own process) ---------------------------------------------------------


def _operations_class() -> type:
    import mfusepy

    class CutOperations(mfusepy.Operations):
        """mfusepy operations over a :class:`Tree`. Never name an attribute ``lock``: mfusepy would register it
        as FUSE's lock handler."""

        use_ns = True

        def __init__(self, tree: Tree, model: str, seed: int, timers: tuple[float, float, float]) -> None:
            self.tree = tree
            self.model = model
            self.rng = random.Random(seed)
            self.timers = timers
            self.mutex = threading.Lock()
            self.dead = False
            self.handles: dict[int, Inode] = {}
            self.next_handle = 1
            self.syncs = 0

        # every call goes through here: one lock, and EIO once the power is gone
        def _tree(self) -> Tree:
            if self.dead:
                raise mfusepy.FuseOSError(errno.EIO)
            return self.tree

        def _handle(self, inode: Inode) -> int:
            handle = self.next_handle
            self.next_handle += 1
            self.handles[handle] = inode
            return handle

        def _inode(self, path: str | None, fh: int | None) -> Inode:
            if fh is not None and fh in self.handles:
                return self.handles[fh]
            if path is None:
                raise mfusepy.FuseOSError(errno.EBADF)
            return self._tree().lookup(path)

        def getattr(self, path: str | None, fh: int | None = None) -> dict[str, Any]:
            with self.mutex:
                self._tree()
                inode = self._inode(path, fh)
                return {
                    "st_mode": inode.mode,
                    "st_nlink": 2 if inode.is_dir else 1,
                    "st_size": len(inode.data),
                    "st_blocks": (len(inode.data) + 511) // 512,
                    "st_mtime": inode.mtime_ns,
                    "st_ctime": inode.mtime_ns,
                    "st_atime": inode.mtime_ns,
                    "st_uid": os.getuid(),
                    "st_gid": os.getgid(),
                }

        def readdir(self, path: str, fh: int) -> list[tuple[str, dict[str, int], int]]:
            with self.mutex:
                tree = self._tree()
                names = [(name, tree.lookup(_join(path, name)).mode) for name in tree.children(path)]
                return [(name, {"st_mode": mode}, 0) for name, mode in [(".", 0o40755), ("..", 0o40755), *names]]

        def mkdir(self, path: str, mode: int) -> int:
            with self.mutex:
                self._tree().create(path, stat.S_IFDIR | (mode & 0o7777), is_dir=True)
            return 0

        def rmdir(self, path: str) -> int:
            with self.mutex:
                self._tree().remove(path, is_dir=True)
            return 0

        def unlink(self, path: str) -> int:
            with self.mutex:
                self._tree().remove(path, is_dir=False)
            return 0

        def rename(self, old: str, new: str) -> int:
            with self.mutex:
                self._tree().rename(old, new)
            return 0

        def create(self, path: str, mode: int, flags: int) -> int:
            with self.mutex:
                tree = self._tree()
                inode = tree.live.get(path)
                found = tree.inodes[inode] if inode is not None else tree.create(path, stat.S_IFREG | (mode & 0o7777))
                return self._handle(found)

        def open(self, path: str, flags: int) -> int:
            with self.mutex:
                return self._handle(self._tree().lookup(path))

        def opendir(self, path: str) -> int:
            with self.mutex:
                return self._handle(self._tree().lookup(path))

        def release(self, path: str | None, fh: int) -> int:
            with self.mutex:
                self.handles.pop(fh, None)
            return 0

        def releasedir(self, path: str | None, fh: int) -> int:
            return self.release(path, fh)

        def read(self, path: str | None, size: int, offset: int, fh: int) -> bytes:
            with self.mutex:
                self._tree()
                return bytes(self._inode(path, fh).data[offset : offset + size])

        def write(self, path: str | None, data: bytes, offset: int, fh: int) -> int:
            with self.mutex:
                tree = self._tree()
                self._inode(path, fh).write(offset, data, tree.clock())
                return len(data)

        def truncate(self, path: str | None, length: int, fh: int | None = None) -> int:
            with self.mutex:
                tree = self._tree()
                self._inode(path, fh).truncate(length, tree.clock())
            return 0

        def fsync(self, path: str | None, datasync: int, fh: int) -> int:
            with self.mutex:
                tree = self._tree()
                tree.fsync(self._inode(path, fh))
                self.syncs += 1
            return 0

        def fsyncdir(self, path: str | None, datasync: int, fh: int) -> int:
            return self.fsync(path, datasync, fh)

        def flush(self, path: str | None, fh: int) -> int:
            return 0  # close() does not sync

        def chmod(self, path: str | None, mode: int) -> int:
            with self.mutex:
                inode = self._inode(path, None)
                inode.mode = (inode.mode & ~0o7777) | (mode & 0o7777)
            return 0

        def chown(self, path: str | None, uid: int, gid: int) -> int:
            return 0

        def utimens(self, path: str | None, times: tuple[int, int] | None = None) -> int:
            with self.mutex:
                self._inode(path, None).mtime_ns = times[1] if times else time.time_ns()
            return 0

        def statfs(self, path: str) -> dict[str, int]:
            return {"f_bsize": PAGE, "f_frsize": PAGE, "f_blocks": 1 << 20, "f_bfree": 1 << 19, "f_bavail": 1 << 19}

        # -- control (the Unix socket thread) ---------------------------------------------------------------

        def control(self, request: dict[str, Any], image: Path) -> dict[str, Any]:
            with self.mutex:
                if request["op"] == "pending":
                    return {"ok": True, "dead": self.dead, "syncs": self.syncs, **self.tree.pending()}
                if self.dead:
                    return {"ok": False, "error": "the power is already cut"}
                if request["op"] == "sync":  # a clean shutdown: everything durable
                    for inode in self.tree.inodes.values():
                        inode.sync()
                    self.tree.commit_journal()
                    return {"ok": True}
                if request["op"] == "cut":
                    self.dead = True
                    started = time.monotonic()
                    stats = self.tree.cut(self.model, self.rng)
                    self.tree.write_image(image)
                    return {"ok": True, "model": self.model, "image_s": time.monotonic() - started, **stats}
            return {"ok": False, "error": f"unknown op {request['op']!r}"}

        def timers_loop(self) -> None:
            """The ``ext4`` model's commit and writeback timers."""
            commit_s, writeback_s, expire_s = self.timers
            next_commit, next_writeback = time.monotonic() + commit_s, time.monotonic() + writeback_s
            while True:
                time.sleep(max(0.0, min(next_commit, next_writeback) - time.monotonic()))
                with self.mutex:
                    if self.dead:
                        return
                    now = time.monotonic()
                    if now >= next_commit:
                        self.tree.ext4_commit()
                        next_commit += commit_s
                    if now >= next_writeback:
                        self.tree.ext4_writeback(expire_s)
                        next_writeback += writeback_s

    return CutOperations


def serve(
    mountpoint: Path, image: Path, control: Path, model: str, seed: int, timers: tuple[float, float, float]
) -> None:
    """The filesystem process: mount, answer the control socket, return when unmounted."""
    import mfusepy

    ops = _operations_class()(Tree.from_image(image), model, seed, timers)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.unlink(missing_ok=True)
    server.bind(str(control))
    server.listen(4)

    def answer() -> None:
        while True:
            conn, _ = server.accept()
            with conn, conn.makefile("rwb") as stream:
                for line in stream:
                    try:
                        reply = ops.control(json.loads(line), image)
                    except Exception as exc:  # reported to the test, which fails with it
                        reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                    stream.write(json.dumps(reply).encode() + b"\n")
                    stream.flush()

    threading.Thread(target=answer, name="control", daemon=True).start()
    if model == "ext4":
        threading.Thread(target=ops.timers_loop, name="ext4-timers", daemon=True).start()
    # Single-threaded FUSE loop (-s): operations arrive one at a time, in the order the kernel sends them.
    # hard_remove: an unlinked open file keeps working through its handle (no .fuse_hidden renames).
    mfusepy.FUSE(ops, str(mountpoint), foreground=True, nothreads=True, fsname="cutfs", hard_remove=True)


# -- the test side ------------------------------------------------------------------------------------------------


def require_fuse() -> str:
    """The ``fusermount3`` path once FUSE is usable here; otherwise skip the test with the reason (a failure under
    ``CI=true``, whose runner has fuse3 and is root)."""
    import pytest

    from support.binaries import in_ci, require_binary

    fusermount = require_binary("fusermount3")
    problem = None
    if not os.path.exists("/dev/fuse"):
        problem = "/dev/fuse does not exist (load the fuse module)"
    elif os.geteuid() != 0:
        problem = "mounting the power-cut filesystem needs root (CAP_SYS_ADMIN)"
    if problem is not None:
        if in_ci():
            pytest.fail(f"{problem}; CI runs as root with fuse3", pytrace=False)
        pytest.skip(problem)
    return fusermount


def mounted(mountpoint: Path) -> bool:
    """True while ``mountpoint`` is a FUSE mount, read from ``/proc/mounts`` (works on a cut, EIO-answering mount)."""
    target = os.path.realpath(mountpoint)
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[1].replace("\\040", " ") == target and fields[2].startswith("fuse"):
            return True
    return False


class CutFS:
    """One power-cut filesystem at ``mountpoint``, backed by the ``image`` directory between mounts.

    ``model`` is ``drop``, ``random`` or ``ext4`` (see the module docstring); ``seed`` makes ``random`` repeatable;
    ``timers`` are the ``ext4`` model's (commit, writeback, expire) seconds.
    """

    def __init__(
        self,
        mountpoint: Path,
        image: Path,
        model: str = "drop",
        seed: int = 0,
        timers: tuple[float, float, float] = LINUX_EXT4_TIMERS,
        fusermount: str = "fusermount3",
    ) -> None:
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {model!r}")
        self.mountpoint = mountpoint
        self.image = image
        self.model = model
        self.seed = seed
        self.timers = timers
        self.fusermount = fusermount
        self.control_path = image.with_name(image.name + ".sock")
        self.log_path = image.with_name(image.name + ".log")
        self.process: subprocess.Popen[bytes] | None = None
        self.mounts = 0

    def mount(self, timeout: float = 20.0) -> None:
        """Start the filesystem process on the image and wait until the kernel lists the mount."""
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self.image.mkdir(parents=True, exist_ok=True)
        self.mounts += 1
        command = [
            sys.executable,
            __file__,
            str(self.mountpoint),
            str(self.image),
            str(self.control_path),
            "--model",
            self.model,
            "--seed",
            str(self.seed * 1000 + self.mounts),
            "--timers",
            ",".join(str(t) for t in self.timers),
        ]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not (mounted(self.mountpoint) and self.control_path.exists()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._stop_process()
                raise RuntimeError(f"the cut filesystem did not mount; its log:\n{self.log_text()[-2000:]}")
            time.sleep(0.01)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _ask(self, op: str) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(str(self.control_path))
            conn.sendall(json.dumps({"op": op}).encode() + b"\n")
            reply: dict[str, Any] = json.loads(conn.makefile("rb").readline())
        if not reply.get("ok"):
            raise RuntimeError(f"cut filesystem: {op} failed: {reply.get('error')}")
        return reply

    def cut(self) -> dict[str, Any]:
        """The power goes: from now on every operation fails with EIO, and the image holds what was durable.
        Returns what was lost (``pages_lost``, ``sizes_lost``, ``metadata_ops_lost``, ...)."""
        return self._ask("cut")

    def pending(self) -> dict[str, Any]:
        """What a cut now would lose, and how many fsyncs the filesystem has seen in this mount."""
        return self._ask("pending")

    def unmount(self, timeout: float = 2.0) -> None:
        """Detach the mount (lazily: a process may still hold files on it) and end the filesystem's process.

        The process ends by itself once the last open file is closed; if something still holds one after
        ``timeout`` it is killed (the image was written at the cut, and the files held are dead anyway: they
        answer ``ENOTCONN`` from then on)."""
        if mounted(self.mountpoint):
            subprocess.run([self.fusermount, "-uz", str(self.mountpoint)], check=False, capture_output=True)
        self._stop_process(timeout)

    def _stop_process(self, timeout: float = 2.0) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self.process = None

    def power_cycle(self) -> dict[str, Any]:
        """Cut, unmount, mount again from the image; returns the cut's figures."""
        stats = self.cut()
        self.unmount()
        self.mount()
        return stats

    def close(self) -> None:
        """A clean shutdown: everything made durable, image written, unmounted."""
        if self.process is not None and self.process.poll() is None and mounted(self.mountpoint):
            try:
                self._ask("sync")
                self._ask("cut")
            except (OSError, RuntimeError):
                pass  # already cut: the image is what the last cut left
        self.unmount()

    def __enter__(self) -> CutFS:
        self.mount()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Serve a power-cut filesystem (see the module docstring).")
    parser.add_argument("mountpoint", type=Path)
    parser.add_argument("image", type=Path)
    parser.add_argument("control", type=Path)
    parser.add_argument("--model", choices=MODELS, default="drop")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timers", default=",".join(str(t) for t in LINUX_EXT4_TIMERS))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    commit_s, writeback_s, expire_s = (float(t) for t in args.timers.split(","))
    serve(args.mountpoint, args.image, args.control, args.model, args.seed, (commit_s, writeback_s, expire_s))


if __name__ == "__main__":
    main(sys.argv[1:])
