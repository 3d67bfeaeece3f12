"""Every reason the referee gives for revealing a launcher secret early has words in every language of the page (a
Belarusian feed once read "Сакрэт катапульты раскрыты (replaced)")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .test_languages import LANGUAGES, STATIC

RULES = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "rules"


def reveal_reasons() -> set[str]:
    """The first argument of every ``self._reveal("...")`` call in the rules, and free play's own reason."""
    reasons = {"free_play_ended"}  # turns._reveal names it itself for an epoch of free play
    for module in RULES.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "_reveal"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                reasons.add(node.args[0].value)
    return reasons


def test_every_reveal_reason_has_words_in_every_language() -> None:
    reasons = reveal_reasons()
    assert {"replaced", "undone"} <= reasons  # the walk found the calls
    for code in LANGUAGES:
        keys = set(re.findall(r'^\s*"([^"]+)":', (STATIC / "js" / "lang" / f"{code}.js").read_text(), flags=re.M))
        missing = sorted(r for r in reasons if f"ev.reveal.{r}" not in keys)
        assert not missing, f"{code} has no words for ev.reveal.{missing}"
