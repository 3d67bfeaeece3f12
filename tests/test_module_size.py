"""No module of the daemon or the firmware grows past 500 lines: small modules are how a newcomer finds their way
(docs/architecture.md), and ``ruff format`` can push a module over without anyone noticing."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 500


def test_no_module_of_the_daemon_or_the_firmware_is_over_500_lines() -> None:
    modules = [*(ROOT / "controller").rglob("*.py"), *(ROOT / "firmware" / "unofw").rglob("*.py")]
    assert len(modules) > 50  # the walk found the package
    over = {str(m.relative_to(ROOT)): n for m in modules if (n := len(m.read_text().splitlines())) > LIMIT}
    assert not over, f"split these modules (lines): {over}"
