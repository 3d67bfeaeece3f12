"""The schematics (schemdraw): one drawing per path, the hardware dead-man on the Pi path. hardware/netlist.py
checks the drawing's coordinates against the netlist."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wiring_data import HOST_NAME, ROLES, SUPPLY, gpio_name, host_pin


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
    ic_pins += [
        elm.IcPin(name="GND", side="bottom"),
        elm.IcPin(name="AO2", side="right", slot="2/3"),
        elm.IcPin(name="AO1", side="right", slot="3/3"),
    ]
    u1 = d.add(
        elm.Ic(pins=ic_pins, pinspacing=1.0, edgepadW=1.8, edgepadH=0.6)
        .right()
        .at((30, 11))
        .label(ref("U1", "TB6612FNG"), loc="top")
    )
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
    host_pins = [
        elm.IcPin(name=f"{label} ({num})", anchorname=net, side="right") for net, (label, num) in SUPPLY[path].items()
    ]
    host_pins += [
        elm.IcPin(
            name=f"{gpio_name(path, gpio).replace(' ', '')} ({host_pin(path, gpio)})", anchorname=role, side="right"
        )
        for role, gpio in pins.items()
    ]
    a1 = d.add(
        elm.Ic(pins=list(reversed(host_pins)), pinspacing=0.9, edgepadW=3.6, edgepadH=0.6)
        .right()
        .at((2, -3.8))
        .label(ref("A1", host), loc="left")
    )
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
    switches = [
        ("button", "S1", "fire", "R6", "R9", "C4"),
        ("lid", "S2", "B: lid", "R7", "R10", "C5"),
        ("uno", "S3", "UNO", "R8", "R11", "C6"),
    ]
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
    q3 = d.add(
        elm.NpnPhoto().anchor("collector").at(rx.center).label(ref("Q3", "IR receiver\n(open collector)"), loc="left")
    )
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


def deadman(
    d: Any,
    ref: Callable[..., str],
    tag: Callable[[str], Any],
    flag: Callable[..., None],
    title: Callable[[float, float, str], None],
) -> None:
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
    d4 = d.add(
        elm.Diode()
        .up()
        .at((pump.center[0], pump.center[1] - 2.5))
        .to(pump.center)
        .label(ref("D4", "BAT85"), loc="bottom")
    )  # anode at GND, cathode (the band) at the pump node
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
