"""A stripboard layout for the interface board P1, generated from the same netlist as the drawings.

Copper strips run left to right. Rows 0 (3V3), 1 (5V) and 5 (GND) are rails along the whole board; rows 2-4
are cut into one short segment per block (a block: the parts of one input or output), each segment one net.
Every part stands upright across the strips of its two (three: Q2) nets, in a column of its own; a pad (a header
pin) takes each wire from the harness. :func:`layout` places everything; :func:`problems` checks the result against
``hardware/netlist.py`` (each part's legs on its nets' strips, no segment carrying two nets, every pad on its
net); :func:`svg` draws it (hardware/stripboard-p1.svg, written by make_wiring.py).

Example::

    board = layout(["button", "lid", "uno", "sensor", "led", "buzzer"])
    assert problems(board, NETS) == []
"""

from __future__ import annotations

from typing import Any

RAILS = {"3V3": 0, "5V": 1, "GND": 5}
ROWS = 6
PITCH = 24  # pixels per 0.1 inch hole pitch in the drawing

# block -> (role that needs it or "", local nets in rows 2, 3, 4; parts as (ref, terminal nets in leg order);
#           pads as (net, what the wire goes to))
BLOCKS: list[tuple[str, str, tuple[str, ...], list[tuple[str, tuple[str, ...]]], list[tuple[str, str]]]] = [
    (
        "supply",
        "",
        (),
        [],
        [
            ("3V3", "host 3V3 (W2)"),
            ("5V", "host 5V (W2)"),
            ("GND", "host GND (W2)"),
            ("GND", "driver GND (W6)"),
            ("GND", "battery - (W7, R1)"),
        ],
    ),
    (
        "motor",
        "",
        ("MOTOR_PWM", "MOTOR_FWD", "MOTOR_REV"),
        [("R2", ("MOTOR_PWM", "GND")), ("R3", ("MOTOR_FWD", "GND")), ("R4", ("MOTOR_REV", "GND"))],
        [
            ("MOTOR_PWM", "host (W1) / PWMA (W6)"),
            ("MOTOR_FWD", "host (W1) / AIN1, IN1 (W6)"),
            ("MOTOR_REV", "host (W1) / AIN2, IN2 (W6)"),
        ],
    ),
    (
        "interlock",
        "",
        ("STBY",),
        [("R5", ("STBY", "GND"))],
        [("STBY", "driver STBY/nSLEEP (W3)"), ("STBY", "P2 STBY (Pico path: S2 A: NO)"), ("3V3", "S2 A: C")],
    ),
    (
        "deadman",
        "heartbeat",
        ("HEARTBEAT", "STBY_IN"),
        [],
        [
            ("HEARTBEAT", "host (W2)"),
            ("HEARTBEAT", "P2 HEARTBEAT"),
            ("STBY_IN", "S2 A: NO"),
            ("STBY_IN", "P2 STBY_IN"),
            ("GND", "P2 GND"),
        ],
    ),
    (
        "button",
        "button",
        ("BUTTON_RC", "BUTTON"),
        [("R6", ("3V3", "BUTTON_RC")), ("C4", ("BUTTON_RC", "GND")), ("R9", ("BUTTON_RC", "BUTTON"))],
        [("BUTTON_RC", "S1"), ("GND", "S1"), ("BUTTON", "host (W2)")],
    ),
    (
        "lid",
        "lid",
        ("LID_RC", "LID"),
        [("R7", ("3V3", "LID_RC")), ("C5", ("LID_RC", "GND")), ("R10", ("LID_RC", "LID"))],
        [("LID_RC", "S2 B: C"), ("GND", "S2 B: NO"), ("LID", "host (W2)")],
    ),
    (
        "uno",
        "uno",
        ("UNO_RC", "UNO"),
        [("R8", ("3V3", "UNO_RC")), ("C6", ("UNO_RC", "GND")), ("R11", ("UNO_RC", "UNO"))],
        [("UNO_RC", "S3"), ("GND", "S3"), ("UNO", "host (W2)")],
    ),
    (
        "beam",
        "sensor",
        ("D1_A", "SENSOR"),
        [("R12", ("5V", "D1_A")), ("R13", ("3V3", "SENSOR"))],
        [("D1_A", "D1 anode"), ("GND", "D1 cathode, Q3 GND"), ("3V3", "Q3 +"), ("SENSOR", "Q3 OUT, host (W2)")],
    ),
    (
        "led",
        "led",
        ("LED", "D2_A"),
        [("R14", ("LED", "D2_A"))],
        [("LED", "host (W2)"), ("D2_A", "D2 anode"), ("GND", "D2 cathode")],
    ),
    (
        "buzzer",
        "buzzer",
        ("BUZZER", "BZ_LOW", "Q2_BASE"),
        [("R15", ("BUZZER", "Q2_BASE")), ("Q2", ("BZ_LOW", "Q2_BASE", "GND")), ("D3", ("BZ_LOW", "5V"))],
        [("BUZZER", "host (W2)"), ("5V", "BZ1 +"), ("BZ_LOW", "BZ1 -")],
    ),
]
LEGS = {"Q2": ("collector", "base", "emitter")}  # BC547 flat side towards you: C, B, E top to bottom


def layout(roles: list[str]) -> dict[str, Any]:
    """Place every block whose role is fitted (``roles``: the pin map's roles) left to right."""
    parts: list[dict[str, Any]] = []
    pads: list[dict[str, Any]] = []
    segments: list[dict[str, Any]] = []  # (row, first column, last column, net)
    column = 1
    for name, role, local, block_parts, block_pads in BLOCKS:
        if role and role not in roles:
            continue
        rows = {**RAILS, **{net: 2 + i for i, net in enumerate(local)}}
        start = column
        for ref, nets in block_parts:
            parts.append(
                {"ref": ref, "column": column, "rows": [rows[n] for n in nets], "nets": list(nets), "block": name}
            )
            column += 1
        for net, goes in block_pads:
            pads.append({"column": column, "row": rows[net], "net": net, "to": goes, "block": name})
            column += 1
        for net in local:
            segments.append({"row": rows[net], "first": start, "last": column - 1, "net": net})
        column += 1  # one free column: the cut between two blocks
    width = column
    return {
        "parts": parts,
        "pads": pads,
        "segments": segments,
        "width": width,
        "cuts": sorted({(s["row"], s["last"] + 1) for s in segments} | {(s["row"], s["first"] - 1) for s in segments}),
    }


def strip_net(board: dict[str, Any], row: int, column: int) -> str | None:
    """The net of the copper under a hole: a rail, a block's segment, or None (an unused, cut-off piece)."""
    for net, rail in RAILS.items():
        if rail == row:
            return net
    for seg in board["segments"]:
        if seg["row"] == row and seg["first"] <= column <= seg["last"]:
            return str(seg["net"])
    return None


def problems(board: dict[str, Any], nets: dict[str, set[str]]) -> list[str]:
    """Every leg or pad of the layout that is not on its net's copper, per the netlist (``netlist.NETS``)."""
    found = []
    net_of = {term: net for net, terms in nets.items() for term in terms}
    for part in board["parts"]:
        legs = LEGS.get(part["ref"], ("1", "2"))
        if part["rows"] != sorted(part["rows"]) and part["ref"] in LEGS:
            found.append(f"{part['ref']}'s legs are not in order")
        if part["ref"] in LEGS and part["rows"] != list(range(part["rows"][0], part["rows"][0] + len(legs))):
            found.append(f"{part['ref']}'s legs are 0.1 inch apart: its strips must be adjacent")
        for leg, row in zip(legs, part["rows"], strict=True):
            copper = strip_net(board, row, part["column"])
            want = net_of.get(f"{part['ref']}.{leg}")
            if copper != want:
                found.append(f"{part['ref']}.{leg} sits on {copper} but the netlist says {want}")
    for pad in board["pads"]:
        copper = strip_net(board, pad["row"], pad["column"])
        if copper != pad["net"]:
            found.append(f"pad for {pad['to']} sits on {copper}, not {pad['net']}")
    for a in board["segments"]:
        for b in board["segments"]:
            if a is not b and a["row"] == b["row"] and not (a["last"] < b["first"] - 1 or b["last"] < a["first"] - 1):
                found.append(f"segments {a['net']} and {b['net']} on row {a['row']} touch: cut between them")
    return found


def svg(board: dict[str, Any], title: str) -> bytes:
    """The layout as SVG, seen from the component side: strips, cuts (red X), parts, pads with their wires."""
    width = board["width"] * PITCH + 40
    top = 90
    height = top + ROWS * PITCH + 240
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="20" font-size="14">{title}</text>',
        '<text x="10" y="38">Component side; copper strips run left to right under the board. '
        "Red X: cut the strip at that hole (3 mm drill, by hand). Rails: 3V3, 5V, GND.</text>",
    ]

    def xy(column: int, row: int) -> tuple[int, int]:  # a hole's centre
        return 20 + column * PITCH, top + row * PITCH

    for row in range(ROWS):
        x0, y = xy(0, row)
        out.append(f'<rect x="{x0 - 8}" y="{y - 7}" width="{board["width"] * PITCH}" height="14" fill="#f3c98b"/>')
        label = next((net for net, rail in RAILS.items() if rail == row), "")
        out.append(f'<text x="2" y="{y + 4}" font-size="9">{label}</text>')
        for column in range(board["width"]):
            cx, cy = xy(column, row)
            out.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="white" stroke="#996"/>')
    for row, column in board["cuts"]:
        cx, cy = xy(column, row)
        out.append(f'<text x="{cx - 5}" y="{cy + 5}" fill="red" font-size="14">X</text>')
    for seg in board["segments"]:
        cx, cy = xy((seg["first"] + seg["last"]) // 2, seg["row"])
        out.append(f'<text x="{cx - 20}" y="{cy - 8}" font-size="8" fill="#555">{seg["net"]}</text>')
    for part in board["parts"]:
        x, y1 = xy(part["column"], part["rows"][0])
        _, y2 = xy(part["column"], part["rows"][-1])
        colour = "#258" if part["ref"].startswith("R") else "#852"
        out.append(f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}" stroke="{colour}" stroke-width="5"/>')
        for row in part["rows"]:
            cx, cy = xy(part["column"], row)
            out.append(f'<circle cx="{cx}" cy="{cy}" r="4" fill="{colour}"/>')
        out.append(f'<text x="{x - 8}" y="{top - 12}" transform="rotate(-60 {x - 8} {top - 12})">{part["ref"]}</text>')
    for pad in board["pads"]:
        cx, cy = xy(pad["column"], pad["row"])
        out.append(f'<rect x="{cx - 5}" y="{cy - 5}" width="10" height="10" fill="black"/>')
        ly = top + ROWS * PITCH + 10
        out.append(f'<line x1="{cx}" y1="{cy}" x2="{cx}" y2="{ly}" stroke="#aaa" stroke-dasharray="2,2"/>')
        out.append(
            f'<text x="{cx + 3}" y="{ly + 4}" transform="rotate(60 {cx + 3} {ly + 4})">{pad["net"]}: {pad["to"]}</text>'
        )
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()
