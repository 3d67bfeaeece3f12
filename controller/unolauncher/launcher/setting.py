"""Reading one launcher setting from either a mapping (a TOML table, a test's dict) or a configuration object.

Its own module so that the factory and the backends it builds (``backends/serial/settings.py``) can share it without
importing each other.

Example::

    >>> setting({"retract_ms": 120}, "retract_ms"), setting({"retract_ms": None}, "retract_ms", 80)
    (120, 80)
    >>> setting(None, "retract_ms", 80)
    80
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def setting(settings: Any, key: str, default: Any = None) -> Any:
    """``settings[key]`` or ``settings.key`` (mapping or config object), ``default`` when absent or ``None``."""
    if settings is None:
        return default
    value = settings.get(key) if isinstance(settings, Mapping) else getattr(settings, key, None)
    return default if value is None else value
