"""#33 items 7 and 8: config values that once passed or crashed: NaN and infinity in ranged keys, a 3,000-deep TOML
value, ``password_file`` = /dev/zero or a FIFO. Each is one line naming the key and exit 2, never a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from daemon.test_config import QUIET, one_line_exit_2

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("key", ["max_run_s", "jam_timeout_s", "retract_power"])
def test_nan_and_infinity_are_refused_by_the_ranges(tmp_path: Path, key: str, value: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(QUIET.replace('backend = "virtual"\n', f'backend = "virtual"\n{key} = {value}\n'))
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "s")], f"launcher.{key}")


def test_a_nan_in_a_daemon_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(QUIET + "[table]\nstall_timeout_s = nan\n")
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "s")], "table.stall_timeout_s")


def test_a_3000_deep_value_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[table]\nid = " + "[" * 3000 + "]" * 3000 + "\n")
    one_line_exit_2(["--config", str(path)], "nests values too deeply")


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
def test_a_password_file_that_is_no_password_file(tmp_path: Path, kind: str) -> None:
    secret = tmp_path / "secret"
    if kind == "dev-zero":
        secret = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(secret)  # nobody writes it: opening it for reading used to wait for ever
    else:
        secret.write_bytes(b"x" * 100_000)
    path = tmp_path / "c.toml"
    path.write_text(QUIET + f'[broker]\nhost = "127.0.0.1"\nport = 1\npassword_file = "{secret}"\nusername = "u"\n')
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "s")], "broker.password_file")
