"""`unolauncher verify` (fairness audit round trip) and `unolauncher selftest --virtual`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from unolauncher.cli import main
from unolauncher.launcher.ejection import EjectionModel, commitment
from unolauncher.launcher.press import PressHandler, PressSnapshot

from .conftest import Rig


def play_game(rig: Rig, preset: str, seed: int, presses: int) -> list[dict[str, Any]]:
    """A real game on the virtual launcher: the events a table would journal."""
    events: list[dict[str, Any]] = []
    ann = PressSnapshot("ann")
    handler = PressHandler(rig.launcher, EjectionModel(preset), lambda: ann, lambda *a: None, events.append)
    handler.start(seed)
    for i in range(presses):
        if i == presses // 2:  # a refill halfway: the lid is part of the audit trail
            rig.sim.open_lid()
            rig.clock.advance(0.1)
            rig.sim.load(20)
            rig.sim.close_lid()
            rig.clock.advance(0.1)
        rig.sim.press_button()
        rig.clock.advance(4)
    handler.reveal()
    return events


def write(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


@pytest.mark.parametrize("preset", ["classic", "sequence"])
def test_fairness_round_trip(rig: Rig, tmp_path: Path, capsys: pytest.CaptureFixture[str], preset: str) -> None:
    events = play_game(rig, preset, seed=8675309, presses=30)
    assert sum(e["type"] == "press" for e in events) == 30
    log = write(tmp_path / "game.jsonl", events)
    code = main(["verify", "--seed", "8675309", "--commitment", commitment(8675309), "--presses", str(log)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"verified 30 presses (preset {preset})" in out


def test_tampered_press_is_reported(rig: Rig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = play_game(rig, "classic", seed=5, presses=12)
    presses = [e for e in events if e["type"] == "press"]
    victim = next(e for e in presses if e["plan"]["fire"])
    victim["plan"]["cards"] += 1  # the table claims one more card than the seed gives
    log = write(tmp_path / "game.jsonl", events)
    code = main(["verify", "--seed", "5", "--commitment", commitment(5), "--presses", str(log)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"press {victim['index']}: cards {victim['plan']['cards']} (expected {victim['plan']['cards'] - 1})" in out


def test_dropped_press_and_wrong_seed_reported(rig: Rig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = play_game(rig, "classic", seed=5, presses=6)
    first_press = next(i for i, e in enumerate(events) if e["type"] == "press")
    del events[first_press]
    log = write(tmp_path / "game.jsonl", events)
    assert main(["verify", "--seed", "5", "--commitment", commitment(5), "--presses", str(log)]) == 1
    assert "press index 1 where press 0 was due" in capsys.readouterr().out
    assert main(["verify", "--seed", "6", "--commitment", commitment(5), "--presses", str(log)]) == 1
    assert "seed 6 does not match the commitment" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seed", "x", "--commitment", "0" * 64], "--seed must be a whole number"),
        (["--seed", "1", "--commitment", "abc"], "--commitment must be 64 hexadecimal"),
        (["--seed", "1", "--commitment", "0" * 64, "--presses", "/nonexistent.jsonl"], "does not exist"),
    ],
)
def test_verify_bad_input_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    if "--presses" not in args:
        args = [*args, "--presses", "-"]
    assert main(["verify", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_verify_bad_json_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "press", "plan": {"fire": false}}\nnot json\n')
    assert main(["verify", "--seed", "1", "--commitment", commitment(1), "--presses", str(log)]) == 2
    assert "line 2 is not valid JSON" in capsys.readouterr().err


def test_verify_reads_stdin_in_a_real_process(tmp_path: Path) -> None:
    model = EjectionModel("gentle")
    state = model.start(3)
    lines = [json.dumps({"type": "ejection_start", "preset": "gentle", "commitment": commitment(3)})]
    for i in range(10):
        plan, state = model.plan(state)
        lines.append(json.dumps({"type": "press", "index": i, "plan": plan.to_json()}))
    proc = subprocess.run(
        [sys.executable, "-m", "unolauncher.cli", "verify", "--seed", "3", "--commitment", commitment(3),
         "--presses", "-"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "verified 10 presses (preset gentle)" in proc.stdout


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
    from unolauncher.launcher.gpio import GpioLauncher

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
    from unolauncher.launcher.selftest_cli import check_strict_gpiod

    if module is not None:
        parameter = tmp_path / "sys" / "module" / module / "parameters" / "persist_gpio_outputs"
        parameter.parent.mkdir(parents=True)
        parameter.write_text(f"{value}\n")
    part, passed, detail = check_strict_gpiod(tmp_path)
    assert part == "strict_gpiod" and passed is ok and words in detail


def test_verify_reads_the_referees_game_started(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = EjectionModel("brutal")
    state = model.start(77)
    lines: list[dict[str, Any]] = [
        {"type": "game_started", "options": {"ejection_preset": "brutal"}, "ejection_commitment": commitment(77)}
    ]
    for i in range(5):
        plan, state = model.plan(state)
        lines.append({"type": "press", "index": i, "plan": plan.to_json()})
    log = write(tmp_path / "game.jsonl", lines)
    assert main(["verify", "--seed", "77", "--commitment", commitment(77), "--presses", str(log)]) == 0
    assert "verified 5 presses (preset brutal)" in capsys.readouterr().out
    assert main(["verify", "--seed", "77", "--commitment", "f" * 64, "--presses", str(log)]) == 1
    assert "differs from the given one" in capsys.readouterr().out
