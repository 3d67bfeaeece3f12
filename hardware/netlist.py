"""The launcher's netlist, and a connectivity check of the generated drawings against it.

:data:`NETS` says which part terminals each net joins (``"U1.AO2"``, ``"R3.1"``; two-terminal parts: ``1`` is
where the symbol starts, ``2`` where it ends; ICs and transistors by pin name). :func:`schematic_problems` reads
the coordinates of a schemdraw drawing (``make_wiring.schematic_drawing``): wires join the points they end on, a
point on a wire touches it, net flags with the same name are one net. Every terminal of the netlist must land in
its net and in no other; a wire that stops short of a pin (the AO2 offset of issue 28) leaves the pin in a net of
its own and is reported. :func:`harness_problems` checks that every wire of a harness joins two ends of one net.

    python hardware/netlist.py     # check both schematics and every harness; exit 1 on a problem

Example::

    problems = schematic_problems(drawing, "pi", pins)  # [] when the drawing is wired as NETS says
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

# Nets that leave a block carry a flag; the others are named here only. A1's pins are added per path (role ->
# the role's net, supplies by name).
NETS: dict[str, set[str]] = {
    "GND": {
        "BT1.1",
        "R1.2",
        "C1.2",
        "C2.2",
        "U1.GND",
        "U1.PWMB",
        "U1.BIN1",
        "U1.BIN2",
        "R2.2",
        "R3.2",
        "R4.2",
        "R5.2",
        "S1.2",
        "S2B.2",
        "S3.2",
        "C4.2",
        "C5.2",
        "C6.2",
        "D1.2",
        "Q3.emitter",
        "D2.2",
        "Q2.emitter",
    },
    "BAT+": {"BT1.2", "SW1.1"},
    "SW_OUT": {"SW1.2", "F1.1"},
    "F1_OUT": {"F1.2", "Q1.drain"},
    "Q1_GATE": {"Q1.gate", "R1.1"},
    "VM": {"Q1.source", "C1.1", "C2.1", "U1.VM"},
    "3V3": {"U1.VCC", "S2A.1", "R6.1", "R7.1", "R8.1", "R13.1"},
    "5V": {"R12.1", "BZ1.2", "D3.2"},
    "STBY": {"U1.STBY", "S2A.2", "R5.1"},
    "MOTOR_PWM": {"U1.PWMA", "R2.1"},
    "MOTOR_FWD": {"U1.AIN1", "R3.1"},
    "MOTOR_REV": {"U1.AIN2", "R4.1"},
    "MOTOR_A": {"U1.AO1", "M1.1", "C3.1"},
    "MOTOR_B": {"U1.AO2", "M1.2", "C3.2"},
    "BUTTON_RC": {"R6.2", "S1.1", "C4.1", "R9.1"},
    "LID_RC": {"R7.2", "S2B.1", "C5.1", "R10.1"},
    "UNO_RC": {"R8.2", "S3.1", "C6.1", "R11.1"},
    "BUTTON": {"R9.2"},
    "LID": {"R10.2"},
    "UNO": {"R11.2"},
    "SENSOR": {"R13.2", "Q3.collector"},
    "D1_A": {"R12.2", "D1.1"},
    "LED": {"R14.1"},
    "D2_A": {"R14.2", "D2.1"},
    "BUZZER": {"R15.1"},
    "Q2_BASE": {"R15.2", "Q2.base"},
    "BZ_LOW": {"Q2.collector", "BZ1.1", "D3.1"},
}
# The hardware dead-man (Pi path, when pins.toml fits ``heartbeat``): the lid switch feeds STBY_IN, Q5 passes it
# on to STBY while the charge pump (C7, D4, D5, C8, R16) holds Q4 on.
DEADMAN_NETS: dict[str, set[str]] = {
    "HEARTBEAT": {"C7.1"},
    "DM_PUMP": {"C7.2", "D4.2", "D5.1"},
    "DM_HOLD": {"D5.2", "C8.1", "R16.1", "Q4.gate"},
    "DM_GATE": {"Q4.drain", "R17.1", "Q5.gate"},
    "STBY_IN": {"S2A.2", "R17.2", "Q5.source"},
    "GND": {"C8.2", "R16.2", "Q4.source", "D4.1"},
}
# Both channels in parallel, for a motor whose stall current is above one channel's (README.md, "Stall current"):
# channel B's inputs leave GND for channel A's nets at U1, its outputs join the motor's. (U1's TB6612FNG names; a
# DRV8833 module's are in PARALLEL_NAMES.)
PARALLEL_MOVES: dict[str, str] = {
    "U1.PWMB": "MOTOR_PWM",
    "U1.BIN1": "MOTOR_FWD",
    "U1.BIN2": "MOTOR_REV",
    "U1.BO1": "MOTOR_A",
    "U1.BO2": "MOTOR_B",
}
PARALLEL_NAMES: dict[str, dict[str, str]] = {
    "tb6612": {},
    "drv8833": {"PWMA": "", "PWMB": "", "AO1": "AOUT1", "AO2": "AOUT2", "BO1": "BOUT1", "BO2": "BOUT2"},
}
# Each output of channel B with its input of channel A's twin: outputs may be joined only where the inputs are.
_TWINS = (
    ("U1.BO1", "U1.AO1", ("U1.BIN1", "U1.AIN1"), ("U1.PWMB", "U1.PWMA")),
    ("U1.BO2", "U1.AO2", ("U1.BIN2", "U1.AIN2"), ("U1.PWMB", "U1.PWMA")),
)


def paralleled(nets: dict[str, set[str]]) -> dict[str, set[str]]:
    """``nets`` with both channels in parallel (:data:`PARALLEL_MOVES`)."""
    out = {name: terms - set(PARALLEL_MOVES) for name, terms in nets.items()}
    for term, net in PARALLEL_MOVES.items():
        out[net] = out[net] | {term}
    return out


def parallel_problems(nets: dict[str, set[str]]) -> list[str]:
    """Outputs of the two channels joined while their inputs are driven separately: the two halves would fight
    (the datasheets' parallel modes tie the inputs together)."""
    net_of = {term: name for name, terms in nets.items() for term in terms}
    problems = []
    for b_out, a_out, *inputs in _TWINS:
        if b_out in net_of and net_of.get(b_out) == net_of.get(a_out):
            for b_in, a_in in inputs:
                if net_of.get(b_in) != net_of.get(a_in):
                    problems.append(
                        f"{b_out} joins {a_out} but {b_in} is on {net_of.get(b_in)}, {a_in} on {net_of.get(a_in)}"
                    )
    return problems


def parallel_joins(driver: str) -> list[tuple[str, str]]:
    """The jumpers at U1 that parallel the channels, in the driver's own pin names: (B pin, A pin it joins)."""
    names = PARALLEL_NAMES[driver]
    twin = {term: next(t for t in NETS[net] if t.startswith("U1.")) for term, net in PARALLEL_MOVES.items()}
    joins = []
    for b, a in twin.items():
        b_name, a_name = (names.get(x.removeprefix("U1."), x.removeprefix("U1.")) for x in (b, a))
        if b_name and a_name:
            joins.append((b_name, a_name))
    return joins


SUPPLY_NETS = {"3V3": "3V3", "5V": "5V", "GND": "GND", "GND2": "GND"}
TRANSISTOR_PINS = ("drain", "source", "gate", "collector", "emitter", "base")


def expected(roles: dict[str, str], pins: Iterable[str]) -> dict[str, set[str]]:
    """:data:`NETS` with the host's pins: ``roles`` maps a pin role to its net (make_wiring.ROLES' net names)."""
    nets = {name: set(terms) for name, terms in NETS.items()}
    if "heartbeat" in pins:
        for name, terms in DEADMAN_NETS.items():
            nets[name] = nets.get(name, set()) | terms
        nets["STBY"] = (nets["STBY"] - {"S2A.2"}) | {"Q5.drain"}
    for net, name in SUPPLY_NETS.items():
        nets[name].add(f"A1.{net}")
    for role in pins:
        nets[roles[role]].add(f"A1.{role}")
    return nets


def _key(point: Any) -> tuple[float, float]:
    return round(float(point[0]), 2), round(float(point[1]), 2)


def _ref(element: Any) -> str | None:
    labels = getattr(element, "_userlabels", [])
    if not labels:
        return None
    text = str(labels[0].label)
    ref, _, rest = text.partition("\n")
    if ref == "S2" and rest[:2] in ("A:", "B:"):
        return "S2" + rest[0]  # the two poles of the lid switch
    return ref


def drawing_terminals(
    drawing: Any,
) -> tuple[
    dict[str, tuple[float, float]],
    dict[tuple[float, float], str],
    list[tuple[tuple[float, float], tuple[float, float]]],
]:
    """(terminal -> point, point -> net name of a flag/ground/supply there, wire segments) of a drawing."""
    terminals: dict[str, tuple[float, float]] = {}
    named: dict[tuple[float, float], str] = {}
    wires: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for element in drawing.elements:
        kind = type(element).__name__
        anchors = element.absanchors
        if kind == "Line":
            wires.append((_key(anchors["start"]), _key(anchors["end"])))
        elif kind == "Tag":
            named[_key(anchors["start"])] = str(element._userlabels[0].label)
        elif kind == "Ground":
            named[_key(anchors["start"])] = "GND"
        elif kind == "Vdd":
            named[_key(anchors["start"])] = str(element._userlabels[0].label)
        elif kind == "Ic":
            ref = _ref(element)
            for pin in (pin for side in element.pins.values() for pin in side):
                name = pin.anchorname or pin.name
                terminals[f"{ref}.{name}"] = _key(anchors[name])
        elif kind not in ("Dot", "Label"):
            ref = _ref(element)
            if ref is None:
                continue
            if any(pin in anchors for pin in TRANSISTOR_PINS):
                for pin in TRANSISTOR_PINS:
                    if pin in anchors and not (kind == "NpnPhoto" and pin == "base"):  # light is its base
                        terminals[f"{ref}.{pin}"] = _key(anchors[pin])
            else:
                terminals[f"{ref}.1"] = _key(anchors["start"])
                terminals[f"{ref}.2"] = _key(anchors["end"])
    return terminals, named, wires


def _on(point: tuple[float, float], wire: tuple[tuple[float, float], tuple[float, float]]) -> bool:
    (x1, y1), (x2, y2) = wire
    x, y = point
    if min(x1, x2) - 0.01 <= x <= max(x1, x2) + 0.01 and min(y1, y2) - 0.01 <= y <= max(y1, y2) + 0.01:
        return abs((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)) < 0.01 * max(1.0, abs(x2 - x1) + abs(y2 - y1))
    return False


def connected_nets(drawing: Any) -> dict[str, str]:
    """Terminal -> the name of the net the drawing connects it to (flags joined by name; an unnamed group gets
    the first terminal in it, sorted, as its name)."""
    terminals, named, wires = drawing_terminals(drawing)
    parent: dict[Any, Any] = {}

    def find(a: Any) -> Any:
        parent.setdefault(a, a)
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def join(a: Any, b: Any) -> None:
        parent[find(a)] = find(b)

    points = set(terminals.values()) | set(named)
    for start, end in wires:
        join(start, end)
        points |= {start, end}
    for point in points:
        for wire in wires:
            if _on(point, wire):
                join(point, wire[0])
    for point, name in named.items():
        join(point, ("net", name))
    groups: dict[Any, str] = {}
    for point, name in sorted(named.items()):
        groups.setdefault(find(point), name)
    result: dict[str, str] = {}
    for terminal, point in sorted(terminals.items()):
        root = find(point)
        groups.setdefault(root, f"(unnamed: {terminal})")
        result[terminal] = groups[root]
    return result


def schematic_problems(drawing: Any, roles: dict[str, str], pins: Iterable[str]) -> list[str]:
    """Every way the drawing's wiring differs from the netlist, one sentence each ([] when it matches)."""
    nets = expected(roles, pins)
    found = connected_nets(drawing)
    problems = []
    for name, terms in sorted(nets.items()):
        for term in sorted(terms):
            if term not in found:
                problems.append(f"{term} (net {name}) is not drawn")
    # Each expected net must be exactly one drawn group, and no group may hold two expected nets.
    group_of = {name: {found[t] for t in terms if t in found} for name, terms in nets.items()}
    for name, groups in sorted(group_of.items()):
        if len(groups) > 1:
            members = {g: sorted(t for t in nets[name] if found.get(t) == g) for g in groups}
            problems.append(f"net {name} is drawn in pieces: {sorted(members.values())}")
    owner: dict[str, str] = {}
    for name, groups in sorted(group_of.items()):
        for group in groups:
            if group in owner and owner[group] != name:
                problems.append(f"nets {owner[group]} and {name} are drawn joined (a short)")
            owner.setdefault(group, name)
    extra = sorted(t for t in found if not any(t in terms for terms in nets.values()))
    problems += [f"{t} is drawn but not in the netlist" for t in extra]
    return problems


# Harness ends that are not the host's or P1's (P1's pins are named after their nets): connector -> label -> net.
HARNESS_PIN_NETS = {
    "U1": {
        "VCC": "3V3",
        "GND": "GND",
        "PWMA": "MOTOR_PWM",
        "AIN1": "MOTOR_FWD",
        "AIN2": "MOTOR_REV",
        "STBY": "STBY",
        "VM": "VM",
        "AO1": "MOTOR_A",
        "AO2": "MOTOR_B",
        "IN1": "MOTOR_FWD",
        "IN2": "MOTOR_REV",
        "nSLEEP (EEP)": "STBY",
        "OUT1": "MOTOR_A",
        "OUT2": "MOTOR_B",
    },
    "M1": {"+": "MOTOR_A", "-": "MOTOR_B"},
    "BT1": {"+": "BAT+", "-": "GND"},
    "SW1": {"1": "BAT+", "2": "SW_OUT"},
    "F1": {"1": "SW_OUT", "2": "F1_OUT"},
    "Q1": {"D (pin 3)": "F1_OUT", "S (pin 2)": "VM", "G (pin 1)": "Q1_GATE"},
    "R1": {"1": "Q1_GATE", "2": "GND"},
    "S1": {"1": "BUTTON_RC", "2": "GND"},
    "S2": {"A: C": "3V3", "A: NO": "STBY", "B: C": "LID_RC", "B: NO": "GND"},
    "S3": {"1": "UNO_RC", "2": "GND"},
    "D1": {"A (long leg)": "D1_A", "K (flat side)": "GND"},
    "Q3": {"+": "3V3", "GND": "GND", "OUT": "SENSOR"},
    "D2": {"A (long leg)": "D2_A", "K (flat side)": "GND"},
    "BZ1": {"+": "5V", "-": "BZ_LOW"},
}


def harness_net_of(source: dict[str, Any], host_nets: dict[str, str]) -> dict[str, str]:
    """``connector:label`` -> net for every pin of a harness source (``host_nets``: A1's labels -> nets)."""
    net_of: dict[str, str] = {}
    for name, connector in source["connectors"].items():
        for label in connector.get("pinlabels") or connector["pins"]:
            if name == "A1":
                net = host_nets.get(label)
            elif name in ("P1", "P2"):
                net = label
            elif name == "S2" and label == "A: NO" and "STBY_IN" in source["connectors"]["P1"]["pinlabels"]:
                net = "STBY_IN"  # the dead-man sits between the lid switch and STBY
            else:
                table = HARNESS_PIN_NETS.get(name, {})
                net = table.get(label) or next((n for key, n in table.items() if label.startswith(key + " ")), None)
            if net is not None:
                net_of[f"{name}:{label}"] = net
    return net_of


def harness_problems(wires: Iterable[tuple[str, str]], net_of: dict[str, str]) -> list[str]:
    """Each harness wire (pairs of ``connector:pin label`` ends) must join two ends of the same net."""
    problems = []
    for a, b in sorted(wires):
        na, nb = net_of.get(a), net_of.get(b)
        if na is None or nb is None:
            problems.append(f"wire {a} - {b}: {a if na is None else b} is not in the netlist")
        elif na != nb:
            problems.append(f"wire {a} - {b} joins {na} to {nb}")
    return problems


def main() -> int:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("make_wiring", Path(__file__).with_name("make_wiring.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    maps, _ = module.load()
    roles = {role: data[2] for role, data in module.ROLES.items()}
    problems = []
    for path in module.PATHS:
        drawing, _ = module.schematic_drawing(path, maps[path])
        problems += [f"schematic-{path}: {p}" for p in schematic_problems(drawing, roles, maps[path])]
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
