"""``unolauncher run`` with one of issue 26's faults injected into the real daemon process.

    PYTHONPATH=tests python -m reliability.motor_faults FAULT run --config table.toml

Like :mod:`support.fault_daemon` (whose recorder and edge thread it uses): once the daemon is up a scenario thread
records every change of the virtual motor's enable pin to ``<state_dir>/motor.jsonl`` (``{"t": monotonic, "on":
bool}``), the scenario's steps as ``{"t": ..., "mark": name}`` and the table's replies as ``{"reply": ...}``, waits
for the first ``WATCHDOG=1``, starts a game and injects ``FAULT``. ``"injected"`` is marked once the fault is in
place; the test then does its part (a signal, mostly).

Faults:

- ``enable-after-stop`` (item 1): the worker is held on a slow command with an ``enable`` and a ``press`` queued
  behind it; the hold is released only once SIGTERM's shutdown has switched the motor off (``STOPPING=1``) and
  stopped the run in progress (``launcher.stop()``, shutdown's first step).
- ``press`` (item 4): one press; ``"injected"`` once the run is over (its ``done`` ran: settle and any retract
  included). The test's configuration makes it end by max run or a jam.
- ``stuck-pin-write`` (item 6): one press; once the motor runs, every write of "off" to its enable pin never
  returns (the first one holds the motor guard's lock for good); ``"stuck"`` marks it.
- ``freeze`` (item 7): one press, and every edge of the dead-man heartbeat pin recorded as ``{"beat": true}``;
  ``"injected"`` once the motor runs. The test then freezes the process (SIGSTOP).
- ``running`` (item 5): one press; ``"injected"`` once the motor runs (until ``max_run_s``).
- ``estop`` (item 4): the same, with a ``disable`` handed to the table 0.2 s into the run, as MQTT's thread does.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

from support.fault_daemon import EdgeThread, Recorder, run_with_scenario, start_game


def scenario(daemon: Any, fault: str) -> None:
    record = Recorder(Path(daemon.state_dir) / "motor.jsonl")
    virtual, table = daemon.virtual, daemon.table
    virtual.pin("motor_enable").listeners.append(lambda: record.write(on=virtual.motor_pin_high))
    pinged, stopping = threading.Event(), threading.Event()
    send = daemon.notifier.send

    def watch(*fields: str) -> bool:
        if "WATCHDOG=1" in fields:
            pinged.set()
        if "STOPPING=1" in fields:
            stopping.set()
        return bool(send(*fields))

    daemon.notifier.send = watch
    run_stopped = threading.Event()
    stop_run = daemon.launcher.stop

    def stop_then_tell() -> None:
        stop_run()
        run_stopped.set()

    daemon.launcher.stop = stop_then_tell
    reply = table.output.reply

    def recorded_reply(answer: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        record.write(reply=answer)
        return reply(answer, *args, **kwargs)

    table.output.reply = recorded_reply
    if not pinged.wait(10):
        record.write(mark="no watchdog ping")
    if not start_game(table):
        record.write(mark="no game")
    if fault == "enable-after-stop":
        gate, held = threading.Event(), threading.Event()
        handle = table.commands.handle

        def slow(command: dict[str, Any], command_id: Any) -> Any:
            if command_id == "slow":
                held.set()
                gate.wait()
            return handle(command, command_id)

        table.commands.handle = slow
        table.submit_command({"type": "status"}, "slow")  # a slow command: the worker is held here ...
        table.submit_command({"type": "enable"}, "enable")  # ... with an enable (a no-op: already enabled) ...
        table.submit_command({"type": "press"}, "press")  # ... and a phone's press queued behind it
        held.wait(10)
        record.write(mark="injected")
        stopping.wait()  # SIGTERM: the signal handler switched the motor off, shutdown has begun ...
        run_stopped.wait()  # ... and stopped the run in progress (its first step): the worker is next
        record.write(mark="released")
        gate.set()
    elif fault == "stuck-pin-write":
        pin = virtual.pin("motor_enable")
        change = pin._change_state

        def stuck(value: Any) -> Any:
            if not value:  # the first "off" never returns: the guard's lock stays held, the motor stays on
                record.write(mark="stuck")
                threading.Event().wait()
            return change(value)

        EdgeThread().call(virtual.press_button)
        while not virtual.motor_pin_high:
            time.sleep(0.005)
        pin._change_state = stuck
        record.write(mark="injected")
    elif fault == "freeze":
        virtual.pin("heartbeat").listeners.append(lambda: record.write(beat=True))
        EdgeThread().call(virtual.press_button)
        while not virtual.motor_pin_high:
            time.sleep(0.005)
        record.write(mark="injected")
    elif fault == "running":
        EdgeThread().call(virtual.press_button)
        while not virtual.motor_pin_high:  # the press started the motor (it runs until max_run_s)
            time.sleep(0.005)
        record.write(mark="injected")
    elif fault in ("press", "estop"):
        motor_on = threading.Event()
        virtual.pin("motor_enable").listeners.append(lambda: motor_on.set() if virtual.motor_pin_high else None)
        EdgeThread().call(virtual.press_button)
        if not motor_on.wait(10):
            record.write(mark="motor never started")
        if fault == "estop":
            time.sleep(0.2)  # mid-run
            record.write(mark="disable")
            table.submit_payload(b'{"type": "disable", "by": "test"}')  # as MQTT's thread hands it over
        while daemon.launcher.running:  # the run is over once its done ran: settle and any retract included
            time.sleep(0.01)
        record.write(mark="run over")
        record.write(mark="injected")
    else:
        record.write(mark=f"unknown fault {fault}")


def main(argv: list[str]) -> int:
    return run_with_scenario(scenario, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
