#!/usr/bin/env python3
"""Set-up and task runner that needs nothing but Python 3.11+.

    python3 dev.py run    # the daemon (on a non-Pi machine: virtual launcher, embedded broker, dashboard)
    python3 dev.py test   # the whole test suite
    python3 dev.py lint   # ruff check + ruff format --check + mypy (package, tests, bench, tools)
    python3 dev.py flakes # every test module 10 times with a CPU hog on one core (tools/flake_hunt.py --help)
    python3 dev.py vpi    # the virtual Pi: the daemon under systemd on a gpio-sim chip in qemu (tools/vpi, root)
    python3 dev.py ha-check  # the daemon against a real Home Assistant (tests_ha/; minutes; skips without Python 3.13)

Both create the local virtual environment ``.venv`` on first use and reinstall the project into it only when
``pyproject.toml`` changed since the last install (a stamp file remembers its hash).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_venv(extras: str) -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py must explain itself on an old Python
        sys.exit(f"unolauncher needs Python 3.11 or newer; this is {sys.version.split()[0]}.")
    if not PYTHON.exists():
        print(f"creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / f".installed-{extras or 'base'}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    target = f"{ROOT}[{extras}]" if extras else str(ROOT)
    print(f"installing unolauncher ({extras or 'runtime'}) into {VENV}", flush=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "-e", target], check=True)
    stamp.write_text(digest)


def main(argv: list[str]) -> int:
    task = argv[0] if argv else "help"
    rest = argv[1:]
    if task == "run":
        ensure_venv("")
        state = ROOT / ".state"
        state.mkdir(exist_ok=True, mode=0o700)  # the launcher's secrets (the daemon tightens it too)
        cmd = [str(BIN / "unolauncher"), "run", "--state-dir", str(state), *rest]
    elif task == "test":
        ensure_venv("test")
        cmd = [str(PYTHON), "-m", "pytest", *rest]
    elif task == "ha-check":  # not in the default run: installs (once) and starts a real Home Assistant
        ensure_venv("test")
        cmd = [str(PYTHON), "-m", "pytest", "-p", "no:cacheprovider", str(ROOT / "tests_ha"), "-v", *rest]
    elif task == "flakes":
        ensure_venv("test")
        cmd = [str(PYTHON), str(ROOT / "tools" / "flake_hunt.py"), *rest]
    elif task == "vpi":  # no venv: the host's Python builds the guest's wheels (tools/vpi/run.py --help)
        cmd = ["nice", "-n", "10", sys.executable, str(ROOT / "tools" / "vpi" / "run.py"), *rest]
    elif task == "lint":
        ensure_venv("test")
        lint = subprocess.run([str(PYTHON), "-m", "ruff", "check", "."], cwd=ROOT).returncode
        # The formatter wraps code and docstring examples; a change it would make fails the lint (run `ruff format`).
        lint = lint or subprocess.run([str(PYTHON), "-m", "ruff", "format", "--check", "."], cwd=ROOT).returncode
        package = subprocess.run([str(PYTHON), "-m", "mypy"], cwd=ROOT).returncode
        # Tests, benchmarks and tools are held to the same settings (the MicroPython firmware is not CPython).
        others = [
            "tests",
            "tests_ha",
            "bench",
            "tools",
            "hardware/make_wiring.py",
            "hardware/netlist.py",
            "hardware/stripboard.py",
            "hardware/pictures.py",
            "hardware/wiring_data.py",
            "hardware/wiring_tables.py",
            "hardware/wiring_schematic.py",
            "hardware/wiring_harness.py",
            "firmware/tools",
        ]
        rest = subprocess.run([str(PYTHON), "-m", "mypy", *others], cwd=ROOT).returncode
        return lint or package or rest
    else:
        print(__doc__)
        return 0 if task in ("help", "-h", "--help") else 2
    try:
        return subprocess.run(cmd, cwd=ROOT).returncode
    except KeyboardInterrupt:
        # The child got the same Ctrl-C and shuts down cleanly (motor off, offline published); no traceback here.
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
