"""The one JSON codec of every boundary: MQTT commands, ``replay``, the journal (written and read back), replies.

Strict in both directions, so whatever the daemon writes it can read again on the next start, on any SQLite and
in any browser:

- no ``NaN``, ``Infinity`` or ``-Infinity`` (Python's ``json`` accepts and writes them; they are not JSON, and
  SQLite 3.40's JSON functions and the dashboard's ``JSON.parse`` refuse them), no number that overflows to
  infinity (``1e999``);
- integers within SQLite's 64-bit range (:data:`INT_MIN` .. :data:`INT_MAX`), so a number never overflows the
  database or a ``LIMIT`` (a ``resend`` from ``2**63`` would raise ``OverflowError``);
- nesting at most :data:`MAX_DEPTH` deep (a command needs 4; deeper fields would make ``undo`` and ``replay`` fail
  with ``RecursionError``);
- strings that are valid Unicode (a lone surrogate such as ``"\\ud800"`` parses but cannot be stored as UTF-8);
- an optional size limit in bytes when parsing.

Pure: no I/O. Errors are :class:`StrictJSONError` (a ``ValueError``) with one sentence naming the problem.

Example::

    >>> loads('{"type": "hit", "cards": 2}')
    {'type': 'hit', 'cards': 2}
    >>> loads('{"x": NaN}')
    Traceback (most recent call last):
    ...
    unolauncher.strict_json.StrictJSONError: NaN is not allowed in JSON.
    >>> dumps({"b": 1, "a": [1.5, None]})
    '{"a":[1.5,null],"b":1}'
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn

from unolauncher.errors import UnolauncherError

MAX_DEPTH = 32  # a command needs 4 levels (new_game.deal.hands.<name>), a referee snapshot about 8
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


class StrictJSONError(UnolauncherError, ValueError):
    """The text is not strict JSON, or a value cannot be written as strict JSON; the message is one sentence and
    ``reason`` the same without the sentence around it (``Expecting value``, ``NaN is not allowed in JSON``)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message.rstrip(".")


def _fail(message: str, reason: str | None = None) -> NoReturn:
    raise StrictJSONError(message, reason)


def _no_constant(name: str) -> NoReturn:
    _fail(f"{name} is not allowed in JSON.")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _fail(f"The number {text[:20]} is too large.")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 20:  # int64 has at most 19 digits and a sign: refuse before converting a long digit string
        _fail(f"The number {text[:20]}... is out of range.")
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        _fail(f"The number {text} is out of range.")
    return value


_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded_int)


def loads(data: bytes | str, max_bytes: int | None = None) -> Any:
    """Parse strict JSON (see the module docstring); ``max_bytes`` bounds the input's size in bytes."""
    if max_bytes is not None and len(data) > max_bytes:  # a str is at least len() bytes as UTF-8
        _fail(f"The JSON text is {len(data)} bytes; the limit is {max_bytes}.")
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            _fail("The JSON text is not UTF-8.")
    else:
        text = data
    try:
        value = _DECODER.decode(text)
    except StrictJSONError:
        raise
    except RecursionError:
        _fail(f"The JSON is nested more than {MAX_DEPTH} levels deep.")
    except ValueError as exc:  # json.JSONDecodeError included
        reason = (exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc))[:80]
        _fail(f"The text is not valid JSON ({reason}).", reason)
    check(value)
    return value


def dumps(value: Any, *, sort_keys: bool = True, ensure_ascii: bool = False) -> str:
    """Compact strict JSON text; :class:`StrictJSONError` if ``value`` is not strict JSON data."""
    check(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=sort_keys, ensure_ascii=ensure_ascii, allow_nan=False)


def check(value: Any) -> None:
    """Raise :class:`StrictJSONError` unless ``value`` is strict JSON data: dicts with string keys, lists, strings,
    bounded integers, finite floats, booleans and ``None``, nested at most :data:`MAX_DEPTH` deep.

    Iterative (a value nested a million deep is refused, not a ``RecursionError``).
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if _SURROGATE.search(item):
                _fail("A string holds a lone surrogate, which is not valid Unicode.")
        elif kind is int:
            if not INT_MIN <= item <= INT_MAX:
                _fail("An integer is out of range (at most 19 digits).")
        elif kind is dict or kind is list:
            if depth > MAX_DEPTH:
                _fail(f"The JSON is nested more than {MAX_DEPTH} levels deep.")
            if kind is dict:
                for key, child in item.items():
                    if type(key) is not str:
                        _fail(f"An object key must be a string, not {type(key).__name__}.")
                    if _SURROGATE.search(key):
                        _fail("A key holds a lone surrogate, which is not valid Unicode.")
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        elif kind is float:
            if not math.isfinite(item):
                _fail("NaN and infinite numbers are not allowed in JSON.")
        elif item is not None and kind is not bool:
            _fail(f"A {kind.__name__} cannot be written as JSON.")
