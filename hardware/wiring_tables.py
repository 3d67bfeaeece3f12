"""The README's generated tables (pins, drivers, bill of materials, stall current) and the markers they live
between. Standard library only, so ``make_wiring.py --tables`` works on a fresh Pi."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wiring_data import (
    CELLS_V,
    DRIVER_LIMITS,
    DRIVERS,
    MOTOR_OHMS,
    PATHS,
    README,
    ROLES,
    SUPPLY,
    SUPPLY_USE,
    gpio_name,
    host_pin,
    pin_text,
    supplies,
)


def pins_table(path: str, pins: dict[str, int]) -> str:
    head = "Header pin" if path == "pi" else "Pico pin"
    number = "BCM GPIO" if path == "pi" else "GP"
    rows = [f"| Part | pins.toml key | {number} | {head} | Direction | Connects to |", "|---|---|---|---|---|---|"]
    for role, gpio in pins.items():
        part, direction, _, target = ROLES[role]
        number, pin = gpio_name(path, gpio), host_pin(path, gpio)
        rows.append(f"| {part} | `{role}` | {number} | {pin} | {direction} | {target} |")
    for net, (label, pin) in SUPPLY[path].items():
        rows.append(f"| Supply {label} | – | – | {pin} | power | {SUPPLY_USE[net]} |")
    return "\n".join(rows)


def driver_table(driver: str, maps: dict[str, dict[str, int]]) -> str:
    _, rows = DRIVERS[driver]
    out = ["| Driver pin | Raspberry Pi | Pico | Why |", "|---|---|---|---|"]
    for pin, target, why in rows:
        cells = []
        for path in PATHS:
            values = {role: pin_text(path, gpio) for role, gpio in maps[path].items()}
            values.update({net: f"{label} (pin {num})" for net, (label, num) in SUPPLY[path].items()})
            cells.append(target.format(**values))
        out.append(f"| {pin} | {cells[0]} | {cells[1]} | {why} |")
    return "\n".join(out)


def bom_table(parts: list[dict[str, Any]]) -> str:
    rows = ["| Ref | Qty | Part | Value / rating | Order | Where | Path | Notes |", "|---|---|---|---|---|---|---|---|"]
    for part in parts:
        paths = " + ".join("Pi" if p == "pi" else "Pico" for p in part["paths"])
        rows.append(
            f"| {', '.join(part['refs'])} | {len(part['refs'])} | {part['part']} | {part['value']} "
            f"| {part['order']} | {part['place']} | {paths} | {part['notes']} |"
        )
    rows += ["", "Also order:", "", "| Item | Quantity | For |", "|---|---|---|"]
    rows += [f"| {s['item']} | {s['qty']} | {s['use']} |" for s in supplies()]
    return "\n".join(rows)


def stall_verdict(amps: float, continuous: float, peak: float, parallel: float) -> str:
    if amps <= continuous:
        return "fine"
    if amps <= parallel:
        return "parallel the two channels"
    if amps <= peak:
        return "only with both channels in parallel and short runs: a bigger driver is better"
    return "too weak: use a bigger driver"


def parallel_table() -> str:
    """The jumpers at U1 that put both channels in parallel, per driver, from the netlist's parallel variant."""
    import netlist  # beside this module; standard library only

    problems = netlist.parallel_problems(netlist.paralleled(netlist.NETS))
    if problems:
        raise SystemExit("the parallel wiring joins outputs whose inputs differ: " + "; ".join(problems))
    rows = ["| Driver | Join at the module (B pin to A pin) |", "|---|---|"]
    for driver, title in (("tb6612", "TB6612FNG"), ("drv8833", "DRV8833")):
        joins = ", ".join(f"{b} to {a}" for b, a in netlist.parallel_joins(driver))
        rows.append(f"| {title} | {joins} |")
    return "\n".join(rows)


def stall_table() -> str:
    """Stall current (the cells' voltage over the motor's resistance, measured in BUILD.md §4) against each
    driver: what a motor held still draws, and what reversing a spinning one can briefly reach twice of."""
    names = " | ".join(name for name, *_ in DRIVER_LIMITS)
    rows = [
        f"| Motor resistance | Stall current at {CELLS_V:g} V | {names} |",
        "|---|---|" + "---|" * len(DRIVER_LIMITS),
    ]
    for ohms in MOTOR_OHMS:
        amps = CELLS_V / ohms
        verdicts = " | ".join(stall_verdict(amps, *limits) for _, *limits in DRIVER_LIMITS)
        rows.append(f"| {ohms:g} Ω | {amps:.2f} A | {verdicts} |")
    return "\n".join(rows)


def blocks(maps: dict[str, dict[str, int]], parts: list[dict[str, Any]]) -> dict[str, str]:
    return {
        "pi-pins": pins_table("pi", maps["pi"]),
        "pico-pins": pins_table("pico", maps["pico"]),
        "tb6612": driver_table("tb6612", maps),
        "drv8833": driver_table("drv8833", maps),
        "bom": bom_table(parts),
        "stall": stall_table(),
        "parallel": parallel_table(),
    }


def start_marker(name: str, source: str = "pins.toml and parts.toml") -> str:
    return f"<!-- generated: {name} (make_wiring.py from {source}; do not edit) -->"


def end_marker(name: str) -> str:
    return f"<!-- end: {name} -->"


def readme_with_tables(
    text: str, tables: dict[str, str], source: str = "pins.toml and parts.toml", target: Path = README
) -> str:
    for name, table in tables.items():
        start, end = start_marker(name, source), end_marker(name)
        if start not in text or end not in text:
            raise SystemExit(f"{target} lacks the markers of the generated table {name!r}")
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{start}\n{table}\n{end}{tail}"
    return text
