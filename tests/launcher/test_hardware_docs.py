"""hardware/: the README's wiring table and wiring.svg are what make_wiring.py generates from pins.toml, and the
README's jig table matches the [jig] section."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from unolauncher.launcher.pins import DEFAULT_PINS, HEADER_PIN

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"


def generator() -> Any:
    """hardware/make_wiring.py loaded from its path (a script, not a package; mypy checks the file itself)."""
    spec = importlib.util.spec_from_file_location("make_wiring", HARDWARE / "make_wiring.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_wiring_table_matches_pins_toml() -> None:
    pins = tomllib.loads((HARDWARE / "pins.toml").read_text())["pins"]
    readme = (HARDWARE / "README.md").read_text()
    rows = re.findall(r"^\| [^|]+ \| `(\w+)` \| GPIO (\d+) \| (\d+) \|", readme, flags=re.M)
    assert {role: int(gpio) for role, gpio, _ in rows} == pins
    assert all(HEADER_PIN[int(gpio)] == int(header) for _, gpio, header in rows)
    assert [role for role, _, _ in rows] == [role for role, _ in DEFAULT_PINS.items()]


def test_readme_jig_table_matches_pins_toml() -> None:
    data = tomllib.loads((HARDWARE / "pins.toml").read_text())
    readme = (HARDWARE / "README.md").read_text()
    rows = re.findall(r"^\| GPIO (\d+) \| GPIO (\d+) \(`(\w+)`\) \|", readme, flags=re.M)
    assert {role: int(jig) for jig, _, role in rows} == data["jig"]
    assert all(data["pins"][role] == int(target) for _, target, role in rows)


def test_generated_files_are_current() -> None:
    module = generator()
    pins, jig = module.load()
    readme = (HARDWARE / "README.md").read_text()
    assert module.readme_with_table(readme, pins) == readme, "run python hardware/make_wiring.py"
    assert module.svg(pins, jig) == (HARDWARE / "wiring.svg").read_text(), "run python hardware/make_wiring.py"


def test_check_mode_catches_drift(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(HARDWARE / "make_wiring.py"), "--check"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    module = generator()
    module.SVG = tmp_path / "wiring.svg"
    module.SVG.write_text("<svg/>")
    module.README = HARDWARE / "README.md"
    assert module.main(["--check"]) == 1
