"""The strict codec: what it writes it reads back, and it refuses everything Python's json module lets through that
SQLite 3.40, browsers or the referee cannot take (NaN, Infinity, 1e999, huge integers, deep nesting, lone
surrogates)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unolauncher import strict_json
from unolauncher.strict_json import INT_MAX, INT_MIN, MAX_DEPTH, StrictJSONError

scalars = (
    st.none()
    | st.booleans()
    | st.integers(INT_MIN, INT_MAX)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@given(json_values)
def test_what_is_written_reads_back_the_same_and_sqlite_agrees(value: Any) -> None:
    text = strict_json.dumps(value)
    assert strict_json.loads(text) == value
    assert strict_json.loads(text.encode()) == value
    # SQLite's own JSON parser (3.40 here, as on Raspberry Pi OS bookworm) accepts every text the codec writes.
    with sqlite3.connect(":memory:") as db:
        assert db.execute("SELECT json_valid(?)", (text,)).fetchone()[0] == 1


NOT_STRICT = [
    ('{"x": NaN}', "NaN"),
    ('{"x": Infinity}', "Infinity"),
    ('{"x": -Infinity}', "-Infinity"),
    ('{"x": 1e999}', "too large"),
    ('{"x": -1e999}', "too large"),
    ('{"x": 9223372036854775808}', "out of range"),
    ('{"x": -9223372036854775809}', "out of range"),
    ('{"x": ' + "9" * 5000 + "}", "out of range"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested"),
    ("[" * 50_000, "nested"),
    ('{"x": "\\ud800"}', "surrogate"),
    ('{"\\udfff": 1}', "surrogate"),
    ("{", "not valid JSON"),
]


@pytest.mark.parametrize(("text", "said"), NOT_STRICT, ids=[t[:24] for t, _ in NOT_STRICT])
def test_text_that_is_not_strict_json_is_refused_in_one_sentence(text: str, said: str) -> None:
    with pytest.raises(StrictJSONError) as info:
        strict_json.loads(text)
    assert said in str(info.value) and "\n" not in str(info.value)


def test_python_json_would_have_taken_those() -> None:
    """Why the codec exists: the standard library parses and writes non-JSON without a word."""
    assert json.loads('{"x": NaN}')["x"] != json.loads('{"x": NaN}')["x"]
    assert json.dumps({"x": float("inf")}) == '{"x": Infinity}'


@pytest.mark.parametrize(
    "value",
    [{"x": float("nan")}, {"x": float("inf")}, [2**63], {"x": {1, 2}}, {1: "a"}, "\ud800", b"bytes"],
    ids=["nan", "inf", "2**63", "set", "int key", "surrogate", "bytes"],
)
def test_values_that_could_not_be_read_back_are_refused_when_written(value: Any) -> None:
    with pytest.raises(StrictJSONError):
        strict_json.dumps(value)


def test_depth_limit_is_exact_and_iterative() -> None:
    ok: Any = []
    for _ in range(MAX_DEPTH - 1):
        ok = [ok]
    assert strict_json.loads(strict_json.dumps(ok)) == ok
    deep: Any = []
    for _ in range(200_000):  # far beyond the recursion limit: checked without recursion
        deep = [deep]
    with pytest.raises(StrictJSONError, match="nested"):
        strict_json.dumps(deep)


def test_size_limit_and_utf8() -> None:
    assert strict_json.loads(b'{"a": 1}', max_bytes=8) == {"a": 1}
    with pytest.raises(StrictJSONError, match="limit is 7"):
        strict_json.loads(b'{"a": 1}', max_bytes=7)
    with pytest.raises(StrictJSONError, match="UTF-8"):
        strict_json.loads(b'{"a": "\xff"}')
