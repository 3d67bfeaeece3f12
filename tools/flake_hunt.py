#!/usr/bin/env python3
"""Flake hunt: run every test module N times with a CPU hog on one core and name each test that ever failed.

A flaky test is a failing test: it blocks every landing. Timing races show up when the machine is busy, so a
busy-looping process is pinned to one core (the last one) while each module runs, alone, N times in a row. Each
run's results come from pytest's JUnit XML, so a test counts as failed when it failed or errored in any run.

    python3 dev.py flakes                          # every module under tests/, 10 runs each
    python3 dev.py flakes --runs 5 tests/bus tests/daemon/test_snapshot.py
    python3 dev.py flakes --no-hog --json flakes.json

Exit status: 0 when no test failed in any run, 1 when some did, 2 for bad arguments. The summary lists each
module with its runs and wall time, then every test that failed with how often and the first failure's message.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RUNS = 10
MAX_DETAIL_CHARS = 20_000  # of each first failure's text, kept in --json


@dataclass
class ModuleResult:
    """How one test module fared over its runs."""

    module: str
    runs: int = 0
    seconds: float = 0.0
    tests: int = 0  # test cases seen in one run (the most of any run)
    failures: Counter[str] = field(default_factory=Counter)  # test id -> runs in which it failed or errored
    first_message: dict[str, str] = field(default_factory=dict)
    # The whole failure text (assertion, traceback, captured log) of each test's first failure: a flake seen once
    # in an hour of runs must be explainable from the report alone.
    first_detail: dict[str, str] = field(default_factory=dict)
    broken_runs: int = 0  # runs that produced no report at all (collection error, crash, timeout)


def _hog() -> None:
    """Busy-loop on the last core until killed (the CPU hog)."""
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})
    while True:
        pass


def find_test_modules(paths: list[str]) -> list[Path]:
    """Every ``test_*.py`` under the given files or folders (default: ``tests/``), in a stable order."""
    found: list[Path] = []
    for raw in paths or ["tests"]:
        path = (ROOT / raw).resolve() if not Path(raw).is_absolute() else Path(raw)
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(path.rglob("test_*.py")))
        else:
            raise SystemExit(f"flake_hunt: {raw} is neither a test module nor a folder")
    return sorted(set(found))


def _read_report(report: Path) -> tuple[int, dict[str, tuple[str, str]]] | None:
    """(test cases, {failed test id: (first line of the message, whole failure text)}) from one JUnit XML report;
    None when there is none."""
    try:
        tree = ET.parse(report)
    except (OSError, ET.ParseError):
        return None
    cases = 0
    failed: dict[str, tuple[str, str]] = {}
    for case in tree.iter("testcase"):
        cases += 1
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        for tag in ("failure", "error"):
            node = case.find(tag)
            if node is not None:
                message = (node.get("message") or node.text or tag).strip().splitlines()[0][:200]
                captured = [(part.text or "") for part in case if part.tag in ("system-out", "system-err")]
                detail = "\n".join([node.get("message") or "", node.text or "", *captured]).strip()
                failed[test_id] = (message, detail[-MAX_DETAIL_CHARS:])
    return cases, failed


def hunt_module(python: str, module: Path, runs: int, extra: list[str]) -> ModuleResult:
    result = ModuleResult(str(module.relative_to(ROOT)))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="flakes-") as work:
        for run in range(runs):
            report = Path(work) / f"run{run}.xml"
            command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
            # Captured output and logs of failing tests only, into the report (for first_detail).
            command += ["-o", "junit_logging=all", "-o", "junit_log_passing_tests=false", *extra]
            subprocess.run([*command, str(module)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            result.runs += 1
            read = _read_report(report)
            if read is None:
                result.broken_runs += 1
                result.failures[f"{result.module} (no report: collection error or crash)"] += 1
                continue
            cases, failed = read
            result.tests = max(result.tests, cases)
            for test_id, (message, detail) in failed.items():
                result.failures[test_id] += 1
                result.first_message.setdefault(test_id, message)
                result.first_detail.setdefault(test_id, detail)
    result.seconds = time.monotonic() - started
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="test modules or folders (default: tests/)")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="runs per module (default 10)")
    parser.add_argument("--no-hog", action="store_true", help="do not load a core while the tests run")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that has pytest (default: this one)")
    parser.add_argument("-k", dest="keyword", help="passed to pytest -k")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    modules = find_test_modules(args.paths)
    extra = ["-k", args.keyword] if args.keyword else []
    hog = None
    if not args.no_hog:
        hog = multiprocessing.Process(target=_hog, daemon=True)
        hog.start()
    results: list[ModuleResult] = []
    try:
        for number, module in enumerate(modules, start=1):
            result = hunt_module(args.python, module, args.runs, extra)
            results.append(result)
            flaky = len(result.failures)
            print(
                f"[{number}/{len(modules)}] {result.module}: {result.tests} tests x {result.runs} runs, "
                f"{result.seconds:.0f} s, {flaky} failing test(s)",
                flush=True,
            )
    finally:
        if hog is not None:
            hog.terminate()
            hog.join()
    failed = [(r, test_id, count) for r in results for test_id, count in r.failures.items()]
    total_runs = sum(r.runs for r in results)
    print(f"\n{len(modules)} modules, {total_runs} module runs, {'with' if hog else 'without'} a CPU hog on one core")
    if not failed:
        print("no test failed in any run")
    for result, test_id, count in failed:
        print(f"FAILED {count}/{result.runs}: {test_id}: {result.first_message.get(test_id, '')}")
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "module": r.module,
                        "runs": r.runs,
                        "tests": r.tests,
                        "seconds": round(r.seconds, 1),
                        "failures": dict(r.failures),
                        "messages": r.first_message,
                        "details": r.first_detail,
                    }
                    for r in results
                ],
                indent=1,
            )
            + "\n"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
