"""Logging that never blocks the daemon: a bounded queue that drops (and counts) instead of waiting.

A full journald or a stderr pipe nobody reads makes every ``write`` to stderr block; with a plain
``StreamHandler`` the first log call on the shutdown path would never return and SIGTERM would never end the process.
Here every log call — and the daemon's ``say`` lines for stdout — only formats the record and
puts it on a bounded queue (``put_nowait``; when the queue is full the record is dropped and counted). One writer
thread (a daemon thread: the process never waits for it) takes records off and writes them to the file
descriptors with ``os.write``; if a write blocks, only that thread waits. Once the output moves again, the writer
says how many records were dropped. Nothing writes through ``sys.stdout``/``sys.stderr``'s buffers, so the
interpreter's final flush at exit has nothing to wait for either.

Example::

    >>> import io, logging
    >>> logs = install("INFO", out_fd=None, err_fd=None, size=2)  # no writer: records stay queued
    >>> for i in range(5):
    ...     logging.getLogger("unolauncher.test").warning("line %d", i)
    >>> logs.handler.dropped                                        # 2 queued, 3 dropped, none waited
    3
    >>> logs.uninstall()
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import queue
import sys
import threading
import time
from typing import TextIO

QUEUE_SIZE = 2000  # records waiting for the writer; more are dropped (and counted), never waited for
SAY = "unolauncher.say"  # the logger of the daemon's plain stdout lines (``Daemon.say``)
COMPLAIN = "unolauncher.complain"  # plain stderr lines (``unolauncher run: <configuration error>``)
PLAIN = (SAY, COMPLAIN)
FORMAT = "%(levelname)s %(name)s: %(message)s"


class DroppingQueueHandler(logging.handlers.QueueHandler):
    """A :class:`~logging.handlers.QueueHandler` on a bounded queue that drops a record instead of waiting."""

    def __init__(self, records: queue.Queue[logging.LogRecord]) -> None:
        super().__init__(records)
        self.dropped = 0

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self.dropped += 1  # (a lost increment under a race only undercounts a note: no lock on this path)

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        if record.name in PLAIN:
            record.msg, record.args, record.exc_info, record.exc_text = record.getMessage(), None, None, None
            return record
        return super().prepare(record)  # formatted here, on the caller's thread: the writer only writes text


class LogQueue:
    """The installed queue handler and its writer thread (see the module docstring)."""

    def __init__(self, handler: DroppingQueueHandler, out_fd: Sink | None, err_fd: Sink | None) -> None:
        self.handler = handler
        self.replaced: list[logging.Handler] = []  # the root's handlers before (put back by uninstall)
        self.level = logging.WARNING
        self.out_fd = out_fd
        self.err_fd = err_fd
        self._reported = 0
        self._thread: threading.Thread | None = None
        if out_fd is not None or err_fd is not None:
            self._thread = threading.Thread(target=self._write_all, name="log-writer", daemon=True)
            self._thread.start()

    def _write_all(self) -> None:
        records = self.handler.queue
        assert isinstance(records, queue.Queue)
        while True:
            record = records.get()
            try:
                fd = self.out_fd if record.name == SAY else self.err_fd
                if fd is not None:
                    _write(fd, f"{record.msg}\n")
                dropped = self.handler.dropped
                if dropped > self._reported and self.err_fd is not None:
                    _write(self.err_fd, f"WARNING {__name__}: {dropped - self._reported} log record(s) dropped "
                                        "while the log output was blocked\n")  # fmt: skip
                    self._reported = dropped
            except (OSError, ValueError):
                pass  # a closed descriptor or stream: nothing to tell, and nobody to tell it to
            finally:
                records.task_done()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the writer to write what is queued (a clean exit); False if it did not."""
        records = self.handler.queue
        assert isinstance(records, queue.Queue)
        deadline = time.monotonic() + timeout
        while records.unfinished_tasks and self._thread is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        return not records.unfinished_tasks

    @property
    def borrowed(self) -> bool:
        """Writing to streams put in place of the process's own (a test's capture): uninstall when done."""
        return not all(isinstance(sink, int) or sink is None for sink in (self.out_fd, self.err_fd))

    def uninstall(self) -> None:
        root = logging.getLogger()
        root.removeHandler(self.handler)
        for old in self.replaced:
            root.addHandler(old)
        root.setLevel(self.level)


Sink = int | TextIO  # a file descriptor (the process's own stdout/stderr), or a stream someone put in their place


def _write(sink: Sink, text: str) -> None:
    if not isinstance(sink, int):  # e.g. pytest's capture: its own buffer, which never blocks
        sink.write(text)
        sink.flush()
        return
    data = text.encode("utf-8", "replace")
    while data:
        data = data[os.write(sink, data) :]


def _sink(stream: TextIO, own: TextIO | None) -> Sink:
    """The process's own stdout/stderr by descriptor (no Python buffer: the interpreter's flush at exit then never
    waits for a blocked pipe, nor for the writer thread's lock), anything else as the stream."""
    return stream.fileno() if stream is own and own is not None else stream


def install(level: str, out_fd: Sink | None = -1, err_fd: Sink | None = -1, size: int = QUEUE_SIZE) -> LogQueue:
    """Replace the root logger's handlers with the dropping queue (and start its writer); ``say`` lines go to
    ``out_fd``, log records to ``err_fd`` (``-1``: the process's stdout / stderr; ``None``: not written)."""
    if out_fd == -1:
        out_fd = _sink(sys.stdout, sys.__stdout__)
    if err_fd == -1:
        err_fd = _sink(sys.stderr, sys.__stderr__)
    handler = DroppingQueueHandler(queue.Queue(maxsize=size))
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    logs = LogQueue(handler, out_fd, err_fd)
    logs.replaced, logs.level = list(root.handlers), root.level
    for old in logs.replaced:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in PLAIN:
        logging.getLogger(name).setLevel(logging.INFO)  # said whatever the log level
    return logs


def say(text: str) -> None:
    """A plain line on stdout through the queue (the daemon's ``say``): never blocks."""
    logging.getLogger(SAY).info("%s", text)


def complain(text: str) -> None:
    """A plain line on stderr through the queue: never blocks."""
    logging.getLogger(COMPLAIN).info("%s", text)
