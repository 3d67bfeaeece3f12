"""The harness drawings (WireViz): the wires between the host, the driver, the interface board P1 and the parts in
the toy's shell, one drawing per path and driver; and what a drawing says (its texts, its wires)."""

from __future__ import annotations

from typing import Any

from wiring_data import HOST_NAME, ROLES, SUPPLY, gpio_name, host_pin, load

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


def harness_source(
    path: str, pins: dict[str, int], driver: str = "tb6612", p1_refs: list[str] | None = None
) -> dict[str, Any]:
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
    board_pins = [
        "3V3",
        "5V",
        "GND",
        *motor_nets,
        *[ROLES[r][2] for r in other_roles if r != "heartbeat"],
        "STBY",
        *[net for net in OFF_BOARD_NETS if any(OFF_BOARD[c][3] in pins for c in OFF_BOARD_USERS[net])],
        *(["HEARTBEAT", "STBY_IN"] if deadman_fitted else []),
    ]  # the dead-man's pads last
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
        u1 = {
            "type": "Motor driver module",
            "subtype": "DRV8833: no logic supply pin; its VCC pin is VM",
            "pins": driver_pins,
            "show_pincount": False,
            "notes": "Bare module: measure EEP/nSLEEP to VCC; a pull-up there must come off (BUILD.md)",
        }
        w3 = {
            "wirecount": 1,
            "colors": ["WH"],
            "gauge": "0.14 mm2",
            "notes": "lid interlock (S2A) to nSLEEP; no 3.3 V wire to the driver",
        }
        w3_ends = ([board_pins.index("STBY") + 1], [1], [sleep_pin])
        w4_notes = "motor supply to VM (labelled VCC on the module): never the host's 3V3"
    else:
        u1 = {
            "type": "Motor driver breakout",
            "subtype": "TB6612FNG (a DRV8833 has its own drawing)",
            "pins": driver_pins,
            "show_pincount": False,
            "notes": "Pins by the names printed on the breakout (their order differs between makers)",
        }
        w3 = {
            "wirecount": 2,
            "colors": ["WH", "OG"],
            "gauge": "0.14 mm2",
            "notes": "lid interlock (S2A) to STBY, 3.3 V to VCC",
        }
        w3_ends = ([board_pins.index("STBY") + 1, board_pins.index("3V3") + 1], [1, 2], ["STBY", "VCC"])
        w4_notes = "motor supply"
    drawing = "" if not drv else ", DRV8833"
    return {
        "metadata": {"title": f"UNO launcher harness, {path} path{drawing} (generated by hardware/make_wiring.py)"},
        "connectors": {
            "A1": host,
            "U1": u1,
            "P1": {
                "type": "Interface board (stripboard)",
                "subtype": "pull-downs, pull-ups, RC filters, lid interlock, beam, LED, buzzer",
                "pinlabels": board_pins,
                "notes": "Parts on P1: " + ", ".join(p1_refs),
            },
            "M1": {"type": "Motor (the toy's)", "pinlabels": ["+", "-"]},
            "BT1": {"type": "Battery box, 3 x C cells", "subtype": "the toy's own", "pinlabels": ["+", "-"]},
            "SW1": {"type": "Power switch", "pinlabels": ["1", "2"]},
            "F1": {"type": "PPTC fuse", "pinlabels": ["1", "2"]},
            "Q1": {
                "type": "P-MOSFET AO3401A",
                "subtype": "SOT-23 on an adapter: pin 1 G, 2 S, 3 D",
                "pinlabels": ["D (pin 3)", "S (pin 2)", "G (pin 1)"],
                "notes": "C1, C2 at the driver's VM",
            },
            "R1": {"type": "Resistor 10k", "subtype": "Q1's gate to GND, soldered at Q1", "pinlabels": ["1", "2"]},
            **{
                ref: {"type": kind, "pinlabels": list(labels)}
                for ref, (kind, labels, _, role) in OFF_BOARD.items()
                if role in pins
            },
            **(
                {
                    "P2": {
                        "type": "Dead-man board (stripboard)",
                        "subtype": "C7, C8, D4, D5, R16, R17, Q4, Q5",
                        "pinlabels": list(DEADMAN_PADS),
                        "notes": "STBY only while HEARTBEAT toggles; stops the motor ~100 ms after the last edge",
                    }
                }
                if deadman_fitted
                else {}
            ),
        },
        "cables": {
            "W1": {
                "wirecount": len(w1),
                "colors": colours(w1),
                "gauge": "0.14 mm2",
                "notes": "motor lines to P1 (R2-R4 pull them down there)",
            },
            "W6": {
                "wirecount": len(w6),
                "colors": ["BK", *colours(w1[1:])][: len(w6)],
                "gauge": "0.14 mm2",
                "notes": "motor lines from P1 to the driver inputs",
            },
            "W2": {
                "wirecount": len(w2),
                "colors": colours(w2),
                "gauge": "0.14 mm2",
                "notes": "signals and supplies to P1",
            },
            "W3": w3,
            "W4": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.5 mm2", "notes": w4_notes},
            "W7": {
                "wirecount": 5,
                "colors": ["RD", "RD", "RD", "WH", "BK"],
                "gauge": "0.5 mm2",
                "notes": "power chain in the battery's + lead: BT1 + to SW1 to F1 to Q1's drain; Q1's gate "
                "through R1 to GND",
            },
            **{
                f"W{ref}": {
                    "wirecount": len(ends),
                    "colors": ["GY"] * len(ends),
                    "gauge": "0.14 mm2",
                    "notes": f"{ref} to P1",
                }
                for ref, (_, _, ends, role) in OFF_BOARD.items()
                if role in pins
            },
            **(
                {
                    "WP2": {
                        "wirecount": 4,
                        "colors": ["PK", "OG", "WH", "BK"],
                        "gauge": "0.14 mm2",
                        "notes": "P1 to the dead-man board P2",
                    }
                }
                if deadman_fitted
                else {}
            ),
            "W5": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.5 mm2", "notes": "motor (C3 at the motor)"},
        },
        "connections": [
            [
                {"A1": [host_pin_of[a] for a, _ in w1]},
                {"W1": list(range(1, len(w1) + 1))},
                {"P1": [board_pins.index(b) + 1 for _, b in w1]},
            ],
            [
                {"P1": [board_pins.index(a) + 1 for a, _ in w6]},
                {"W6": list(range(1, len(w6) + 1))},
                {"U1": [b for _, b in w6]},
            ],
            [
                {"A1": [host_pin_of[a] for a, _ in w2]},
                {"W2": list(range(1, len(w2) + 1))},
                {"P1": [board_pins.index(b) + 1 for _, b in w2]},
            ],
            [{"P1": w3_ends[0]}, {"W3": w3_ends[1]}, {"U1": w3_ends[2]}],
            [{"Q1": [2]}, {"W4": [1]}, {"U1": [vm_pin]}],
            [{"BT1": [2]}, {"W4": [2]}, {"U1": ["GND"]}],
            [{"BT1": [1]}, {"W7": [1]}, {"SW1": [1]}],
            [{"SW1": [2]}, {"W7": [2]}, {"F1": [1]}],
            [{"F1": [2]}, {"W7": [3]}, {"Q1": [1]}],
            [{"Q1": [3]}, {"W7": [4]}, {"R1": [1]}],
            [{"R1": [2]}, {"W7": [5]}, {"P1": [board_pins.index("GND") + 1]}],
            *[
                [
                    {ref: list(range(1, len(ends) + 1))},
                    {f"W{ref}": list(range(1, len(ends) + 1))},
                    {"P1": [board_pins.index(off_board_net(net, ref, deadman_fitted)) + 1 for net in ends]},
                ]
                for ref, (_, _, ends, role) in OFF_BOARD.items()
                if role in pins
            ],
            *(
                [
                    [
                        {"P1": [board_pins.index(net) + 1 for net in DEADMAN_PADS]},
                        {"WP2": [1, 2, 3, 4]},
                        {"P2": [1, 2, 3, 4]},
                    ]
                ]
                if deadman_fitted
                else []
            ),
            [{"U1": [outs[0], outs[1]]}, {"W5": [1, 2]}, {"M1": [1, 2]}],
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
    found = (
        " ".join(part.strip() for part in el.itertext() if part.strip())
        for el in root.iter()
        if el.tag.rsplit("}", 1)[-1] == "text"
    )
    return sorted(text for text in found if text)
