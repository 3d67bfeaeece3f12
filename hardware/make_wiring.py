#!/usr/bin/env python3
"""Generate the hardware documentation from its one source of truth: ``pins.toml`` (pin maps) and ``parts.toml``
(the parts list).

Generated: the tables between ``<!-- generated: NAME -->`` markers in ``hardware/README.md`` (Pi pins, Pico pins,
one table per driver, the bill of materials), the schematics ``schematic-pi.svg`` / ``schematic-pico.svg``
(schemdraw) and the harness drawings ``harness-pi.svg`` / ``harness-pico.svg`` with their WireViz sources
``harness-*.yml`` (WireViz, which needs Graphviz's ``dot``).

    python hardware/make_wiring.py           # rewrite everything
    python hardware/make_wiring.py --check   # exit 1 if anything is out of date (the test suite does this too)
    python hardware/make_wiring.py --tables  # only the README tables: standard library only, works on a fresh Pi

The drawings need ``pip install schemdraw==0.23 wireviz==0.4.1`` (the project's test extras) and ``dot``
(Debian package ``graphviz``).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PINS_FILE = HERE / "pins.toml"
PARTS_FILE = HERE / "parts.toml"
README = HERE / "README.md"
PATHS = ("pi", "pico")

# BCM GPIO -> physical pin on the Pi's 40-pin header.
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21, 25: 22,
    11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip
# Pico GPn -> physical pin on the Pico's edge (GND pins 3, 8, 13, 18, 23, 28, 33, 38 between them).
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17, 14: 19, 15: 20,
    16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
}  # fmt: skip
# Supply pins on each host as (label, physical pin): 3.3 V, 5 V, GND to the interface board, GND to the driver.
SUPPLY = {
    "pi": {"3V3": ("3V3", 1), "5V": ("5V", 2), "GND": ("GND", 6), "GND2": ("GND", 9)},
    "pico": {"3V3": ("3V3(OUT)", 36), "5V": ("VBUS", 40), "GND": ("GND", 38), "GND2": ("GND", 8)},
}
SUPPLY_USE = {
    "3V3": "interface board P1: pull-ups, beam receiver, lid interlock S2A, driver VCC",
    "5V": "interface board P1: IR LED (through R12), buzzer",
    "GND": "interface board P1: every switch and part",
    "GND2": "driver GND (joined there to the battery's -)",
}
HOST_NAME = {"pi": "Raspberry Pi 40-pin header", "pico": "Raspberry Pi Pico"}

# role -> (part, direction, net name on the schematic, what it connects to)
ROLES = {
    "motor_enable": ("Motor driver speed", "out (PWM)", "MOTOR_PWM",
                     "TB6612FNG PWMA; DRV8833: not connected; 10 kOhm to GND (R2)"),
    "motor_forward": ("Motor driver direction 1", "out", "MOTOR_FWD",
                      "TB6612FNG AIN1 / DRV8833 IN1; 10 kOhm to GND (R3)"),
    "motor_reverse": ("Motor driver direction 2", "out", "MOTOR_REV",
                      "TB6612FNG AIN2 / DRV8833 IN2; 10 kOhm to GND (R4)"),
    "button": ("Launcher button", "in, pull-up", "BUTTON", "S1 to GND; 10 kOhm to 3.3 V, 1 kOhm in series, 100 nF"),
    "sensor": ("Card-exit beam receiver", "in, pull-up", "SENSOR",
               "IR receiver output (open collector), 10 kOhm to 3.3 V; beam broken = low"),
    "lid": ("Lid switch", "in, pull-up", "LID", "S2B to GND, closed when the lid is shut; 10 kOhm, 1 kOhm, 100 nF"),
    "uno": ("UNO button (optional)", "in, pull-up", "UNO", "S3 to GND; 10 kOhm to 3.3 V, 1 kOhm in series, 100 nF"),
    "led": ("Button LED", "out", "LED", "330 Ohm and LED D2 to GND"),
    "buzzer": ("Buzzer", "out", "BUZZER", "1 kOhm to the base of NPN Q2; active 5 V buzzer BZ1 on its collector"),
    "heartbeat": ("Dead-man heartbeat (optional)", "out (square wave)", "HEARTBEAT",
                  "C7 into the dead-man charge pump on P2: STBY only while it toggles (Safety)"),
}

# Each supported driver: (driver pin, Pi/Pico connection, why). "{role}" is replaced with the host's pin.
DRIVERS: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "tb6612": ("TB6612FNG (recommended: PWM speed control on both paths)", [
        ("VM", "motor supply after SW1, F1, Q1 (4.5 V)", "motor supply, 2.5-13.5 V; C1 470 uF + C2 100 nF to GND"),
        ("VCC", "{3V3} through P1", "logic supply 2.7-5.5 V: the host's 3.3 V, so its inputs see 3.3 V logic"),
        ("GND", "{GND2}", "one ground for battery, driver and host"),
        ("STBY", "3.3 V through lid switch S2A; R5 10 kOhm to GND",
         "low = standby: lid open stops the motor in hardware"),
        ("PWMA", "{motor_enable}", "speed (PWM); R2 10 kOhm to GND"),
        ("AIN1", "{motor_forward}", "direction 1; R3 10 kOhm to GND"),
        ("AIN2", "{motor_reverse}", "direction 2; R4 10 kOhm to GND"),
        ("AO1, AO2", "motor M1 (C3 100 nF across it)", "swap the two if eject and retract come out reversed"),
        ("PWMB, BIN1, BIN2", "GND", "channel B unused: held off"),
    ]),
    "drv8833": ("DRV8833 (no VCC pin: never connect 3.3 V to its VM)", [
        ("VM (often labelled VCC on modules)", "motor supply after SW1, F1, Q1 (4.5 V)",
         "the only supply pin (2.7-10.8 V); 10 uF ceramic + C1 470 uF to GND; never the host's 3.3 V"),
        ("GND", "{GND2}", "one ground for battery, driver and host"),
        ("nSLEEP (EEP on some modules)", "3.3 V through lid switch S2A; R5 10 kOhm to GND",
         "high = awake, low = sleep: the lid interlock. Never PWM here (up to 1 ms to wake)"),
        ("AIN1", "{motor_forward}", "IN1; R3 10 kOhm to GND. Pico: PWM here (DRIVER = \"drv8833\")"),
        ("AIN2", "{motor_reverse}", "IN2; R4 10 kOhm to GND. Pico: PWM here"),
        ("(none)", "{motor_enable} not connected", "Pi path: speed is on/off only (full power)"),
        ("AOUT1, AOUT2", "motor M1 (C3 100 nF across it)", "swap the two if eject and retract come out reversed"),
        ("BIN1, BIN2", "GND", "bridge B unused: held off"),
    ]),
}

# Motor stall current at the fresh cells' voltage against each driver's limits (datasheets: README, Datasheet
# facts): (name, continuous A per channel, peak A, continuous A with both channels in parallel).
CELLS_V = 4.8  # three fresh alkaline C cells
DRIVER_LIMITS = (("TB6612FNG", 1.2, 3.2, 2.4), ("DRV8833", 1.5, 2.0, 3.0))
MOTOR_OHMS = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0)

# ---- data --------------------------------------------------------------------------------------------------------


def load() -> tuple[dict[str, dict[str, int]], list[dict[str, Any]]]:
    """({"pi": role -> GPIO, "pico": role -> GP, "jig": role -> GPIO}, parts)."""
    data = tomllib.loads(PINS_FILE.read_text(encoding="utf-8"))
    maps = {
        "pi": {role: gpio for role, gpio in data["pins"].items() if gpio != -1},
        "pico": dict(data["pico"]),
        "jig": dict(data.get("jig", {})),
    }
    parts = tomllib.loads(PARTS_FILE.read_text(encoding="utf-8"))["part"]
    return maps, parts


def supplies() -> list[dict[str, str]]:
    """parts.toml's ``[[supply]]`` entries: what to order besides the drawn parts (board, wire, supply, ...)."""
    supply: list[dict[str, str]] = tomllib.loads(PARTS_FILE.read_text(encoding="utf-8")).get("supply", [])
    return supply


def refs_for(parts: list[dict[str, Any]], path: str) -> set[str]:
    return {ref for part in parts if path in part["paths"] for ref in part["refs"]}


def host_pin(path: str, gpio: int) -> int:
    return HEADER_PIN[gpio] if path == "pi" else PICO_PIN[gpio]


def gpio_name(path: str, gpio: int) -> str:
    return f"GPIO {gpio}" if path == "pi" else f"GP{gpio}"


def pin_text(path: str, gpio: int) -> str:
    """How a builder finds the pin: ``GPIO 12 (pin 32)`` or ``GP2 (pin 4)``."""
    return f"{gpio_name(path, gpio)} (pin {host_pin(path, gpio)})"


# ---- README tables (standard library only) -----------------------------------------------------------------------


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
    rows = ["| Ref | Qty | Part | Value / rating | Order | Where | Path | Notes |",
            "|---|---|---|---|---|---|---|---|"]
    for part in parts:
        paths = " + ".join("Pi" if p == "pi" else "Pico" for p in part["paths"])
        rows.append(f"| {', '.join(part['refs'])} | {len(part['refs'])} | {part['part']} | {part['value']} "
                    f"| {part['order']} | {part['place']} | {paths} | {part['notes']} |")
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


def stall_table() -> str:
    """Stall current (the cells' voltage over the motor's resistance, measured in BUILD.md §4) against each
    driver: what a motor held still draws, and what reversing a spinning one can briefly reach twice of."""
    names = " | ".join(name for name, *_ in DRIVER_LIMITS)
    rows = [f"| Motor resistance | Stall current at {CELLS_V:g} V | {names} |",
            "|---|---|" + "---|" * len(DRIVER_LIMITS)]
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
    }


def start_marker(name: str) -> str:
    return f"<!-- generated: {name} (make_wiring.py from pins.toml and parts.toml; do not edit) -->"


def end_marker(name: str) -> str:
    return f"<!-- end: {name} -->"


def readme_with_tables(text: str, tables: dict[str, str]) -> str:
    for name, table in tables.items():
        start, end = start_marker(name), end_marker(name)
        if start not in text or end not in text:
            raise SystemExit(f"{README} lacks the markers of the generated table {name!r}")
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{start}\n{table}\n{end}{tail}"
    return text


# ---- schematic (schemdraw) ---------------------------------------------------------------------------------------


def schematic(path: str, pins: dict[str, int]) -> tuple[bytes, set[str]]:
    """The schematic of one path as SVG, and the reference designators it draws. Nets that leave a block are
    named with flags (net labels): two flags with the same name are the same wire."""
    d, drawn = schematic_drawing(path, pins)
    return d.get_imagedata("svg"), drawn


def schematic_drawing(path: str, pins: dict[str, int]) -> tuple[Any, set[str]]:
    """The schemdraw drawing of :func:`schematic` (its elements carry the coordinates hardware/netlist.py checks)."""
    import schemdraw
    import schemdraw.elements as elm

    schemdraw.svgconfig.text = "text"  # labels stay text: searchable, and the tests read them
    drawn: set[str] = set()
    d = schemdraw.Drawing(show=False)
    d.config(unit=2.5, fontsize=11, lw=1.4)

    def ref(name: str, text: str = "") -> str:
        drawn.add(name)
        return f"{name}\n{text}" if text else name

    def tag(net: str) -> Any:
        return elm.Tag(width=0.5 + 0.2 * len(net)).label(net, fontsize=10)

    def flag(at: Any, net: str, direction: str = "right", length: float = 1.0) -> None:
        d.add(getattr(elm.Line(), direction)(length).at(at))
        d.add(getattr(tag(net), direction)())

    def title(x: float, y: float, text: str) -> None:
        d.add(elm.Label().at((x, y)).label(text, fontsize=12, halign="left"))

    host = "Raspberry Pi" if path == "pi" else "Raspberry Pi Pico"
    title(0, 23.5, f"UNO launcher, {host} path (generated from hardware/pins.toml and parts.toml)")
    title(0, 22.6, "U1 drawn as TB6612FNG; for a DRV8833 see the driver tables in hardware/README.md")

    # Motor supply: battery, switch, fuse, reverse-polarity P-MOSFET, bulk and ceramic capacitors.
    title(0, 20.8, "Motor supply (the toy's own 3 C cells)")
    d.add(elm.Ground().at((0, 14)))
    d.add(elm.Battery().up().at((0, 14)).label(ref("BT1", "3×C 4.5 V"), loc="bottom"))
    d.add(elm.Line().up(1.5))
    d.add(elm.Switch().right().label(ref("SW1", "power")))
    d.add(elm.Fuse().right().label(ref("F1", "PPTC 1.1 A")))
    d.add(elm.Line().right(1.0))
    q1 = d.add(elm.PFet(bulk=True).theta(-90).anchor("drain").label(ref("Q1", "P-MOSFET"), loc="top", ofst=0.6))
    d.add(elm.Resistor().at(q1.gate).down().label(ref("R1", "10k"), loc="bottom"))
    d.add(elm.Ground())
    d.add(elm.Line().right(1.5).at(q1.source))
    vm = d.add(elm.Dot())
    d.add(elm.Capacitor(polar=True).down().label(ref("C1", "470µ 10V"), loc="bottom"))
    d.add(elm.Ground())
    d.add(elm.Line().right(2.5).at(vm.center))
    vm2 = d.add(elm.Dot())
    d.add(elm.Capacitor().down().label(ref("C2", "100n 50V"), loc="bottom"))
    d.add(elm.Ground())
    flag(vm2.center, "VM", "right", 1.0)

    # Motor driver.
    left = ["VM", "VCC", "STBY", "PWMA", "AIN1", "AIN2", "PWMB", "BIN1", "BIN2"]
    ic_pins = [elm.IcPin(name=name, side="left") for name in reversed(left)]
    ic_pins += [elm.IcPin(name="GND", side="bottom"), elm.IcPin(name="AO2", side="right", slot="2/3"),
                elm.IcPin(name="AO1", side="right", slot="3/3")]
    u1 = d.add(elm.Ic(pins=ic_pins, pinspacing=1.0, edgepadW=1.8, edgepadH=0.6).right().at((30, 11))
               .label(ref("U1", "TB6612FNG"), loc="top"))
    nets = {"VM": "VM", "VCC": "3V3", "STBY": "STBY", "PWMA": "MOTOR_PWM", "AIN1": "MOTOR_FWD", "AIN2": "MOTOR_REV"}
    for name, net in nets.items():
        flag(getattr(u1, name), net, "left", 1.5)
    for name in ("PWMB", "BIN1", "BIN2"):
        d.add(elm.Line().left(0.8).at(getattr(u1, name)))
        d.add(elm.Ground().left())
    d.add(elm.Ground().at(u1.GND))
    # AO1 and AO2 are one pin pitch apart, the motor symbol is longer: both leads fan out to its exact ends
    # (hardware/netlist.py checks that every wire ends on the pin it is drawn to).
    d.add(elm.Line().right(1.5).at(u1.AO1))
    d.add(elm.Line().up(0.75))
    m_top = d.add(elm.Dot())
    d.add(elm.Line().right(1.5).at(u1.AO2))
    d.add(elm.Line().down(0.75))
    m_bottom = d.add(elm.Dot())
    d.add(elm.Motor().endpoints(m_top.center, m_bottom.center).label(ref("M1", "motor"), loc="bottom"))
    d.add(elm.Line().right(2.5).at(m_top.center))
    c3_top = d.add(elm.Dot())
    d.add(elm.Line().right(2.5).at(m_bottom.center))
    c3_bottom = d.add(elm.Dot())
    d.add(elm.Capacitor().endpoints(c3_top.center, c3_bottom.center).label(ref("C3", "100n"), loc="bottom"))

    # Host: every used pin with its net.
    title(0, 9.2, f"{HOST_NAME[path]}" + (" (BCM GPIO, header pin)" if path == "pi" else " (GP, Pico pin)"))
    host_pins = [elm.IcPin(name=f"{label} ({num})", anchorname=net, side="right")
                 for net, (label, num) in SUPPLY[path].items()]
    host_pins += [elm.IcPin(name=f"{gpio_name(path, gpio).replace(' ', '')} ({host_pin(path, gpio)})",
                            anchorname=role, side="right") for role, gpio in pins.items()]
    a1 = d.add(elm.Ic(pins=list(reversed(host_pins)), pinspacing=0.9, edgepadW=3.6, edgepadH=0.6).right()
               .at((2, -3.8)).label(ref("A1", host), loc="left"))
    for net in SUPPLY[path]:
        if net.startswith("GND"):
            d.add(elm.Line().right(1.0).at(getattr(a1, net)))
            d.add(elm.Ground().right())
        else:
            flag(getattr(a1, net), net, "right", 1.0)
    for role in pins:
        flag(getattr(a1, role), ROLES[role][2], "right", 1.0)

    # Pull-downs on the driver inputs, and the lid interlock on STBY.
    title(16, 9.2, "Driver inputs held low; lid interlock")
    for i, (r, net) in enumerate((("R2", "MOTOR_PWM"), ("R3", "MOTOR_FWD"), ("R4", "MOTOR_REV"))):
        x = 20 + 4.5 * i
        d.add(tag(net).left().at((x - 1, 6)))
        d.add(elm.Line().right(1).at((x - 1, 6)))
        d.add(elm.Resistor().down().label(ref(r, "10k"), loc="bottom"))
        d.add(elm.Ground())
    d.add(elm.Vdd().at((33, 7)).label("3V3"))
    d.add(elm.Switch().down().at((33, 7)).label(ref("S2", "A: lid\nshut = closed"), loc="bottom"))
    stby = d.add(elm.Dot())
    if "heartbeat" in pins:
        # Pi path with the dead-man: the lid switch feeds the dead-man's switch Q5, which feeds STBY (and R5).
        flag(stby.center, "STBY_IN", "right", 1.2)
        deadman(d, ref, tag, flag, title)
    else:
        d.add(elm.Resistor().down().label(ref("R5", "10k"), loc="bottom"))
        d.add(elm.Ground())
        flag(stby.center, "STBY", "right", 1.2)

    # Switch inputs: 10k pull-up, 100n across the switch, 1k in series to the host pin.
    base_y = -11.5
    title(0, base_y + 6.5, "Inputs: pull-up, RC filter, series resistor")
    switches = [("button", "S1", "fire", "R6", "R9", "C4"), ("lid", "S2", "B: lid", "R7", "R10", "C5"),
                ("uno", "S3", "UNO", "R8", "R11", "C6")]
    for i, (role, s, what, rpull, rser, cap) in enumerate(switches):
        if role not in pins:
            continue
        x = 1 + 9.5 * i
        d.add(elm.Vdd().at((x, base_y + 4)).label("3V3"))
        d.add(elm.Resistor().down().at((x, base_y + 4)).label(ref(rpull, "10k"), loc="top"))
        node = d.add(elm.Dot())
        sw = elm.Button() if role != "lid" else elm.Switch()
        d.add(sw.down().label(ref(s, what), loc="bottom"))
        d.add(elm.Ground())
        d.add(elm.Line().right(2).at(node.center))
        d.add(elm.Capacitor().down().label(ref(cap, "100n"), loc="bottom"))
        d.add(elm.Ground())
        d.add(elm.Line().up(1.2).at(node.center))
        d.add(elm.Resistor().right().label(ref(rser, "1k")))
        d.add(tag(ROLES[role][2]).right())

    # Beam: IR LED from 5 V, receiver with its pull-up to 3.3 V only.
    bx = 30
    title(bx, base_y + 6.5, "Card-exit beam")
    d.add(elm.Vdd().at((bx, base_y + 4)).label("5V"))
    d.add(elm.Resistor().down().at((bx, base_y + 4)).label(ref("R12", "220Ω 17mA"), loc="bottom"))
    d.add(elm.LED().down().label(ref("D1", "IR 940nm"), loc="bottom"))
    d.add(elm.Ground())
    d.add(elm.Vdd().at((bx + 6, base_y + 4)).label("3V3"))
    d.add(elm.Resistor().down().at((bx + 6, base_y + 4)).label(ref("R13", "10k"), loc="bottom"))
    rx = d.add(elm.Dot())
    flag(rx.center, "SENSOR", "right", 1.2)
    q3 = d.add(elm.NpnPhoto().anchor("collector").at(rx.center).label(ref("Q3", "IR receiver\n(open collector)"),
                                                                      loc="left"))
    d.add(elm.Ground().at(q3.emitter))

    # Feedback: LED and buzzer.
    fy = base_y - 10
    title(0, fy + 5.5, "Feedback")
    if "led" in pins:
        d.add(tag("LED").left().at((3, fy + 2)))
        d.add(elm.Resistor().right().at((3, fy + 2)).label(ref("R14", "330Ω")))
        d.add(elm.LED().down().label(ref("D2", "LED"), loc="bottom"))
        d.add(elm.Ground())
    if "buzzer" in pins:
        d.add(tag("BUZZER").left().at((14, fy)))
        d.add(elm.Resistor().right().at((14, fy)).label(ref("R15", "1k")))
        q2 = d.add(elm.BjtNpn().anchor("base").label(ref("Q2", "NPN"), loc="right"))
        d.add(elm.Ground().at(q2.emitter))
        d.add(elm.Line().up(0.5).at(q2.collector))
        bz_low = d.add(elm.Dot())
        d.add(elm.RBox().up().label(ref("BZ1", "buzzer"), loc="bottom"))
        bz_high = d.add(elm.Dot())
        d.add(elm.Line().up(0.5))
        d.add(elm.Vdd().label("5V"))
        d.add(elm.Line().left(2.5).at(bz_low.center))
        d.add(elm.Diode().up().toy(bz_high.center).label(ref("D3", "1N4148"), loc="top"))
        d.add(elm.Line().right().tox(bz_high.center))
    return d, drawn


def deadman(d: Any, ref: Callable[..., str], tag: Callable[[str], Any], flag: Callable[..., None],
            title: Callable[[float, float, str], None]) -> None:
    """The hardware dead-man (Pi path): a diode charge pump on the heartbeat pin holds Q4 on while edges arrive;
    Q4 holds the P-MOSFET Q5 on, which passes the lid switch's 3.3 V (STBY_IN) on to STBY. No edges for about
    R16 x C8 = 100 ms: C8 runs down through R16, Q4 and Q5 turn off, R5 pulls STBY low: the driver stops. A static
    level (a frozen daemon, a hung kernel, the boot's pull-up) pumps nothing: C7 passes edges only."""
    import schemdraw.elements as elm

    x, y = 44.0, 7.0
    title(x - 1, 9.2, "Dead-man: STBY only while the heartbeat toggles")
    d.add(tag("HEARTBEAT").left().at((x, y)))
    d.add(elm.Capacitor().right().at((x, y)).label(ref("C7", "1µ"), loc="top"))
    pump = d.add(elm.Dot())
    d4 = d.add(elm.Diode().up().at((pump.center[0], pump.center[1] - 2.5)).to(pump.center)
               .label(ref("D4", "BAT85"), loc="bottom"))  # anode at GND, cathode (the band) at the pump node
    d.add(elm.Ground().at(d4.start))
    d.add(elm.Diode().right().at(pump.center).label(ref("D5", "BAT85"), loc="top"))
    hold = d.add(elm.Dot())
    d.add(elm.Capacitor().down().at(hold.center).label(ref("C8", "1µ"), loc="bottom"))
    d.add(elm.Ground())
    d.add(elm.Line().right(2.0).at(hold.center))
    r16 = d.add(elm.Dot())
    d.add(elm.Resistor().down().at(r16.center).label(ref("R16", "100k"), loc="bottom"))
    d.add(elm.Ground())
    d.add(elm.Line().right(1.5).at(r16.center))
    q4 = d.add(elm.NFet().anchor("gate").label(ref("Q4", "AO3400A"), loc="right"))
    d.add(elm.Ground().at(q4.source))
    d.add(elm.Line().up(1.0).at(q4.drain))
    gate5 = d.add(elm.Dot())
    d.add(elm.Resistor().up().at(gate5.center).label(ref("R17", "100k"), loc="bottom"))
    top = d.add(elm.Dot())
    flag(top.center, "STBY_IN", "left", 1.0)
    d.add(elm.Line().right(2.5).at(top.center))
    q5 = d.add(elm.PFet().theta(-90).flip().anchor("source").label(ref("Q5", "AO3401A"), loc="top"))
    d.add(elm.Line().down().at(q5.gate).toy(gate5.center))
    d.add(elm.Line().left().tox(gate5.center))
    d.add(elm.Line().right(1.0).at(q5.drain))
    out = d.add(elm.Dot())
    d.add(elm.Resistor().down().at(out.center).label(ref("R5", "10k"), loc="bottom"))
    d.add(elm.Ground())
    flag(out.center, "STBY", "right", 1.2)


# ---- harness (WireViz) -------------------------------------------------------------------------------------------


# Parts off P1, in the toy's shell: ref -> (what, its pin labels, the P1 net of each pin in order, the pin role
# that needs it). S2 is one two-pole switch: pole A (C, NO) is the interlock, pole B the lid input.
OFF_BOARD: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], str]] = {
    "S1": ("Fire button (the toy's)", ("1", "2"), ("BUTTON_RC", "GND"), "button"),
    "S2": ("Lid microswitch, 2 poles", ("A: C", "A: NO", "B: C", "B: NO"), ("3V3", "STBY", "LID_RC", "GND"), "lid"),
    "S3": ("UNO button", ("1", "2"), ("UNO_RC", "GND"), "uno"),
    "D1": ("IR LED (beam emitter)", ("A (long leg)", "K (flat side)"), ("D1_A", "GND"), "sensor"),
    "Q3": ("IR receiver (beam)", ("+", "GND", "OUT"), ("3V3", "GND", "SENSOR"), "sensor"),
    "D2": ("Button LED", ("A (long leg)", "K (flat side)"), ("D2_A", "GND"), "led"),
    "BZ1": ("Active buzzer", ("+", "-"), ("5V", "BZ_LOW"), "buzzer"),
}
DEADMAN_PADS = ("HEARTBEAT", "STBY_IN", "STBY", "GND")  # P2's pins, each wired to P1's pad of that net


def off_board_net(net: str, ref: str, deadman_fitted: bool) -> str:
    """With the dead-man, the lid switch's pole A feeds STBY_IN (P2 passes it on to STBY), not STBY itself."""
    return "STBY_IN" if deadman_fitted and ref == "S2" and net == "STBY" else net


OFF_BOARD_NETS = ("BUTTON_RC", "LID_RC", "UNO_RC", "D1_A", "D2_A", "BZ_LOW")  # P1 pins for them (others exist)
OFF_BOARD_USERS = {net: [ref for ref, data in OFF_BOARD.items() if net in data[2]] for net in OFF_BOARD_NETS}

HARNESS_DRIVERS = ("tb6612", "drv8833")  # one harness drawing per driver: the two are wired differently
DRV8833_VM_WARNING = "VM (module label: VCC!) - battery ONLY, never 3V3"


def harness_name(path: str, driver: str) -> str:
    """``harness-pi`` (TB6612FNG) or ``harness-pi-drv8833``: the file stem of one harness drawing."""
    return f"harness-{path}" if driver == "tb6612" else f"harness-{path}-{driver}"


def harness_source(path: str, pins: dict[str, int], driver: str = "tb6612",
                   p1_refs: list[str] | None = None) -> dict[str, Any]:
    """The WireViz description of the wires between the host, the driver and the small interface board (P1) that
    carries the pull-ups, filters, the lid interlock and the beam/LED/buzzer parts.

    The DRV8833 gets a drawing of its own: it has no logic supply pin, and the pin its modules label "VCC" is the
    motor supply VM. A TB6612FNG drawing with a subtitle would still show a wire from the host's 3.3 V to a pin
    labelled VCC, which on a DRV8833 module puts the battery on the host's 3.3 V rail."""
    supply = SUPPLY[path]
    drv = driver == "drv8833"
    if p1_refs is None:
        p1_refs = on_board(load()[1], path)
    motor_roles = [r for r in ("motor_enable", "motor_forward", "motor_reverse") if r in pins]
    # ROLES' order, not the pin map's: P1's pads come in the same order on both paths (the maps list roles
    # differently), so one board serves both.
    other_roles = [r for r in ROLES if r in pins and r not in motor_roles]
    host_entries = [(net, label, num) for net, (label, num) in supply.items()]
    host_entries += [(role, gpio_name(path, pins[role]).replace(" ", ""), host_pin(path, pins[role])) for role in pins]
    host_entries.sort(key=lambda e: e[2])
    host_pin_of = {key: num for key, _, num in host_entries}
    if drv:
        driver_pins = ["GND", "IN1", "IN2", "nSLEEP (EEP)", DRV8833_VM_WARNING, "OUT1", "OUT2"]
        inputs = {"motor_forward": "IN1", "motor_reverse": "IN2"}
        sleep_pin, vm_pin, outs = "nSLEEP (EEP)", DRV8833_VM_WARNING, ("OUT1", "OUT2")
    else:
        driver_pins = ["VCC", "GND", "PWMA", "AIN1", "AIN2", "STBY", "VM", "AO1", "AO2"]
        inputs = {"motor_enable": "PWMA", "motor_forward": "AIN1", "motor_reverse": "AIN2"}
        sleep_pin, vm_pin, outs = "STBY", "VM", ("AO1", "AO2")
    motor_nets = [ROLES[r][2] for r in motor_roles]
    deadman_fitted = "heartbeat" in pins
    board_pins = ["3V3", "5V", "GND", *motor_nets, *[ROLES[r][2] for r in other_roles if r != "heartbeat"], "STBY",
                  *[net for net in OFF_BOARD_NETS if any(OFF_BOARD[c][3] in pins for c in OFF_BOARD_USERS[net])],
                  *(["HEARTBEAT", "STBY_IN"] if deadman_fitted else [])]  # the dead-man's pads last
    signal_colours = iter(["YE", "GN", "BU", "VT", "GY", "WH", "BN", "PK", "TQ", "YEGN", "BUWH", "GNWH"])
    fixed = {"3V3": "OG", "5V": "RD", "GND": "BK", "GND2": "BK"}
    colour_of = {key: fixed.get(key) or next(signal_colours) for key, _, _ in host_entries}

    def colours(wires: list[tuple[str, str]]) -> list[str]:
        return [colour_of[a] for a, _ in wires]

    # W1 brings the motor lines to P1, where R2-R4 pull them down; W6 takes them on to the driver with P1's GND.
    # The DRV8833 has no PWMA: motor_enable ends at R2 on P1 (kept, so the selftest's pull-down check passes).
    w1 = [("GND2", "GND")] + [(role, ROLES[role][2]) for role in motor_roles]
    w6 = [("GND", "GND")] + [(ROLES[role][2], inputs[role]) for role in motor_roles if role in inputs]
    w2 = [("3V3", "3V3"), ("5V", "5V"), ("GND", "GND")] + [(role, ROLES[role][2]) for role in other_roles]
    host = {
        "type": HOST_NAME[path],
        "subtype": "GPIO header, female Dupont" if path == "pi" else "soldered header pins",
        "pins": [num for _, _, num in host_entries],
        "pinlabels": [label for _, label, _ in host_entries],
    }
    if drv:
        u1 = {"type": "Motor driver module", "subtype": "DRV8833: no logic supply pin; its VCC pin is VM",
              "pins": driver_pins, "show_pincount": False,
              "notes": "Bare module: measure EEP/nSLEEP to VCC; a pull-up there must come off (BUILD.md)"}
        w3 = {"wirecount": 1, "colors": ["WH"], "gauge": "0.14 mm2",
              "notes": "lid interlock (S2A) to nSLEEP; no 3.3 V wire to the driver"}
        w3_ends = ([board_pins.index("STBY") + 1], [1], [sleep_pin])
        w4_notes = "motor supply to VM (labelled VCC on the module): never the host's 3V3"
    else:
        u1 = {"type": "Motor driver breakout", "subtype": "TB6612FNG (a DRV8833 has its own drawing)",
              "pins": driver_pins, "show_pincount": False,
              "notes": "Pins by the names printed on the breakout (their order differs between makers)"}
        w3 = {"wirecount": 2, "colors": ["WH", "OG"], "gauge": "0.14 mm2",
              "notes": "lid interlock (S2A) to STBY, 3.3 V to VCC"}
        w3_ends = ([board_pins.index("STBY") + 1, board_pins.index("3V3") + 1], [1, 2], ["STBY", "VCC"])
        w4_notes = "motor supply"
    drawing = "" if not drv else ", DRV8833"
    return {
        "metadata": {"title": f"UNO launcher harness, {path} path{drawing} (generated by hardware/make_wiring.py)"},
        "connectors": {
            "A1": host,
            "U1": u1,
            "P1": {"type": "Interface board (stripboard)",
                   "subtype": "pull-downs, pull-ups, RC filters, lid interlock, beam, LED, buzzer",
                   "pinlabels": board_pins, "notes": "Parts on P1: " + ", ".join(p1_refs)},
            "M1": {"type": "Motor (the toy's)", "pinlabels": ["+", "-"]},
            "BT1": {"type": "Battery box, 3 x C cells", "subtype": "the toy's own", "pinlabels": ["+", "-"]},
            "SW1": {"type": "Power switch", "pinlabels": ["1", "2"]},
            "F1": {"type": "PPTC fuse", "pinlabels": ["1", "2"]},
            "Q1": {"type": "P-MOSFET AO3401A", "subtype": "SOT-23 on an adapter: pin 1 G, 2 S, 3 D",
                   "pinlabels": ["D (pin 3)", "S (pin 2)", "G (pin 1)"],
                   "notes": "C1, C2 at the driver's VM"},
            "R1": {"type": "Resistor 10k", "subtype": "Q1's gate to GND, soldered at Q1", "pinlabels": ["1", "2"]},
            **{ref: {"type": kind, "pinlabels": list(labels)} for ref, (kind, labels, _, role) in OFF_BOARD.items()
               if role in pins},
            **({"P2": {"type": "Dead-man board (stripboard)", "subtype": "C7, C8, D4, D5, R16, R17, Q4, Q5",
                       "pinlabels": list(DEADMAN_PADS),
                       "notes": "STBY only while HEARTBEAT toggles; stops the motor ~100 ms after the last edge"}}
               if deadman_fitted else {}),
        },
        "cables": {
            "W1": {"wirecount": len(w1), "colors": colours(w1), "gauge": "0.14 mm2",
                   "notes": "motor lines to P1 (R2-R4 pull them down there)"},
            "W6": {"wirecount": len(w6), "colors": ["BK", *colours(w1[1:])][:len(w6)], "gauge": "0.14 mm2",
                   "notes": "motor lines from P1 to the driver inputs"},
            "W2": {"wirecount": len(w2), "colors": colours(w2), "gauge": "0.14 mm2",
                   "notes": "signals and supplies to P1"},
            "W3": w3,
            "W4": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.5 mm2", "notes": w4_notes},
            "W7": {"wirecount": 5, "colors": ["RD", "RD", "RD", "WH", "BK"], "gauge": "0.5 mm2",
                   "notes": "power chain in the battery's + lead: BT1 + to SW1 to F1 to Q1's drain; Q1's gate "
                            "through R1 to GND"},
            **{f"W{ref}": {"wirecount": len(ends), "colors": ["GY"] * len(ends), "gauge": "0.14 mm2",
                           "notes": f"{ref} to P1"} for ref, (_, _, ends, role) in OFF_BOARD.items() if role in pins},
            **({"WP2": {"wirecount": 4, "colors": ["PK", "OG", "WH", "BK"], "gauge": "0.14 mm2",
                        "notes": "P1 to the dead-man board P2"}} if deadman_fitted else {}),
            "W5": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.5 mm2", "notes": "motor (C3 at the motor)"},
        },
        "connections": [
            [{"A1": [host_pin_of[a] for a, _ in w1]}, {"W1": list(range(1, len(w1) + 1))},
             {"P1": [board_pins.index(b) + 1 for _, b in w1]}],
            [{"P1": [board_pins.index(a) + 1 for a, _ in w6]}, {"W6": list(range(1, len(w6) + 1))},
             {"U1": [b for _, b in w6]}],
            [{"A1": [host_pin_of[a] for a, _ in w2]}, {"W2": list(range(1, len(w2) + 1))},
             {"P1": [board_pins.index(b) + 1 for _, b in w2]}],
            [{"P1": w3_ends[0]}, {"W3": w3_ends[1]}, {"U1": w3_ends[2]}],
            [{"Q1": [2]}, {"W4": [1]}, {"U1": [vm_pin]}],
            [{"BT1": [2]}, {"W4": [2]}, {"U1": ["GND"]}],
            [{"BT1": [1]}, {"W7": [1]}, {"SW1": [1]}],
            [{"SW1": [2]}, {"W7": [2]}, {"F1": [1]}],
            [{"F1": [2]}, {"W7": [3]}, {"Q1": [1]}],
            [{"Q1": [3]}, {"W7": [4]}, {"R1": [1]}],
            [{"R1": [2]}, {"W7": [5]}, {"P1": [board_pins.index("GND") + 1]}],
            *[[{ref: list(range(1, len(ends) + 1))}, {f"W{ref}": list(range(1, len(ends) + 1))},
               {"P1": [board_pins.index(off_board_net(net, ref, deadman_fitted)) + 1 for net in ends]}]
              for ref, (_, _, ends, role) in OFF_BOARD.items() if role in pins],
            *([[{"P1": [board_pins.index(net) + 1 for net in DEADMAN_PADS]}, {"WP2": [1, 2, 3, 4]},
                {"P2": [1, 2, 3, 4]}]] if deadman_fitted else []),
            [{"U1": [outs[0], outs[1]]}, {"W5": [1, 2]},
             {"M1": [1, 2]}],
        ],
    }


def on_board(parts: list[dict[str, Any]], path: str, place: str = "P1") -> list[str]:
    """The reference designators mounted on ``place`` (parts.toml ``place``) for one path, in list order."""
    return [ref for part in parts if path in part["paths"] and part["place"] == place for ref in part["refs"]]


def harness_wires(source: dict[str, Any]) -> set[tuple[str, str]]:
    """Every wire of a harness source as a pair of (connector:pin label) ends, sorted: what a builder connects.

    The hardware tests compare this with the netlist the schematic and the driver tables describe."""
    connectors = source["connectors"]
    wires: set[tuple[str, str]] = set()

    def label(name: str, pin: int) -> str:
        conn = connectors[name]
        if "pins" in conn and "pinlabels" not in conn:
            return f"{name}:{pin}"  # pins named, not numbered
        if "pins" in conn:
            return f"{name}:{conn['pinlabels'][conn['pins'].index(pin)]}"
        return f"{name}:{conn['pinlabels'][pin - 1]}"

    for left, _cable, right in source["connections"]:
        (a, a_pins), (b, b_pins) = next(iter(left.items())), next(iter(right.items()))
        for pa, pb in zip(a_pins, b_pins, strict=True):
            ends = sorted((label(a, pa), label(b, pb)))
            wires.add((ends[0], ends[1]))
    return wires


def harness_yaml(path: str, pins: dict[str, int], driver: str = "tb6612") -> str:
    import yaml

    what = f"{path} path" if driver == "tb6612" else f"{path} path, {driver}"
    header = f"# Generated by hardware/make_wiring.py from pins.toml ({what}); do not edit.\n"
    return header + yaml.safe_dump(harness_source(path, pins, driver), sort_keys=False, width=120)


def harness_svg(yaml_text: str) -> bytes:
    from wireviz import wireviz

    svg = wireviz.parse(yaml_text, return_types="svg")
    return svg.encode() if isinstance(svg, str) else bytes(svg)


def svg_texts(svg: bytes) -> list[str]:
    """Every text of an SVG drawing (sorted, so layout does not matter): what a reader of it sees."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    found = (" ".join(part.strip() for part in el.itertext() if part.strip())
             for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "text")
    return sorted(text for text in found if text)


# ---- main --------------------------------------------------------------------------------------------------------


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
    for path in PATHS:
        result[HERE / f"schematic-{path}.svg"] = lambda path=path: schematic(path, maps[path])[0]  # type: ignore[misc]
        for driver in HARNESS_DRIVERS:
            stem = HERE / harness_name(path, driver)
            result[stem.with_suffix(".yml")] = lambda path=path, driver=driver: harness_yaml(  # type: ignore[misc]
                path, maps[path], driver).encode()
            result[stem.with_suffix(".svg")] = lambda path=path, driver=driver: harness_svg(  # type: ignore[misc]
                harness_yaml(path, maps[path], driver))
    return result


def sibling(name: str) -> Any:
    """``hardware/<name>.py`` (a script beside this one) loaded from its path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stripboard_svg(pins: dict[str, int]) -> bytes:
    board = sibling("stripboard")
    layout = board.layout(list(pins))
    problems = board.problems(layout, sibling("netlist").NETS)
    if problems:
        raise SystemExit("stripboard layout disagrees with the netlist: " + "; ".join(problems))
    return bytes(board.svg(layout, "P1 interface board on stripboard (generated by hardware/make_wiring.py "
                                   "from hardware/stripboard.py and the netlist)"))


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
