"""One exception hierarchy: every exception class the package defines derives from ``UnolauncherError``, and keeps
the built-in base its callers catch it by."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import unolauncher
from unolauncher.errors import ConfigError, UnolauncherError


def package_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(unolauncher.__path__, "unolauncher."):
        if info.name.endswith("__main__"):  # importing it runs the command line
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def test_every_package_exception_derives_from_the_base() -> None:
    found = package_exceptions()
    assert "unolauncher.store.journal.JournalError" in found  # the walk reached the subpackages
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, UnolauncherError))
    assert outside == []


def test_there_is_one_config_error() -> None:
    from unolauncher.cli import league as league_cli
    from unolauncher.daemon import config
    from unolauncher.rules.ejection import EjectionConfigError

    assert config.ConfigError is league_cli.ConfigError is ConfigError
    assert issubclass(EjectionConfigError, ConfigError)
    assert issubclass(ConfigError, ValueError)  # callers that catch ValueError still do


def test_exceptions_keep_their_builtin_bases() -> None:
    found = package_exceptions()
    assert issubclass(found["unolauncher.store.journal.JournalError"], RuntimeError)
    assert issubclass(found["unolauncher.launcher.calibrate.CalibrationError"], RuntimeError)
    for name in (
        "strict_json.StrictJSONError",
        "launcher.backends.serial.protocol.FrameError",
        "launcher.pins.PinMapError",
    ):
        assert issubclass(found[f"unolauncher.{name}"], ValueError)
