"""What BUILD.md shows besides the wiring, generated: how to orient the parts that have a right way round
(``orientation.svg``), where each part goes inside the toy (``inside.svg``) and the symptom table (BUILD.md's
"When something is wrong"). make_wiring.py writes all three.

Example::

    svg = orientation_svg()  # bytes of hardware/orientation.svg
"""

from __future__ import annotations

import re

# ref -> (caption, the package as drawn, its pins left to right or as labelled, the rule to remember)
ORIENTATION: list[tuple[str, str, str, tuple[str, ...], str]] = [
    ("Q1, Q5", "AO3401A P-MOSFET", "sot23", ("1 G", "2 S", "3 D"), "marking up: pin 3 (D) alone"),
    ("Q4", "AO3400A N-MOSFET", "sot23", ("1 G", "2 S", "3 D"), "same package, same pins"),
    ("Q2", "BC547B NPN", "to92", ("C", "B", "E"), "flat face (printed) to you, legs down"),
    ("D1, D2", "LED / IR LED", "led", ("A +", "K -"), "long leg = A; flat rim = K"),
    ("C1", "470 uF electrolytic", "elko", ("+", "-"), "stripe = minus (GND), long leg = plus"),
    ("D3, D4, D5", "1N4148 / BAT85", "diode", ("A", "K"), "band = cathode"),
    ("Q3", "IR receiver", "receiver", ("+", "GND", "OUT"), "pins as printed on its board or wires"),
]

# where each part goes: (label, x, y, w, h) in a 600 x 380 top view of the open toy
INSIDE: list[tuple[str, int, int, int, int]] = [
    ("card exit slot: D1 on one side, Q3 facing it", 40, 20, 520, 40),
    ("card wheel + M1 (C3 on its terminals)", 200, 80, 200, 90),
    ("magazine", 420, 80, 140, 150),
    ("S1 fire button (top shell)", 40, 80, 140, 60),
    ("S2 lid switches A + B (at the lid's edge)", 40, 160, 140, 60),
    ("U1 driver + C1, C2", 200, 190, 120, 70),
    ("P1 stripboard", 330, 250, 120, 60),
    ("P2 dead-man (Pi)", 460, 250, 100, 60),
    ("BT1 3 x C under the floor; SW1, F1, Q1 in its + lead", 40, 240, 280, 70),
    ("D2 LED + BZ1 buzzer (shell)", 40, 320, 280, 40),
    ("to the host: Pi header / Pico USB", 330, 320, 230, 40),
]


def _header(width: int, height: int, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="20" font-size="14">{title}</text>',
    ]


def _package(kind: str, x: int, y: int, pins: tuple[str, ...]) -> list[str]:
    """One package at (x, y), its pins labelled."""
    out: list[str] = []
    if kind == "sot23":  # top view: pin 3 alone on top, pins 1 and 2 below
        out.append(f'<rect x="{x}" y="{y + 20}" width="40" height="24" fill="#333"/>')
        out.append(f'<text x="{x + 6}" y="{y + 36}" fill="white" font-size="9">A1xx</text>')
        for px, py, label in ((x + 20, y + 8, pins[2]), (x + 8, y + 56, pins[0]), (x + 32, y + 56, pins[1])):
            out.append(f'<rect x="{px - 3}" y="{py}" width="6" height="10" fill="#999"/>')
            out.append(f'<text x="{px - 8}" y="{py - 2 if py < y + 20 else py + 22}">{label}</text>')
    elif kind == "to92":  # flat face towards the reader
        out.append(
            f'<path d="M{x} {y + 40} L{x} {y + 10} A22 22 0 0 1 {x + 44} {y + 10} L{x + 44} {y + 40} Z" fill="#333"/>'
        )
        for i, label in enumerate(pins):
            px = x + 8 + 14 * i
            out.append(f'<line x1="{px}" y1="{y + 40}" x2="{px}" y2="{y + 70}" stroke="#999" stroke-width="3"/>')
            out.append(f'<text x="{px - 4}" y="{y + 84}">{label}</text>')
    elif kind in ("led", "elko"):
        colour = "#c33" if kind == "led" else "#236"
        out.append(f'<rect x="{x + 6}" y="{y}" width="32" height="36" rx="14" fill="{colour}"/>')
        if kind == "elko":
            out.append(f'<rect x="{x + 28}" y="{y}" width="8" height="36" fill="#ddd"/>')
            out.append(f'<text x="{x + 29}" y="{y + 22}" font-size="10">-</text>')
        else:
            out.append(f'<line x1="{x + 34}" y1="{y + 2}" x2="{x + 34}" y2="{y + 34}" stroke="white"/>')
        out.append(f'<line x1="{x + 14}" y1="{y + 36}" x2="{x + 14}" y2="{y + 76}" stroke="#999" stroke-width="3"/>')
        out.append(f'<line x1="{x + 30}" y1="{y + 36}" x2="{x + 30}" y2="{y + 62}" stroke="#999" stroke-width="3"/>')
        out.append(f'<text x="{x + 2}" y="{y + 90}">{pins[0]}</text>')
        out.append(f'<text x="{x + 26}" y="{y + 76}">{pins[1]}</text>')
    elif kind == "diode":
        out.append(f'<line x1="{x - 10}" y1="{y + 30}" x2="{x + 54}" y2="{y + 30}" stroke="#999" stroke-width="3"/>')
        out.append(f'<rect x="{x + 4}" y="{y + 20}" width="36" height="20" fill="#d84"/>')
        out.append(f'<rect x="{x + 32}" y="{y + 20}" width="6" height="20" fill="#222"/>')
        out.append(f'<text x="{x - 10}" y="{y + 56}">{pins[0]}</text>')
        out.append(f'<text x="{x + 44}" y="{y + 56}">{pins[1]}</text>')
    else:  # a module with labelled pins
        out.append(f'<rect x="{x}" y="{y + 10}" width="48" height="30" fill="#264"/>')
        for i, label in enumerate(pins):
            px = x + 8 + 16 * i
            out.append(f'<line x1="{px}" y1="{y + 40}" x2="{px}" y2="{y + 64}" stroke="#999" stroke-width="3"/>')
            out.append(f'<text x="{px - 6}" y="{y + 78 + 10 * (i % 2)}" font-size="9">{label}</text>')
    return out


def orientation_svg() -> bytes:
    width = 200 * 4 + 20
    height = 2 * 170 + 40
    out = _header(width, height, "Which way round (generated by hardware/make_wiring.py from hardware/pictures.py)")
    for i, (refs, name, kind, pins, rule) in enumerate(ORIENTATION):
        x, y = 30 + 200 * (i % 4), 50 + 170 * (i // 4)
        out += _package(kind, x + 40, y + 10, pins)
        out.append(f'<text x="{x}" y="{y + 120}" font-weight="bold">{refs}: {name}</text>')
        out.append(f'<text x="{x}" y="{y + 136}" font-size="10">{rule}</text>')
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()


# What the inside picture is, said on the picture itself: a block drawing, not a photo of a real toy.
INSIDE_NOTE = (
    "A DRAWING, NOT A PHOTO: blocks in the order BUILD.md names the toy's parts; no toy was opened or measured",
    "for it, so positions and sizes are indicative only. A photo of a real toy's inside is still open (issue 28).",
)


def inside_svg() -> bytes:
    out = _header(620, 440, "Inside the toy, top view with the lid open: where each part goes (drawing)")
    for label, x, y, w, h in INSIDE:
        out.append(f'<rect x="{x + 10}" y="{y + 20}" width="{w}" height="{h}" fill="#eef" stroke="#557"/>')
        out.append(f'<text x="{x + 16}" y="{y + 36}" font-size="10">{label}</text>')
    for i, line in enumerate(INSIDE_NOTE):
        out.append(f'<text x="10" y="{408 + 14 * i}" font-size="10" fill="#a00">{line}</text>')
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()


# The symptom table of BUILD.md ("When something is wrong"): (symptom, likely cause, what to do). make_wiring.py
# writes it between BUILD.md's markers and refuses a part reference that parts.toml does not have, so it cannot
# name a part that was renamed or removed.
SYMPTOMS: list[tuple[str, str, str]] = [
    (
        "Motor hums but does not turn",
        "stall current above what the driver gives (VM dips, the driver limits or cuts out), or the wheel jammed",
        "measure R (§4) and check the stall-current table in README.md; parallel the channels; check "
        "VM's dip (§5 step 6); clear the jam",
    ),
    (
        "Motor starts, then stops or stutters as the cells run down (DRV8833)",
        "VM dips below the module's undervoltage cut-out at motor start",
        "measure the dip (§5 step 6) against your module's cut-out (§5 step 4); fresh cells, thicker "
        "and shorter battery wires, C1 at VM",
    ),
    (
        "Wheel runs backwards (retracts when it should eject)",
        "motor leads swapped",
        "swap the two wires at AO1/AO2 (AOUT1/AOUT2); nothing else",
    ),
    (
        "Cards leave but are not counted",
        "beam misaligned, receiver in daylight, or R13 missing",
        "selftest's `pin sensor` line; check the IR LED with a phone camera (it glows purple), "
        "re-align D1 and Q3, shade the receiver",
    ),
    (
        "A card does not break the beam",
        "the beam crosses where the card does not pass (too high, too low, or beside the slot) or the"
        " card is thin enough for IR to get through at that distance",
        "move emitter and receiver so the beam crosses the middle of the slot, just inside it; hold a"
        " card in the slot and check the beam input reads below 0.5 V (§4); a tube of black "
        "heat-shrink on the receiver narrows what it sees",
    ),
    (
        "The beam input reads above 3.4 V",
        "the receiver Q3 is powered from 5 V, or R13 goes to 5 V: 5 V reaches a 3.3 V GPIO",
        'host off at once; Q3\'s + wire and R13 to 3.3 V only (§4, "Beam parts")',
    ),
    (
        "Host reboots or the Pico resets when the motor starts (brown-out)",
        "the motor's start current shares a wire with the host's supply, or the host is powered from the motor cells",
        "one ground joined at the driver only (§3); the host on its own supply; C1 at the driver",
    ),
    (
        "Motor twitches while the Pi boots",
        "a missing pull-down (R2–R4), or an output on GPIO 0–8",
        "`unolauncher selftest` pull-down lines; the pin map",
    ),
    (
        "Motor never runs, selftest motor FAIL with the lid shut",
        "STBY/nSLEEP low: interlock pole A miswired, or R5 to the wrong pin",
        "§4: STBY reads 3.3 V with the lid shut",
    ),
    (
        "The 3V3 wire reads a voltage with the host unplugged",
        'the battery reaches the 3.3 V net (DRV8833 "VCC" wired to 3.3 V, or its EEP pull-up)',
        "batteries out at once; §3 and §4",
    ),
]


REF = re.compile(r"\b(?:BT|BZ|SW|[CDFMPQRSU])\d+[AB]?\b")


def symptom_table(refs: set[str]) -> str:
    """The Markdown table of :data:`SYMPTOMS`; every part reference in it must be one of ``refs``."""
    unknown = sorted({ref for row in SYMPTOMS for ref in REF.findall(" ".join(row))} - refs)
    if unknown:
        raise SystemExit(f"the symptom table names parts that parts.toml lacks: {', '.join(unknown)}")
    out = ["| Symptom | Likely cause | What to do |", "|---|---|---|"]
    out += [f"| {symptom} | {cause} | {fix} |" for symptom, cause, fix in SYMPTOMS]
    return "\n".join(out)
