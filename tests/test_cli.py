"""The ``unolauncher`` entry point: help, unknown subcommands, lazy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from unolauncher.cli import SUBCOMMANDS, main


def test_no_subcommand_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: unolauncher" in capsys.readouterr().out


def test_unknown_subcommand_is_refused_by_name() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2


def test_every_subcommand_module_exists_and_has_configure_and_run() -> None:
    import importlib

    for name, (module_name, _help) in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        assert callable(module.configure), name
        assert callable(module.run), name


def test_python_dash_m_entry_point_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "unolauncher", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.startswith("unolauncher ")
