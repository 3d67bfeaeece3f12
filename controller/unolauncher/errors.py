"""The project's exceptions share one base, so a caller can tell "unolauncher refused this" from a bug.

Each module keeps its own narrow exception (a journal row that cannot be read, a serial frame that does not decode,
a refusal of the referee...), derived from :class:`UnolauncherError` and, where callers already caught it as such,
from the built-in it always was (``ValueError``, ``RuntimeError``): nothing that caught them before misses them now.

    UnolauncherError
    ├── ConfigError (ValueError)            daemon/config.py, cli/league.py: a setting or option that cannot work
    │   └── EjectionConfigError             rules/ejection.py: a custom ejection table
    ├── Refusal                             rules/refusal.py: the referee refuses a command (a ``rejected`` event)
    ├── StrictJSONError (ValueError)        strict_json.py
    ├── InvalidMessage (ValueError)         league.py
    ├── JournalError (RuntimeError)         store/journal.py
    ├── UnreadableRow (ValueError)          store/journal.py: a journal row that is not strict JSON
    ├── PinMapError (ValueError)            launcher/pins.py
    ├── LauncherSetupError (ValueError)     launcher/factory.py
    ├── CalibrationError (RuntimeError)     launcher/calibrate.py
    ├── FrameError (ValueError)             launcher/backends/serial/protocol.py
    ├── LineHeldError (RuntimeError)        launcher/backends/gpio/lgpio_release.py: a GPIO line another holds
    └── VerifyInputError (ValueError)       cli/verify.py

This module imports nothing, so every layer (the pure core too) may use it.

Example::

    >>> try:
    ...     raise ConfigError("launcher.retract_ms must be a whole number of milliseconds")
    ... except UnolauncherError as exc:
    ...     print(type(exc).__name__, isinstance(exc, ValueError), exc)
    ConfigError True launcher.retract_ms must be a whole number of milliseconds
"""

from __future__ import annotations


class UnolauncherError(Exception):
    """Base of every exception unolauncher raises on purpose (bad input, a setting, a device that is not there)."""


class ConfigError(UnolauncherError, ValueError):
    """A configuration file, table or command-line option that cannot work, worded as one sentence that names the key
    or the option."""
