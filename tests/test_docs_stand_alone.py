"""The repository stands alone: its docs carry the rules digest and the protocol contract it implements.

A person who clones the project must be able to read the rules (with the IDs the tests cite) and the table contract
without anything outside the repository. These tests fail when a file points outside the checkout again, or when a
rule ID of the digest has no test that names it, or a test names an ID the digest does not have.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# Tests cite a rule as "ATK-18" in text or as "atk18" in their names.
CITATION = re.compile(r"(?i)(?<![a-z])(atk|mk)[-_]?(\d\d)(?!\d)")
# A path that leaves the checkout for the sibling folder the project's authors keep their notes in.
OUTSIDE = re.compile(r"\.\./shared\b|/work/shared\b")


def tracked_text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = [ROOT / name for name in out.decode().split("\0") if name]
    text_suffixes = {".md", ".py", ".js", ".html", ".css", ".toml", ".json", ".txt", ".service", ".conf", ".sh", ""}
    return [f for f in files if f.suffix in text_suffixes and f.is_file()]


def test_no_file_points_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in tracked_text_files()
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert offenders == [], f"these lines point outside the repository: {offenders}"


def digest_rule_ids() -> set[str]:
    table_rows = [line for line in (DOCS / "rules-digest.md").read_text().splitlines() if line.startswith("| ")]
    return {m.group(1) for row in table_rows if (m := re.match(r"\| ((?:ATK|MK)-\d\d) \|", row))}


def test_the_digest_has_every_rule_id_in_order() -> None:
    ids = digest_rule_ids()
    assert {f"ATK-{n:02d}" for n in range(1, 23)} <= ids
    assert {f"MK-{n:02d}" for n in range(1, 19)} <= ids


def test_every_digest_rule_is_cited_by_a_test_and_every_cited_rule_exists() -> None:
    cited: set[str] = set()
    for path in (ROOT / "tests" / "rules").rglob("*.py"):
        cited |= {f"{kind.upper()}-{number}" for kind, number in CITATION.findall(path.read_text())}
    ids = digest_rule_ids()
    assert ids - cited == set(), f"rules of docs/rules-digest.md no rule test names: {sorted(ids - cited)}"
    assert cited - ids == set(), f"rule tests name IDs docs/rules-digest.md does not have: {sorted(cited - ids)}"


def test_the_docs_link_the_digest_and_the_contract() -> None:
    assert (DOCS / "protocol-contract.md").is_file()
    assert "rules-digest.md" in (DOCS / "rules.md").read_text()
    assert "protocol-contract.md" in (DOCS / "protocol.md").read_text()
    assert "protocol-contract.md" in (DOCS / "protocol-mqtt.md").read_text()
