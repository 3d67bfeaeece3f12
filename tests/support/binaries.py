"""The one gate for system binaries that tests need (mosquitto, chromium, systemd-analyze, fusermount3, ...).

A test that needs a program the Python environment cannot install asks :func:`require_binary` for it. On a
developer's machine without the program the test is skipped with a reason that says which Debian package brings
it; under ``CI=true`` it fails instead, because CI installs every package listed in :data:`KNOWN_BINARIES`
(``.ci/run``). A test must never call such a program by name without asking the gate first: on a fresh machine
that is a ``FileNotFoundError`` (a failure), not a skip.

Binaries are looked up on ``PATH`` and then in ``/usr/sbin`` and ``/sbin`` (Debian puts mosquitto there, and a
normal user's ``PATH`` lacks them), so a test must run the path the gate returns, never the bare name.
``UNOLAUNCHER_TEST_HIDE_BINARIES`` (names separated by spaces or commas) makes the gate treat binaries as missing.
CI's newcomer run (``.ci/run``) plays a fresh machine with both: every gated binary hidden from the gate and from
``PATH``, so a test that calls one by name without the gate fails there, and the suite must still pass.

Example::

    mosquitto = require_binary("mosquitto")  # "/usr/sbin/mosquitto", or the test is skipped (failed in CI)
    subprocess.run([require_binary("mosquitto_passwd"), "-b", path, "user", "secret"], check=True)
"""

from __future__ import annotations

import os
import shutil

import pytest

# Every binary a test may need -> the Debian package that provides it (what .ci/run installs).
KNOWN_BINARIES: dict[str, str] = {
    "mosquitto": "mosquitto",
    "mosquitto_passwd": "mosquitto",
    "mosquitto_sub": "mosquitto-clients",
    "mosquitto_pub": "mosquitto-clients",
    "chromium": "chromium",
    "systemd-analyze": "systemd",
    "fusermount3": "fuse3",
    "dot": "graphviz",
    "espeak-ng": "espeak-ng",  # the voice (tests/voice)
    "sox": "sox",
    "node": "nodejs",  # runs the real MicroPython (tools/micropython: npm ci) for tests/firmware
}

HIDE_VARIABLE = "UNOLAUNCHER_TEST_HIDE_BINARIES"
SYSTEM_DIRS = ("/usr/sbin", "/sbin")


def in_ci() -> bool:
    """True under ``CI=true`` (also ``1``/``yes``): there a missing binary is a failure, not a skip."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def hidden_binaries() -> set[str]:
    """Names the environment asks the gate to treat as missing (a fresh machine played on a full one)."""
    return set(os.environ.get(HIDE_VARIABLE, "").replace(",", " ").split())


def find_binary(name: str) -> str | None:
    """The binary's path (``None`` when it is missing or hidden); never skips."""
    if name in hidden_binaries():
        return None
    search = os.pathsep.join([os.environ.get("PATH", os.defpath), *SYSTEM_DIRS])
    return shutil.which(name, path=search)


def require_binary(name: str) -> str:
    """The path of ``name``; skip the calling test with the package to install, or fail under ``CI=true``."""
    if name not in KNOWN_BINARIES:
        # A new binary goes into KNOWN_BINARIES (and .ci/run's apt-get line) first, so CI installs it.
        raise ValueError(f"{name!r} is not in support.binaries.KNOWN_BINARIES; add it there and to .ci/run")
    path = find_binary(name)
    if path is not None:
        return path
    reason = f"{name} is not installed (apt-get install {KNOWN_BINARIES[name]})"
    if in_ci():
        pytest.fail(f"{reason}; CI installs it, so a missing {name} under CI=true is a failure", pytrace=False)
    pytest.skip(reason)
