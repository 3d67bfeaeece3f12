"""`unolauncher verify` and `unolauncher export` (the fairness audit, docs/ejection.md) and `unolauncher selftest
--virtual`. The logs come from a real referee fed what the daemon feeds it: secrets, ``pressed`` before each hit,
lid openings, entropy, undo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from unolauncher.cli import main
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

PLAYERS = ["ann", "bob"]


def secret(n: int) -> str:
    return f"{n:064x}"


class Log:
    """A referee driven like the daemon drives it, its events stamped with seq as the journal stamps them."""

    def __init__(self, preset: str = "classic", rigged: bool = False, mode: str = "table") -> None:
        self.ref = Referee()
        self.events: list[dict[str, Any]] = []
        self.secrets = 0
        start: dict[str, Any] = {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": mode, "seed": 5,
                                 "options": {"ejection_preset": preset, "target_score": 10_000}}  # fmt: skip
        if not rigged:
            start["secret"] = self.next_secret()
        self.apply(start)

    def next_secret(self) -> str:
        self.secrets += 1
        return secret(self.secrets)

    def apply(self, command: dict[str, Any]) -> list[dict[str, Any]]:
        events = self.ref.handle(command)
        assert events and events[0]["type"] != "rejected", (command, events)
        for event in events:
            self.events.append({**event, "seq": len(self.events) + 1})
        return events

    def press(self) -> None:
        player = self.ref.hitter()
        press = self.apply({"type": "pressed", "player": player})[-1]
        if player is not None:
            self.apply({"type": "hit", "player": player, "cards": press["plan"]["cards"]})

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(e) + "\n" for e in self.events))
        return path


def honest_log(preset: str = "classic", presses: int = 20) -> Log:
    log = Log(preset)
    for i in range(presses):
        if i == presses // 2:
            log.apply({"type": "lid_opened"})  # a refill halfway: part of the audit trail
        if i == 3:
            log.apply({"type": "entropy", "entropy": "c0ffee" * 5})
        log.press()
    log.apply({"type": "undo", "secret": log.next_secret()})  # a hit taken back: the presses stay on the record
    log.press()
    log.apply({"type": "new_game", "ruleset": "attack", "players": PLAYERS, "secret": log.next_secret()})  # reveals
    return log


@pytest.mark.parametrize("preset", ["classic", "sequence", "brutal"])
def test_fairness_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str], preset: str) -> None:
    log = honest_log(preset)
    assert main(["verify", "--events", str(log.write(tmp_path / "game.jsonl"))]) == 0
    out = capsys.readouterr().out
    assert "verified 1 commitment(s), 21 press(es): every outcome matches its commitment" in out
    assert "1 commitment(s) still open" in out  # the second game's round: its secret is not out yet


def test_a_tampered_press_is_named_with_its_round_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = honest_log()
    victim = next(e for e in log.events if e["type"] == "press" and e["plan"]["fire"])
    victim["plan"]["cards"] += 1  # the table claims one more card than the secret gives
    assert main(["verify", "--events", str(log.write(tmp_path / "game.jsonl"))]) == 1
    out = capsys.readouterr().out
    line = victim["seq"]  # one event per line, seq from 1
    cards = victim["plan"]["cards"]
    assert f"round 1 ({victim['commitment'][:12]}…): line {line}: press {victim['index']}: cards {cards} " \
           f"(expected {cards - 1})" in out  # fmt: skip
    assert "NOT verified" in out


def test_a_dropped_press_a_wrong_secret_and_a_foreign_press_are_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = honest_log()
    first = next(i for i, e in enumerate(log.events) if e["type"] == "press")
    dropped = log.events.pop(first)
    assert main(["verify", "--events", str(log.write(tmp_path / "a.jsonl"))]) == 1
    out = capsys.readouterr().out
    assert "press index 1 where press 0 was due" in out
    assert f"seq {dropped['seq'] + 1} follows seq {dropped['seq'] - 1}" in out
    assert "the reveal counts 20 press(es), the events hold 19" in out  # 21 presses, one an undone one again

    log = honest_log()
    reveal = next(e for e in log.events if e["type"] == "ejection_reveal")
    reveal["secret"] = secret(99)
    assert main(["verify", "--events", str(log.write(tmp_path / "b.jsonl"))]) == 1
    assert "the revealed secret does not hash to the commitment" in capsys.readouterr().out

    log = honest_log()
    press = next(e for e in log.events if e["type"] == "press")
    press["commitment"] = "0" * 64
    assert main(["verify", "--events", str(log.write(tmp_path / "c.jsonl"))]) == 1
    assert "press under commitment '" + "0" * 64 + "', which no event opened" in capsys.readouterr().out


def test_a_rigged_round_is_not_vouched_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = Log(rigged=True)  # no secret from the daemon: derived from the seed someone chose
    for _ in range(5):
        log.press()
    log.apply({"type": "new_game", "ruleset": "attack", "players": PLAYERS, "seed": 1})
    path = log.write(tmp_path / "rigged.jsonl")
    assert main(["verify", "--events", str(path)]) == 1
    assert "is rigged: its secret was derived from a seed" in capsys.readouterr().out
    assert main(["verify", "--events", str(path), "--allow-rigged"]) == 0


def test_a_log_that_begins_inside_a_commitment_checks_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Journal retention deletes whole games: the first kept game begins with the reveal of the round it replaced,
    whose commitment and presses are gone. That part cannot be checked, and is not a mismatch; the same reveal
    after the log's first commitment is one."""
    log = honest_log()
    start = next(i for i, e in enumerate(log.events) if e["type"] == "ejection_reveal")  # the second game's start
    kept = log.events[start:]
    log.events = kept
    assert main(["verify", "--events", str(log.write(tmp_path / "pruned.jsonl"))]) == 0
    out = capsys.readouterr().out
    assert "1 event(s) of a commitment opened before the log begins: not checked" in out
    opened = next(i for i, e in enumerate(kept) if e["type"] == "round_started")
    log.events = [*kept[1 : opened + 1], kept[0], *kept[opened + 1 :]]  # the reveal after a commitment it opened
    assert main(["verify", "--events", str(log.write(tmp_path / "moved.jsonl"))]) == 1
    assert "which no event opened" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--events", "/nonexistent.jsonl"], "does not exist"),
        (["--state-dir", "/nonexistent"], "holds no journal"),
    ],
)
def test_verify_bad_input_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_verify_bad_json_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "press", "plan": {"fire": false}}\nnot json\n')
    assert main(["verify", "--events", str(log)]) == 2
    assert "line 2 is not valid JSON" in capsys.readouterr().err


def test_verify_reads_stdin_in_a_real_process() -> None:
    log = honest_log("gentle", presses=10)
    proc = subprocess.run(
        [sys.executable, "-m", "unolauncher.cli", "verify", "--events", "-"],
        input="".join(json.dumps(e) + "\n" for e in log.events), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "verified 1 commitment(s), 11 press(es)" in proc.stdout


def journal_of(state_dir: Path, *logs: Log) -> None:
    """What the daemon's journal holds after these games (their events, in order)."""
    journal = Journal(state_dir / "journal.sqlite3")
    for log in logs:
        journal.append_events([{k: v for k, v in e.items() if k != "seq"} for e in log.events])
    journal.close()


def test_export_writes_one_game_for_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = honest_log()
    log.press()
    journal_of(tmp_path, log)
    assert main(["verify", "--state-dir", str(tmp_path)]) == 0
    assert "verified 1 commitment(s), 21 press(es)" in capsys.readouterr().out
    first, second = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    assert main(["export", "--state-dir", str(tmp_path), "--game", "1", "--output", str(first)]) == 0
    assert main(["export", "--state-dir", str(tmp_path), "--output", str(second)]) == 0  # the last game
    exported = [json.loads(line) for line in first.read_text().splitlines()]
    assert exported[0]["type"] == "game_started" and exported[-1]["type"] == "ejection_reveal"  # the replaced round
    assert json.loads(second.read_text().splitlines()[0])["type"] == "game_started"
    capsys.readouterr()
    assert main(["verify", "--events", str(first)]) == 0
    assert "verified 1 commitment(s), 21 press(es)" in capsys.readouterr().out
    assert main(["verify", "--events", str(second)]) == 0  # its one round is still open: nothing to check yet
    assert "1 commitment(s) still open" in capsys.readouterr().out
    assert main(["export", "--state-dir", str(tmp_path), "--game", "3"]) == 2
    assert "there is no game 3: the journal holds games 1 to 2" in capsys.readouterr().err


def test_selftest_virtual_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--virtual"]) == 0
    out = capsys.readouterr().out
    for part in ("pin map", "pin motor_enable", "pin lid", "pull-down enable", "pull-down forward",
                 "pull-down reverse", "button", "motor"):  # fmt: skip
        assert f"PASS  {part}" in out
    assert "PASS  motor            a card passed the beam" in out
    assert "SKIP  strict_gpiod" in out  # this machine's kernel is not a Raspberry Pi's
    assert "all parts passed" in out


def test_selftest_virtual_reports_failures(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--virtual-magazine", "0", "--virtual-no-press", "--virtual-no-pull-downs", "--timeout", "1"]
    assert main(["selftest", "--virtual", *args]) == 1
    out = capsys.readouterr().out
    assert "FAIL  button           no press within 1 s" in out
    assert "FAIL  motor            no card reached the beam (empty): load cards" in out
    for line in ("enable GPIO 12", "forward GPIO 23", "reverse GPIO 24"):
        role, gpio = line.split(" ", 1)
        assert f"FAIL  pull-down {role} {gpio} reads high when released: fit a 10 kΩ pull-down" in out
    assert "failed: pull-down enable, pull-down forward, pull-down reverse, button, motor" in out


def test_selftest_with_pin_file_and_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text("[pins]\nbutton = 5\nsensor = -1\n")
    assert main(["selftest", "--virtual", "--pins", str(pins)]) == 0
    assert "PASS  motor            the operator saw the wheel turn (no beam" in capsys.readouterr().out
    pins.write_text("[pins]\nbutton = 14\n")
    assert main(["selftest", "--virtual", "--pins", str(pins)]) == 2
    assert "reserved for the UART" in capsys.readouterr().err


def test_selftest_motor_check_fails_when_the_wheel_does_not_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a beam the (simulated) operator confirms only what the wheel did: a driver that never switches the
    motor on is a FAIL naming the wiring, not a PASS the check wrote itself."""
    from unolauncher.launcher.backends.gpio.launcher import GpioLauncher

    pins = tmp_path / "pins.toml"
    pins.write_text("[pins]\nsensor = -1\n")
    monkeypatch.setattr(GpioLauncher, "drive_motor", lambda self, direction, power=0.5: True)  # a dead driver
    assert main(["selftest", "--virtual", "--pins", str(pins)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  motor            not confirmed: check the motor supply and the driver wiring (enable GPIO 12" in out


@pytest.mark.parametrize(
    "module, value, ok, words",
    [
        ("pinctrl_bcm2835", "N", True, "a released line reverts to an input"),
        ("pinctrl_rp1", "N", True, "a released line reverts to an input"),
        ("pinctrl_bcm2835", "Y", False, "add dtparam=strict_gpiod to /boot/firmware/config.txt and reboot"),
        ("pinctrl_rp1", "Y", False, "a dead process leaves the motor line driven"),
        (None, None, None, "this kernel does not say"),
    ],
)
def test_selftest_strict_gpiod_check(tmp_path: Path, module: str | None, value: str | None, ok: bool | None,
                                     words: str) -> None:  # fmt: skip
    from unolauncher.launcher.gpio_selftest import check_strict_gpiod

    if module is not None:
        parameter = tmp_path / "sys" / "module" / module / "parameters" / "persist_gpio_outputs"
        parameter.parent.mkdir(parents=True)
        parameter.write_text(f"{value}\n")
    part, passed, detail = check_strict_gpiod(tmp_path)
    assert part == "strict_gpiod" and passed is ok and words in detail
