#!/usr/bin/env python3
"""Generate the hardware documentation from its one source of truth: ``pins.toml`` (pin maps) and ``parts.toml``
(the parts list).

Generated: the tables between ``<!-- generated: NAME -->`` markers in ``hardware/README.md`` (Pi pins, Pico pins,
one table per driver, the bill of materials) and ``hardware/BUILD.md`` (the symptom table, from ``pictures.py``),
the schematics ``schematic-pi.svg`` / ``schematic-pico.svg`` (schemdraw), the harness drawings ``harness-pi.svg``
/ ``harness-pico.svg`` with their WireViz sources ``harness-*.yml`` (WireViz, which needs Graphviz's ``dot``), the
stripboard layout and the pictures ``orientation.svg`` / ``inside.svg``.

    python hardware/make_wiring.py           # rewrite everything
    python hardware/make_wiring.py --check   # exit 1 if anything is out of date (the test suite does this too)
    python hardware/make_wiring.py --tables  # only the README tables: standard library only, works on a fresh Pi

The work is done by the modules beside this script: ``wiring_data`` (pin numbers, roles, drivers, the two TOML
files), ``wiring_tables`` (the README tables), ``wiring_schematic`` (schemdraw) and ``wiring_harness``
(WireViz); ``stripboard.py``, ``pictures.py`` and ``netlist.py`` draw and check the rest.

The drawings need ``pip install schemdraw==0.23 wireviz==0.4.1`` (the project's test extras) and ``dot``
(Debian package ``graphviz``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the wiring_* modules beside this script (tests and netlist.py load it by path)
    sys.path.insert(0, str(HERE))

import wiring_data  # noqa: E402
from wiring_data import (  # noqa: E402
    MOTOR_OHMS,
    PATHS,
    PICO_PIN,
    ROLES,
    SUPPLY,
    gpio_name,
    host_pin,
    refs_for,
    supplies,
)
from wiring_harness import (  # noqa: E402
    DRV8833_VM_WARNING,
    HARNESS_DRIVERS,
    harness_name,
    harness_source,
    harness_svg,
    harness_wires,
    harness_yaml,
    on_board,
    svg_texts,
)
from wiring_schematic import schematic, schematic_drawing  # noqa: E402
from wiring_tables import blocks, readme_with_tables, stall_verdict  # noqa: E402

# What the tests and hardware/netlist.py use of the generator, through this one script.
__all__ = [
    "DRV8833_VM_WARNING",
    "HARNESS_DRIVERS",
    "MOTOR_OHMS",
    "PATHS",
    "PICO_PIN",
    "ROLES",
    "SUPPLY",
    "blocks",
    "build_guide",
    "gpio_name",
    "harness_name",
    "harness_source",
    "harness_svg",
    "harness_wires",
    "harness_yaml",
    "host_pin",
    "load",
    "main",
    "on_board",
    "outputs",
    "readme_with_tables",
    "refs_for",
    "schematic",
    "schematic_drawing",
    "sibling",
    "stall_verdict",
    "stripboard_svg",
    "supplies",
    "svg_texts",
]
PINS_FILE = wiring_data.PINS_FILE
PARTS_FILE = wiring_data.PARTS_FILE
README = wiring_data.README
BUILD = HERE / "BUILD.md"


# ---- main --------------------------------------------------------------------------------------------------------


def load() -> tuple[dict[str, dict[str, int]], list[dict[str, Any]]]:
    """:func:`wiring_data.load` of this module's ``PINS_FILE`` and ``PARTS_FILE`` (a test may point them elsewhere)."""
    return wiring_data.load(PINS_FILE, PARTS_FILE)


def outputs(tables_only: bool = False) -> dict[Path, Callable[[], bytes]]:
    """Every generated file and how to make its content (lazily: drawings need schemdraw/WireViz)."""
    maps, parts = load()
    readme = README.read_text(encoding="utf-8")
    result: dict[Path, Callable[[], bytes]] = {
        README: lambda: readme_with_tables(readme, blocks(maps, parts)).encode(),
    }
    if tables_only:
        return result
    result[HERE / "stripboard-p1.svg"] = lambda: stripboard_svg(maps["pi"])
    result[HERE / "orientation.svg"] = lambda: bytes(sibling("pictures").orientation_svg())
    result[HERE / "inside.svg"] = lambda: bytes(sibling("pictures").inside_svg())
    result[BUILD] = lambda: build_guide(parts)
    for path in PATHS:
        result[HERE / f"schematic-{path}.svg"] = lambda path=path: schematic(path, maps[path])[0]  # type: ignore[misc]
        for driver in HARNESS_DRIVERS:
            stem = HERE / harness_name(path, driver)
            result[stem.with_suffix(".yml")] = lambda path=path, driver=driver: harness_yaml(  # type: ignore[misc]
                path, maps[path], driver
            ).encode()
            result[stem.with_suffix(".svg")] = lambda path=path, driver=driver: harness_svg(  # type: ignore[misc]
                harness_yaml(path, maps[path], driver)
            )
    return result


def sibling(name: str) -> Any:
    """``hardware/<name>.py`` (a script beside this one) loaded from its path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_guide(parts: list[dict[str, Any]]) -> bytes:
    """BUILD.md with its symptom table from ``pictures.SYMPTOMS`` (which must name only parts of the list)."""
    refs = {ref for part in parts for ref in part["refs"]}
    table = sibling("pictures").symptom_table(refs)
    text = BUILD.read_text(encoding="utf-8")
    return readme_with_tables(text, {"symptoms": table}, "pictures.py and parts.toml", BUILD).encode()


def stripboard_svg(pins: dict[str, int]) -> bytes:
    board = sibling("stripboard")
    layout = board.layout(list(pins))
    problems = board.problems(layout, sibling("netlist").NETS)
    if problems:
        raise SystemExit("stripboard layout disagrees with the netlist: " + "; ".join(problems))
    return bytes(
        board.svg(
            layout,
            "P1 interface board on stripboard (generated by hardware/make_wiring.py "
            "from hardware/stripboard.py and the netlist)",
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that every generated file is current")
    parser.add_argument("--tables", action="store_true", help="only the README tables (standard library only)")
    args = parser.parse_args(argv)
    stale = []
    for target, make in outputs(args.tables).items():
        new = make()
        old = target.read_bytes() if target.exists() else b""
        if args.check:
            if target.suffix == ".svg" and target.name.startswith("harness-"):
                # Graphviz versions differ in layout details: the harness drawing is checked by what it says.
                if not old or svg_texts(old) != svg_texts(new):
                    stale.append(target.name)
            elif old != new:
                stale.append(target.name)
        elif old != new:
            target.write_bytes(new)
    if stale:
        print(f"out of date: {', '.join(stale)} (run python hardware/make_wiring.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
