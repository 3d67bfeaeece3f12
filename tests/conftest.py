"""Suite-wide test policy.

Under ``CI=true`` a skipped test is a failure: a test that needs a binary (mosquitto, chromium) may skip with a
clear reason on a developer's machine, but CI installs every binary, so a skip there means something is broken.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator
from pathlib import Path

import pytest
from pluggy import Result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # so tests can `import support.<x>`

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Result[pytest.TestReport], None]:
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which counts as a failure: {reason}"


@pytest.fixture
def artifacts_dir() -> Path:
    """Where tests drop screenshots and logs worth looking at (kept after the run, ignored by git)."""
    path = ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path
