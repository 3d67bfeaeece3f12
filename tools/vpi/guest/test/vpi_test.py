"""The virtual Pi's test, run inside the guest by ``vpi-test.service`` (tools/vpi/run.py): the daemon as a Pi runs it.

Everything is driven and read from outside the daemon: the gpio-sim chip's sysfs (``sim_gpioN/pull`` presses a
button, breaks the beam, opens the lid; ``sim_gpioN/value`` reads what the daemon drives) and MQTT (the embedded
broker on 127.0.0.1). systemd is asked about the service (``systemctl show``) and is the one that kills and
restarts it. Under TCG nothing is timed by sleeping: every step waits for the state or the event it means, with a
generous deadline. Each scenario prints PASS/FAIL; ``summary.json`` in the working directory lists them.

Example (in the guest)::

    /opt/unolauncher/venv/bin/python vpi_test.py --only press,lid
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import tomllib
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vpi_rig import CONFIG, PACE, PINS, UNIT, Failed, Sim, Table, alive, check, systemctl, unit, wait_for

from unolauncher.launcher.backends.gpio.lgpio_release import line_info

NO_RUN = ("press_refused", "ignored_press", "lockout")  # the daemon's answers to a press that starts no run

# Every press fires two cards, at once: a custom ejection table (a game option, not a rigged game).
NEW_GAME = {
    "type": "new_game", "ruleset": "attack", "players": ["ann", "bob"],
    "options": {"ejection_preset": "custom", "ejection_custom": {"miss_hazard": [1.0], "hit_repeat": [1.0],
                                                                 "cards": {"2": 1}}},
}  # fmt: skip


class Guest:
    """The scenarios share one daemon, one game and one MQTT client; each leaves the daemon ready and idle."""

    def __init__(self) -> None:
        self.sim = Sim()
        self.table = Table()
        self.summary: list[dict[str, Any]] = []

    def ready(self, old_pid: int = 0, timeout: float = 120) -> int:
        """Wait until systemd has the service active (READY=1) under a new PID, MQTT online, the lid closed."""
        pid = self.started(old_pid, timeout)
        self.close_lid()
        return pid

    def started(self, old_pid: int = 0, timeout: float = 120) -> int:
        """Wait until systemd has the service active (READY=1) under a new PID and MQTT online; lines low."""
        since = len(self.table.status)
        pid: int = wait_for(lambda: self._active_pid(old_pid), timeout, f"{UNIT} active again (old pid {old_pid})", 0.2)
        if old_pid:
            self.table.online(since, timeout)
        else:
            self.table.connected.wait(timeout)
        check(self.sim.motor_off(), "a motor line is high after the daemon started")
        return pid

    def close_lid(self) -> None:
        """The daemon asks for the lid's pull-up bias at every start, which gpio-sim applies: the lid reads open."""
        self.sim.pull(PINS["lid"], "down")
        wait_for(lambda: not self.table.launcher()["lid_open"], 30, "the daemon to see the lid closed", 0.1)

    def recover(self) -> None:
        """After a failed scenario: back to the state every scenario starts from, whatever the failure left — the
        button released, the motor lines' sim pulls low, the unit active (started if a failed stop left it down,
        or systemd's own restart waited for) and answering, the lid closed, the launcher enabled. A daemon that
        systemd restarted by itself (the ``sigterm`` scenario's exit 3 at load ~30) had the lid read open, like any
        start (:meth:`close_lid`), and refused every later press (``lid_open``): the no-forward-line of ``stop`` and
        ``sigkill`` after it (docs/reliability.md)."""
        self.sim.release()
        for role in ("motor_enable", "motor_forward", "motor_reverse"):
            self.sim.pull(PINS[role], "down")
        if unit("ActiveState")["ActiveState"] in ("inactive", "failed"):
            systemctl("start", "--no-block", UNIT)
        wait_for(lambda: self._active_pid(0), 120, f"{UNIT} active", 0.2)
        wait_for(self._answers, 120, "the daemon answering a status command", 0.1)
        self.close_lid()
        if not self.table.launcher()["enabled"]:
            check(self.table.command({"type": "enable"})["ok"], "enable refused")
        # A scenario that failed mid-run leaves the run going: the next press would be ignored (ignored_press).
        idle = lambda: not self.table.launcher()["running"] and self.sim.motor_off()  # noqa: E731
        wait_for(idle, 60, "no run and the motor lines low", 0.1)

    def _answers(self) -> bool:
        try:
            self.table.command({"type": "status"}, timeout=5)
        except Failed:
            return False
        return True

    @staticmethod
    def _active_pid(old_pid: int) -> int:
        info = unit("ActiveState", "MainPID", "SubState")
        pid = int(info.get("MainPID", "0"))
        return pid if info.get("ActiveState") == "active" and pid and pid != old_pid else 0

    def pid(self) -> int:
        return int(unit("MainPID")["MainPID"])

    def measure_pace(self) -> None:
        """How slow this guest is (:class:`vpi_rig.Pace`); when it is slower than nominal, the rig's run length is
        stretched to match (the daemon restarted once), so that a run outlasts what the test does during it."""
        started = time.monotonic()
        for _ in range(200):
            self.sim.role("button")
        read_s = (time.monotonic() - started) / 200
        trips = []
        for _ in range(5):
            started = time.monotonic()
            self.table.command({"type": "status"})
            trips.append(time.monotonic() - started)
        PACE.set(read_s, sorted(trips)[len(trips) // 2])
        print(
            f"  pace: a sysfs read {PACE.read_s * 1e3:.2f} ms, a command's round trip {PACE.round_trip_s * 1e3:.0f} "
            f"ms: {PACE.slow:.1f}x the nominal guest; every ceiling is scaled by it"
        )
        if PACE.slow <= 1.5:
            return
        text = CONFIG.read_text()
        rig = tomllib.loads(text)["launcher"]
        max_run = min(30.0, rig["max_run_s"] * PACE.slow)  # the schema's limits: 60 s for either
        jam = min(60.0, max(rig["jam_timeout_s"], 2 * max_run))  # longer than max_run_s: the max_run scenario
        text = text.replace(f"max_run_s = {rig['max_run_s']}\n", f"max_run_s = {max_run:.1f}\n")
        text = text.replace(f"jam_timeout_s = {rig['jam_timeout_s']}\n", f"jam_timeout_s = {jam:.1f}\n")
        CONFIG.write_text(text)
        check(tomllib.loads(CONFIG.read_text())["launcher"]["max_run_s"] == round(max_run, 1), "rig not stretched")
        print(f"  a slow guest: max_run_s {rig['max_run_s']} -> {max_run:.1f}, jam_timeout_s -> {jam:.1f} (restart)")
        pid = self.pid()
        systemctl("restart", "--no-block", UNIT)
        self.ready(pid)

    def press_and_run(self) -> dict[str, Any]:
        """Press the button: the motor's forward line high (read on the chip, at once: the run may be short next to
        MQTT on a slow guest), then the ``press`` event; release it. Returns the press event. A press the daemon
        answers without a run (``press_refused``, ``ignored_press``, ``lockout``) fails at once, naming the answer:
        waiting out the forward line's ceiling instead said only that the line never came (docs/reliability.md)."""
        mark = self.table.mark()
        self.sim.press()
        try:
            answer = wait_for(lambda: self.sim.role("motor_forward") == 1 or self._no_run(mark), 10,
                              "the motor's forward line high after a press", 0.001)  # fmt: skip
        finally:
            self.sim.release()  # a press left held would hide the next scenario's press (no edge)
        check(answer is True, f"the press did not run the motor: {answer}")
        return self.table.event(mark, lambda e: e["type"] == "press", 30, "a press event")

    def _no_run(self, since: int) -> dict[str, Any] | None:
        """The daemon's answer to a press that starts no run, among the events after position ``since``."""
        with self.table.lock:
            return next((e for e in self.table.events[since:] if e["type"] in NO_RUN), None)

    def fired(self, since: int, timeout: float = 60) -> dict[str, Any]:
        """The run's ``fired`` event, once the table has also recorded its ``hit`` (or ``hit_failed``)."""
        fired = self.table.event(since, lambda e: e["type"] == "fired", timeout, "the fired event")
        self.table.event(since, lambda e: e["type"] in ("hit", "hit_failed"), timeout, "the run's hit recorded")
        return fired

    # ---- the scenarios, in order -------------------------------------------------------------------------------

    def boot(self) -> None:
        self.ready()
        self.measure_pace()  # restarts the daemon on a slow guest
        pid = self.pid()
        info = unit("User", "NRestarts", "Type", "WatchdogUSec")
        check(self.sim.chip == "gpiochip0", f"the sim chip is {self.sim.chip}, not gpiochip0")
        check(Path(f"/proc/{pid}/status").read_text().count("Uid:\t") == 1, "no process status")
        user = subprocess.run(["ps", "-o", "user=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
        check(user == "unolauncher", f"the daemon runs as {user!r}, not unolauncher")
        check(info["Type"] == "notify" and info["WatchdogUSec"] == "30s", f"the unit is not as shipped: {info}")
        reply = self.table.command(NEW_GAME)
        check(reply["ok"], f"new_game refused: {reply}")
        launcher = self.table.launcher()
        check(launcher["backend"] == "gpio", f"the daemon runs the {launcher['backend']} backend, not gpio")
        # lgpio's notification FIFO goes to LG_WD (the unit's StateDirectory), writable under ProtectSystem=strict.
        fifos = sorted(p.name for p in Path("/var/lib/unolauncher").glob(".lgd-nfy*") if p.is_fifo())
        check(bool(fifos), "lgpio made no notification FIFO in /var/lib/unolauncher (LG_WD)")
        print(f"  lgpio FIFOs in LG_WD: {', '.join(fifos)}")

    def press(self) -> None:
        """A press fires; the forward line is high at full power, the beam's pulses end the run, the retract PWMs."""
        mark = self.table.mark()
        press = self.press_and_run()
        check(press["plan"]["fire"] and press["plan"]["cards"] == 2, f"unexpected plan {press['plan']}")
        # Sampled only while the run drives forward: reads after its end (enable low) are not the full-power duty
        # (an arm64 run read 0.52 that way), and the cards must come before max_run_s ends the run: the enable line
        # alone is read for at most a quarter of max_run_s, and forward must still be on when that ends.
        window = tomllib.loads(CONFIG.read_text())["launcher"]["max_run_s"] / 4
        until = time.monotonic() + window
        full, samples = self.sim.duty(PINS["motor_enable"], lambda: time.monotonic() < until, 300)
        check(self.sim.role("motor_forward") == 1, f"the run stopped driving forward within {window:.1f} s")
        check(samples >= 20, f"only {samples} reads in {window:.1f} s while the motor ran forward")
        check(full > 0.97, f"the enable line's duty at full power is {full:.2f} over {samples} reads")
        check(self.sim.role("motor_reverse") == 0, "forward and reverse both high")
        for _ in range(2):
            self.sim.card()
        # The retract is reverse high with forward low: both high is the brake around it (issue 28).
        retracting = lambda: self.sim.role("motor_reverse") == 1 and self.sim.role("motor_forward") == 0  # noqa: E731
        wait_for(retracting, 10, "the retract (reverse line high, forward low)", 0.001)
        duty, samples = self.sim.duty(PINS["motor_enable"], retracting)
        retract_power = tomllib.loads(CONFIG.read_text())["launcher"]["retract_power"]
        # 50 reads: a duty of 0.6 read within +-0.2 at over three standard deviations (a slow guest reads fewer).
        check(samples >= 50, f"only {samples} reads during the retract")
        # lgpio's PWM is software: under TCG on a loaded host its thread is late now and then, and the line holds
        # its level longer (0.47 read once for 0.6). What must hold is a retract at reduced power, neither off nor
        # full, near the configured value; the exact duty is measured on a Pi (docs/reliability.md).
        check(abs(duty - retract_power) < 0.2, f"retract PWM duty {duty:.2f}, configured {retract_power}")
        fired = self.fired(mark)
        check(fired["outcome"] == "ok" and fired["cards"] == 2 and fired["counted"], f"unexpected {fired}")
        wait_for(self.sim.motor_off, 10, "every motor line low after the run")
        print(f"  duty at full power {full:.2f}, retract {duty:.2f} (configured {retract_power}, {samples} reads)")

    def lid(self) -> None:
        """Opening the lid mid-run stops the motor at once."""
        mark = self.table.mark()
        self.press_and_run()
        self.sim.pull(PINS["lid"], "up")
        wait_for(lambda: self.sim.role("motor_forward") == 0 and self.sim.role("motor_enable") == 0, 10,
                 "the motor lines low after the lid opened")  # fmt: skip
        fired = self.fired(mark)
        check(fired["outcome"] != "ok", f"the run ended {fired['outcome']!r} with the lid open")
        self.sim.pull(PINS["lid"], "down")
        wait_for(lambda: not self.table.launcher()["lid_open"], 30, "the lid closed again", 0.1)
        print(f"  run ended {fired['outcome']!r}")

    def estop(self) -> None:
        """``disable`` stops a run and refuses presses until ``enable``."""
        mark = self.table.mark()
        self.press_and_run()
        check(self.table.command({"type": "disable"})["ok"], "disable refused")
        wait_for(self.sim.motor_off, 10, "the motor lines low after disable")
        self.fired(mark)
        mark = self.table.mark()
        self.sim.press()
        refused = self.table.event(mark, lambda e: e["type"] in ("press_refused", "press"), 30, "press_refused")
        self.sim.release()
        check(refused["type"] == "press_refused" and refused["reason"] == "disabled", f"got {refused}")
        check(self.sim.motor_off(), "a motor line is high after a press while disabled")
        check(self.table.command({"type": "enable"})["ok"], "enable refused")

    def max_run(self) -> None:
        """No card ever reaches the beam: the run stops at max_run_s (the jam timeout is set longer)."""
        launcher = tomllib.loads(CONFIG.read_text())["launcher"]
        mark = self.table.mark()
        self.press_and_run()
        fired = self.fired(mark)
        check(fired["outcome"] == "max_run", f"a run without cards ended {fired['outcome']!r}, not max_run")
        check(fired["ran_ms"] >= launcher["max_run_s"] * 1000 - 50, f"ran only {fired['ran_ms']} ms")
        wait_for(self.sim.motor_off, 10, "the motor lines low after max_run")
        print(f"  stopped after {fired['ran_ms']} ms (max_run_s = {launcher['max_run_s']})")

    def _stop_mid_run(self, stop: Callable[[int], None], what: str) -> int:
        """Stop the daemon with ``stop(pid)`` while the motor runs: the line must go low while the process lives."""
        pid = self.pid()
        self.press_and_run()
        check(self.sim.role("motor_forward") == 1, f"{what}: the run ended before the daemon was stopped")
        stop(pid)
        wait_for(lambda: self.sim.role("motor_forward") == 0 or not alive(pid), 30, f"{what}: the motor line low")
        low_while_alive = alive(pid) and self.sim.role("motor_forward") == 0
        wait_for(lambda: not alive(pid), 30, f"{what}: the daemon's exit")
        check(low_while_alive, f"{what}: the daemon did not drive the motor line low before exiting")
        check(self.sim.motor_off(), f"{what}: a motor line is high after the exit")
        return pid

    def _inactive(self, what: str) -> dict[str, str]:
        """The unit once it is inactive after a clean stop; if it never is (a stop that failed is restarted by
        systemd), the failure names the unit's last state, its Result and restarts."""
        seen: dict[str, str] = {}

        def inactive() -> dict[str, str] | None:
            seen.update(unit("ActiveState", "SubState", "ExecMainStatus", "Result", "NRestarts"))
            return dict(seen) if seen.get("ActiveState") == "inactive" else None

        try:
            info: dict[str, str] = wait_for(inactive, 30, f"the unit inactive after {what}", 0.1)
        except Failed as exc:
            raise Failed(f"{exc}; last seen {seen}") from None
        return info

    def sigterm(self) -> None:
        pid = self._stop_mid_run(lambda p: os.kill(p, signal.SIGTERM), "SIGTERM")
        info = self._inactive("SIGTERM")
        check(info["ExecMainStatus"] == "0" and info["Result"] == "success", f"SIGTERM exit: {info}")
        systemctl("start", "--no-block", UNIT)
        self.ready(pid)

    def stop(self) -> None:
        pid = self._stop_mid_run(lambda p: systemctl("stop", "--no-block", UNIT), "systemctl stop")
        info = self._inactive("systemctl stop")
        check(info["ExecMainStatus"] == "0" and info["Result"] == "success", f"systemctl stop: {info}")
        systemctl("start", "--no-block", UNIT)
        self.ready(pid)

    def sigkill(self) -> None:
        """SIGKILL mid-run: the kernel releases the lines. The sim's pull-ups model a Pi whose released outputs
        stay high (no strict_gpiod): the restarted daemon must drive them low before READY=1."""
        before = self.table.command({"type": "status"})["data"]["seq"]
        self.press_and_run()
        pid = self.pid()
        restarts = int(unit("NRestarts")["NRestarts"])
        for role in ("motor_enable", "motor_forward", "motor_reverse"):
            self.sim.pull(PINS[role], "up")
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not alive(pid), 30, "the killed daemon gone")
        check(self.sim.role("motor_forward") == 1, "the released forward line does not follow the sim's pull-up")
        self.ready(pid)
        for role in ("motor_enable", "motor_forward", "motor_reverse"):
            self.sim.pull(PINS[role], "down")
        check(int(unit("NRestarts")["NRestarts"]) == restarts + 1, "systemd did not count a restart")
        after = self.table.command({"type": "status"})["data"]["seq"]
        check(after > before, f"the journal lost the press: seq {after} after the restart, {before} before it")

    def journal(self) -> None:
        """A restart replays the journal: the same state and seq afterwards."""
        before = self.table.command({"type": "status"})["data"]
        pid = self.pid()
        systemctl("restart", "--no-block", UNIT)
        self.started(pid)
        after = self.table.command({"type": "status"})["data"]  # before the lid is closed again (a lid event)
        self.close_lid()
        check(after["seq"] == before["seq"], f"seq {after['seq']} after the restart, {before['seq']} before")
        check(after["state"] == before["state"], "the state after the restart differs from before it")
        print(f"  seq {after['seq']} replayed")

    def watchdog(self) -> None:
        """SIGSTOP freezes the daemon: its watchdog pings stop and systemd kills and restarts it (WatchdogSec=30)."""
        pid = self.pid()
        since = time.monotonic()
        os.kill(pid, signal.SIGSTOP)
        self.ready(pid, timeout=180)
        took = time.monotonic() - since
        log = subprocess.run(["journalctl", "-u", UNIT, "--no-pager", "-o", "cat"], capture_output=True, text=True)
        check("Watchdog timeout" in log.stdout, "systemd's journal does not mention the watchdog timeout")
        print(f"  frozen daemon replaced after {took:.0f} s")

    def selftest(self) -> None:
        """``unolauncher selftest`` on the sim chip: the press wait and the motor through the beam pass; its
        pull-down check fails, correctly: gpio-sim has no resistor stronger than the Pi's internal pull-up."""
        systemctl("stop", UNIT)
        # systemctl stop returns once the unit is inactive, i.e. its process is gone; the kernel released the
        # process's line requests when it exited (before systemd saw it die): nothing of the daemon's is left.
        check(unit("ActiveState")["ActiveState"] == "inactive", "systemctl stop returned before the unit stopped")
        held = {gpio: i.consumer for gpio in PINS.values() if gpio >= 0 and (i := line_info(self.sim.dev, gpio)).used}
        check(not held, f"lines still requested right after systemctl stop returned: {held}")
        pins = Path("/tmp/pins-nolid.toml")  # no lid switch fitted: gpio-sim lifts a pulled-up lid to "open"
        pins.write_text(Path("/etc/unolauncher/pins.toml").read_text().replace("\nlid = 22", "\nlid = -1"))
        board = tomllib.loads(CONFIG.read_text())["launcher"]["board_revision"]
        proc = subprocess.Popen(
            ["/opt/unolauncher/venv/bin/unolauncher", "selftest", "--pins", str(pins), "--board-revision", board,
             "--timeout", f"{min(600, PACE.ceiling(120)):.0f}"],  # selftest takes at most 600 s
            cwd="/tmp", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line.rstrip())
            if line.startswith("press the launcher button"):
                # Held as a finger holds it, until selftest has moved on (its next line): a press released a sysfs
                # read after it began was once not seen by a loaded amd64 guest's selftest ("no press within").
                self.sim.press()
                wait_for(lambda: self.sim.role("button") == 0, 5, "the button line low")
            elif line.startswith("firing one card"):
                self.sim.release()
                wait_for(lambda: self.sim.role("motor_forward") == 1, 30, "selftest's motor on")
                self.sim.card()
        rc = proc.wait(PACE.ceiling(60))
        self.sim.release()
        print("\n".join(f"  | {line}" for line in lines))
        text = "\n".join(lines)
        check(rc == 1, f"selftest exited {rc}, expected 1 (pull-downs missing)")
        check("PASS  button" in text and "PASS  motor" in text, "selftest's button or motor part did not pass")
        check(text.count("FAIL  pull-down") == 3 and "fit a 10 kΩ pull-down" in text, "no pull-down failures")
        systemctl("start", "--no-block", UNIT)
        self.ready()

    def release(self) -> None:
        """Inputs with edge detection claimed and closed over and over (what selftest does to every input, what
        the daemon's stop does to its buttons) while two busy loops starve the guest's CPUs: never 'GPIO busy'.
        gpiozero's own lgpio pin runs the same loop first, for comparison (reported, not judged: a race)."""
        board = tomllib.loads(CONFIG.read_text())["launcher"]["board_revision"]
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        try:
            out = subprocess.run(
                ["nice", "-n", "5", sys.executable, str(Path(__file__).with_name("release_loop.py")), board,
                 str(FREE_LINE), str(RELEASE_CYCLES)], cwd="/tmp", capture_output=True, text=True,
                timeout=PACE.ceiling(600),
            )  # fmt: skip  # cwd: lgpio makes its FIFO there at import (not on the 9p share)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        print("\n".join(f"  | {line}" for line in (out.stdout + out.stderr).splitlines()))
        check(out.returncode == 0, f"the release loop failed (exit {out.returncode})")
        result = json.loads(out.stdout.splitlines()[-1])
        check(result["releasing"]["busy"] == 0, f"'GPIO busy' with the project's pin factory: {result['releasing']}")
        check(result["releasing"]["cycles"] == RELEASE_CYCLES, f"the loop stopped early: {result['releasing']}")
        log = subprocess.run(["journalctl", "-u", UNIT, "--no-pager", "-o", "cat"], capture_output=True, text=True)
        busy = [line for line in log.stdout.splitlines() if "GPIO busy" in line]
        check(not busy, f"the daemon met 'GPIO busy' in this boot's stops: {busy[:3]}")


FREE_LINE = 5  # no part of hardware/pins.toml is on GPIO 5
RELEASE_CYCLES = 150
SCENARIOS = ["boot", "press", "lid", "estop", "max_run", "journal", "sigterm", "stop", "sigkill", "watchdog",
             "selftest", "release"]  # fmt: skip
ON_DEMAND: set[str] = set()  # scenarios run only when named in --only (none now)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated scenarios (boot always runs first)")
    args = parser.parse_args(argv)
    asked = args.only.split(",") if args.only else [s for s in SCENARIOS if s not in ON_DEMAND]
    chosen = [s for s in SCENARIOS if s == "boot" or s in asked]
    guest = Guest()
    failed = 0
    for name in chosen:
        started = time.monotonic()
        try:
            getattr(guest, name)()
            ok, detail = True, ""
        except Exception as exc:
            ok, detail = False, f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        took = time.monotonic() - started
        print(f"{'PASS' if ok else 'FAIL'}  {name:<9} {took:6.1f} s  {detail}", flush=True)
        guest.summary.append({"scenario": name, "ok": ok, "seconds": round(took, 1), "detail": detail})
        if not ok:
            failed += 1
            if name == "boot":
                break
            try:  # each scenario starts from the daemon ready and idle: not from what this failure left
                guest.recover()
            except Exception as exc:
                print(f"  could not recover after {name}: {type(exc).__name__}: {exc}", flush=True)
    Path("summary.json").write_text(json.dumps(guest.summary, indent=1))
    with guest.table.lock:
        Path("events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in guest.table.events))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
