"""Reading a TOML configuration file with one-line errors (:class:`~unolauncher.errors.ConfigError`).

Used by the daemon's configuration (``daemon/config.py``) and by ``selftest --calibrate``, which reads the same file's
``[launcher]`` table (``launcher/config_table.py``). Runs on the thread that loads the configuration.

Example::

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "config.toml"
    >>> _ = path.write_text('[table]\\nid = "kitchen"\\n')
    >>> read_toml(path)
    {'table': {'id': 'kitchen'}}
    >>> read_toml(path.with_name("missing.toml"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    unolauncher.errors.ConfigError: config file .../missing.toml does not exist
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from unolauncher.errors import ConfigError

CONFIG_PATH = Path("/etc/unolauncher/config.toml")  # where the daemon's configuration lives on a Pi


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed file; a file that is missing, unreadable, not UTF-8 or not TOML is a one-line ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively: 3,000 levels end here
        raise ConfigError(f"config file {path} nests values too deeply") from None
