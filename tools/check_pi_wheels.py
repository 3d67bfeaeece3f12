#!/usr/bin/env python3
"""Prove that every runtime dependency installs on a Raspberry Pi from PyPI without building anything.

Reads ``[project].dependencies`` from pyproject.toml, keeps those whose environment markers hold on the target
(default: 64-bit Raspberry Pi OS Bookworm — CPython 3.11, aarch64, glibc 2.36), and asks pip to download them and
everything they pull in as wheels only (``--only-binary=:all:``) for that platform. A dependency with no wheel for
it (only an sdist that would need a compiler on the Pi) makes pip fail, and so this check.

    python tools/check_pi_wheels.py                   # aarch64 (what CI runs)
    python tools/check_pi_wheels.py --arch armv7l     # 32-bit: expected to fail on PyPI alone (see systemd/README.md)

Exit status: 0 when everything resolved (each file is listed as pure Python or a binary wheel for the target),
1 when pip could not resolve, 2 for bad arguments. Needs network access to PyPI and ``packaging`` (the test
environment has it).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
GLIBC_MINOR = 36  # Raspberry Pi OS Bookworm; manylinux wheels for any older glibc (down to 2.17) install too
REQUIRED_BINARY = "lgpio"  # the one dependency that exists only for the Pi: it must be among the wheels


def target_environment(arch: str) -> dict[str, str]:
    """The marker environment of CPython 3.11 on Raspberry Pi OS for ``arch`` (what differs from this machine's:
    ``Marker.evaluate`` fills in the rest)."""
    return {
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "python_version": "3.11",
        "python_full_version": "3.11.2",
        "implementation_version": "3.11.2",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
        "platform_machine": arch,
    }


def platform_tags(arch: str) -> list[str]:
    """Every wheel platform tag pip on the Pi accepts, newest glibc first (pip does not expand these by itself)."""
    tags = [f"manylinux_2_{minor}_{arch}" for minor in range(GLIBC_MINOR, 16, -1)]
    return [*tags, f"manylinux2014_{arch}", f"linux_{arch}"]


def runtime_requirements(arch: str) -> list[str]:
    """pyproject's runtime dependencies that apply on the target, markers dropped (pip would judge them by the
    machine it runs on, not by the target)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    env = target_environment(arch)
    kept = []
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(env):
            requirement.marker = None
            kept.append(str(requirement))
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", choices=["aarch64", "armv7l"], default="aarch64")
    args = parser.parse_args(argv)
    requirements = runtime_requirements(args.arch)
    print(f"target: CPython 3.11 on Raspberry Pi OS ({args.arch}, glibc 2.{GLIBC_MINOR}); requirements: "
          + ", ".join(requirements), flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory() as dest:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--dest", dest,
                   "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]  # fmt: skip
        for tag in platform_tags(args.arch):
            command += ["--platform", tag]
        result = subprocess.run([*command, *requirements], capture_output=True, text=True)
        if result.returncode != 0:
            errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
            print("\n".join(errors or result.stderr.splitlines()[-5:]), file=sys.stderr)
            print(f"FAILED: not every runtime dependency has a wheel for {args.arch} (a Pi would have to build it)")
            return 1
        wheels = sorted(path.name for path in Path(dest).iterdir())
    for name in wheels:
        kind = "pure Python" if name.endswith("-none-any.whl") else f"binary wheel for {args.arch}"
        print(f"  {name}: {kind}")
    if not any(name.lower().startswith(REQUIRED_BINARY + "-") for name in wheels):
        print(f"FAILED: {REQUIRED_BINARY} is not among the dependencies for {args.arch}: the Pi could not drive GPIO")
        return 1
    print(f"ok: {len(wheels)} package(s), all wheels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
