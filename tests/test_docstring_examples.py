"""Every docstring example in the package either runs (a doctest: ``python3 dev.py test`` collects the package with
``--doctest-modules``) or says why it cannot (``Example (not a doctest: ...)::``, or a shell session with ``$``), so
no example is silently wrong."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import unolauncher

PACKAGE = Path(unolauncher.__file__).parent
# Modules being split or rewritten by other work right now (issue #15's later part, #11, #12, #14, #16): their
# examples are checked once those land.
NOT_YET = {
    "launcher/press.py",
    "bus/broker.py",
    "bus/discovery.py",
    "bus/event_types.py",
    "bus/mqtt.py",
    "bus/topics.py",
    "web/server.py",
}
HEADING = re.compile(r"^(?P<indent>[ \t]*)Example(?P<note>[^\n]*)::[ \t]*$", re.MULTILINE)


def unmarked_examples(source: str) -> list[str]:
    """The headings of the examples in ``source``'s docstrings that are neither doctests nor marked."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node, clean=True)
        for match in HEADING.finditer(doc or ""):
            block = doc[match.end() :].lstrip("\n") if doc else ""
            first = block.strip().splitlines()[0] if block.strip() else ""
            if "not a doctest" in match["note"] or first.startswith((">>>", "$ ")):
                continue
            found.append(f"{getattr(node, 'name', '<module>')}: Example{match['note']}:: {first}")
    return found


def test_every_example_runs_or_says_why_not() -> None:
    problems = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name not in NOT_YET and (found := unmarked_examples(path.read_text(encoding="utf-8"))):
            problems[name] = found
    assert problems == {}


def test_the_check_finds_an_unmarked_example() -> None:
    source = (
        '"""Doc.\n\nExample::\n\n    run_it()\n"""\n\n\n'
        'def f() -> None:\n    """Example::\n\n        >>> 1\n        1\n    """\n\n\n'
        'def g() -> None:\n    """Example (not a doctest: needs a broker)::\n\n        connect()\n    """\n'
    )
    assert unmarked_examples(source) == ["<module>: Example:: run_it()"]


def test_the_test_command_collects_the_package_doctests() -> None:
    root = PACKAGE.parent.parent
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert '"controller/unolauncher"' in pyproject and "--doctest-modules" in pyproject
