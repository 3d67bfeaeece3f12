"""The firmware under a real MicroPython: the WebAssembly port of the Pico's compiler and VM (npm
``@micropython/micropython-webassembly-pyscript``, pinned in ``tools/micropython/package.json``), run by node.

The checks themselves are MicroPython scripts (``firmware/mpchecks/check_*.py``): every ``unofw`` module
imports, ``test_vectors.json``, the pure logic, the app state machine on a board of fakes over a wrapping clock,
every hard interrupt handler with the heap locked, the DRV8833 PWM-slice check and the USB writes. Each of their
``test_*`` functions is one test here. Without node or the package (``cd tools/micropython && npm ci``) these tests
skip with that reason; under ``CI=true`` they fail (``.ci/run`` installs both).
"""

from __future__ import annotations

import ast
import functools
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware.mpfakes import FIRMWARE
from support.binaries import in_ci, require_binary

ROOT = FIRMWARE.parent
TOOLS = ROOT / "tools" / "micropython"
RUNNER = TOOLS / "run.mjs"
PACKAGE = TOOLS / "node_modules" / "@micropython" / "micropython-webassembly-pyscript" / "micropython.mjs"
CHECKS = FIRMWARE / "mpchecks"
SCRIPTS = ("check_logic.py", "check_board.py", "check_brake.py")


def check_names(script: str) -> list[str]:
    tree = ast.parse((CHECKS / script).read_text())
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


def require_micropython() -> str:
    """node's path, once the MicroPython package is installed; else skip (fail under CI) naming the fix."""
    node = require_binary("node")
    if not PACKAGE.exists():
        reason = "the MicroPython WebAssembly package is not installed (cd tools/micropython && npm ci)"
        if in_ci():
            pytest.fail(f"{reason}; .ci/run installs it, so under CI=true this is a failure", pytrace=False)
        pytest.skip(reason)
    return node


def run_micropython(node: str, script: Path, unofw: Path = FIRMWARE / "unofw") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            node,
            str(RUNNER),
            "--copy",
            f"/lib/unofw={unofw}",
            "--copy",
            f"/lib={CHECKS}",
            "--copy",
            f"/vectors.json={FIRMWARE / 'test_vectors.json'}",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )


@functools.cache
def results(node: str, script: str) -> tuple[str, int]:
    """The output of one check script (run once per test session) and its exit status."""
    proc = run_micropython(node, CHECKS / script)
    return proc.stdout + proc.stderr, proc.returncode


def failure_of(output: str, name: str) -> str:
    """The FAIL line of a check and its traceback."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"FAIL {name}:"))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("PASS ", "FAIL ", "DONE "))), len(lines)
    )
    return "\n".join(lines[start:end])


@pytest.mark.parametrize(("script", "name"), [(s, n) for s in SCRIPTS for n in check_names(s)])
def test_firmware_check_under_micropython(script: str, name: str) -> None:
    node = require_micropython()
    output, status = results(node, script)
    assert status == 0, output[-3000:]
    assert f"DONE {len(check_names(script))}" in output.splitlines(), f"the script stopped half-way:\n{output[-3000:]}"
    if f"PASS {name}" not in output.splitlines():
        pytest.fail(failure_of(output, name) if f"FAIL {name}:" in output else f"{name} did not run", pytrace=False)


def test_an_allocating_interrupt_handler_fails_the_checks(tmp_path: Path) -> None:
    """The heap-locked handler check can fail: a copy of the firmware whose beam handler keeps a list of times
    (one allocation per card) fails it, and every check that counts a card, each with a MemoryError."""
    node = require_micropython()
    unofw = tmp_path / "unofw"
    shutil.copytree(FIRMWARE / "unofw", unofw, ignore=shutil.ignore_patterns("__pycache__"))
    board = unofw / "rp2040.py"
    text = board.read_text()
    counted = "            state[0] += 1\n"
    assert counted in text
    board.write_text(text.replace(counted, counted + "            self.beam_times = [now]\n", 1))
    proc = run_micropython(node, CHECKS / "check_board.py", unofw)
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAIL ")]
    assert "FAIL test_every_hard_interrupt_handler_runs_with_the_heap_locked: MemoryError" in "\n".join(failed)
    assert all(": MemoryError" in line for line in failed), failed
    assert "PASS test_hello_answers_with_the_protocol_version" in proc.stdout  # the rest still runs
