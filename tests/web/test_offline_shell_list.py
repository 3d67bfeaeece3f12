"""The offline app shell (``sw.js``) keeps every script the dashboard loads, so a reload offline shows the app.

The shell's list is written by hand; a module added to the page without a line there would load online and be
missing offline (the page would hang on its import). This reads what the page loads — ``index.html``'s scripts and
module preloads and, from ``main.js``, every static ``import`` followed through the modules — and checks the list.
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "controller" / "unolauncher" / "web" / "static"
IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["'](\.{1,2}/[^"']+)["']""", re.M | re.S)
PAGE_FILE = re.compile(r"""(?:src|href)="([^":]+\.(?:js|css|webmanifest))\"""")


def shell_list() -> set[str]:
    text = (STATIC / "sw.js").read_text()
    body = text[text.index("const SHELL = [") : text.index("];")]
    return set(re.findall(r'"([^"]+)"', body))


def page_files() -> set[str]:
    """Every file index.html names, and every module reachable by static import from the page's modules."""
    found = set(PAGE_FILE.findall((STATIC / "index.html").read_text()))
    todo = [name for name in found if name.endswith(".js")]
    while todo:
        name = todo.pop()
        path = STATIC / name
        for spec in IMPORT.findall(path.read_text()):
            target = (path.parent / spec).resolve().relative_to(STATIC.resolve()).as_posix()
            if target not in found:
                found.add(target)
                todo.append(target)
    return found


def test_every_file_the_page_loads_is_in_the_offline_shell() -> None:
    missing = page_files() - shell_list()
    assert missing == set(), f"sw.js SHELL lacks what the page loads: {sorted(missing)}"


def test_the_shell_names_only_files_that_exist() -> None:
    absent = {name for name in shell_list() if name not in ("./",) and not (STATIC / name).is_file()}
    assert absent - {"config.json"} == set(), f"sw.js SHELL names files that do not exist: {sorted(absent)}"
