"""``unolauncher run`` with one fault injected into the real daemon process (tests/reliability/test_motor_safety.py).

    PYTHONPATH=tests python -m support.fault_daemon FAULT run --config table.toml

Once the daemon is up (``Daemon.start`` returned) a scenario thread inside the process:

1. records every change of the virtual motor's enable pin to ``<state_dir>/motor.jsonl`` as ``{"t": monotonic,
   "on": bool}`` (``time.monotonic`` is the same clock in every process of the machine, so the test can compare
   these times with its own), and the scenario's steps as ``{"t": ..., "mark": name}``;
2. waits for the first ``WATCHDOG=1`` and starts a game (the test's configuration has the ``custom`` ejection preset
   :data:`FIVE_EVERY_TIME`: every press fires 5 cards, and the magazine is empty, so a run lasts until
   ``max_run_s``);
3. injects ``FAULT`` (before or after the press, as each fault needs) and presses the button from a thread that
   plays lgpio's single GPIO callback thread.

Faults: ``none`` (the test sends a signal), ``hang-timers``, ``hold-table-lock``, ``block-journal``, ``stall-edge``,
``stall-uno-edge``, ``kill-worker``, ``raise-in-callback``, ``thread-exception``.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FIVE_EVERY_TIME = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"5": 1}}
GAME = {"type": "new_game", "ruleset": "attack", "players": ["ann", "bob"]}


def start_game(table: Any) -> bool:
    """A game through the daemon's own path (its preset, its secret); True once someone may hit."""
    table.submit_command(dict(GAME))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if table.idle() and table.hitter() is not None:
            return True
        time.sleep(0.01)
    return False


class Recorder:
    """Append-only JSON lines, flushed at once (the process may be killed any moment)."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, **fields: Any) -> None:
        with self._lock:
            self._file.write(json.dumps({"t": time.monotonic(), **fields}) + "\n")
            self._file.flush()


class EdgeThread:
    """One thread that runs pin actions in order, as lgpio delivers every GPIO callback on one thread."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        threading.Thread(target=self._run, name="gpio-edges", daemon=True).start()

    def call(self, action: Callable[[], None]) -> None:
        self._queue.put(action)

    def _run(self) -> None:
        while True:
            self._queue.get()()


def hold_forever(lock: Any, release: threading.Event) -> bool:
    """Take ``lock`` on a thread of its own and keep it until ``release``; True once it is held."""
    held = threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            release.wait()

    threading.Thread(target=hold, name="lock-holder", daemon=True).start()
    return held.wait(5)


def block_forever(started: threading.Event | None = None) -> None:
    if started is not None:
        started.set()
    threading.Event().wait()


def scenario(daemon: Any, fault: str) -> None:
    record = Recorder(Path(daemon.state_dir) / "motor.jsonl")
    virtual, handler, table = daemon.virtual, daemon.press_handler, daemon.table
    motor_on = threading.Event()

    def motor_changed() -> None:
        on = virtual.motor_pin_high
        record.write(on=on)
        if on:
            motor_on.set()

    virtual.pin("motor_enable").listeners.append(motor_changed)
    pinged = threading.Event()
    send = daemon.notifier.send

    def watch_pings(*fields: str) -> bool:
        if "WATCHDOG=1" in fields:
            pinged.set()
        return bool(send(*fields))

    daemon.notifier.send = watch_pings
    if not pinged.wait(10):  # faults come once the watchdog is running, so that its pings can be seen to stop
        record.write(mark="no watchdog ping")
    if not start_game(table):
        record.write(mark="no game")
    edges = EdgeThread()

    def press() -> None:
        record.write(mark="press")
        edges.call(virtual.press_button)
        if not motor_on.wait(10):
            record.write(mark="motor never started")

    faulted = threading.Event()

    def mark_fault() -> None:
        record.write(mark="fault")
        faulted.set()

    if fault == "none":
        press()
    elif fault == "hang-timers":
        blocked = threading.Event()
        daemon.clock.call_later(0.0, lambda: block_forever(blocked))
        blocked.wait(5)
        mark_fault()
        press()
    elif fault == "hold-table-lock":
        press()  # (the press would be served with the lock held first too: it never takes it)
        held = threading.Event()

        def hold() -> None:
            table.lock.acquire()
            block_forever(held)

        threading.Thread(target=hold, name="lock-holder", daemon=True).start()
        held.wait(5)
        mark_fault()
    elif fault == "block-journal":
        journal = daemon.journal
        journal._write = lambda entries: block_forever()  # the disk stops answering: every write hangs
        mark_fault()
        press()
    elif fault == "stall-edge":
        started = handler._after_press

        def stalling() -> None:  # on the edge thread, once the motor is on
            started()
            mark_fault()
            block_forever()

        handler._after_press = stalling
        press()
    elif fault == "stall-uno-edge":
        press()

        def stalling_uno() -> None:
            mark_fault()
            block_forever()

        handler._on_uno = stalling_uno  # the UNO button's callback, on the edge thread, never returns
        edges.call(virtual.press_uno)
    elif fault == "kill-worker":
        from unolauncher.daemon import table as table_module

        press()
        mark_fault()
        table._queue.put(table_module._STOP)  # the worker returns: dead without an exception for excepthook to see
    elif fault == "raise-in-callback":
        started = handler._after_press

        def broken() -> None:
            started()
            raise RuntimeError("a bug in the press path, after the motor is on")

        handler._after_press = broken  # called by PressHandler.press on the edge thread, once the motor is on
        mark_fault()
        press()
    elif fault == "thread-exception":
        press()

        def crash() -> None:
            raise RuntimeError("an uncaught exception in some thread")

        mark_fault()
        threading.Thread(target=crash, name="crashing-thread").start()
    else:
        record.write(mark=f"unknown fault {fault}")
    # Some faults happen on the edge thread, after the press: "injected" only once the fault is really there.
    if fault != "none" and not faulted.wait(10):
        record.write(mark="fault never happened")
    record.write(mark="injected")


def run_with_scenario(inject: Callable[[Any, str], None], argv: list[str]) -> int:
    """``unolauncher ARGV[1:]`` with ``inject(daemon, ARGV[0])`` started on a thread of its own once the daemon is up
    (the entry point of every fault-injection daemon: this module's and ``reliability/motor_faults.py``)."""
    fault, rest = argv[0], argv[1:]
    from unolauncher.cli import main as cli_main
    from unolauncher.daemon import app

    start = app.Daemon.start

    def start_then_inject(self: Any) -> None:
        start(self)
        threading.Thread(target=inject, args=(self, fault), name="fault-scenario", daemon=True).start()

    app.Daemon.start = start_then_inject  # type: ignore[method-assign]
    return cli_main(rest)


def main(argv: list[str]) -> int:
    return run_with_scenario(scenario, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
