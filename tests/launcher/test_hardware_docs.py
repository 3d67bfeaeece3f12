"""hardware/: the README's tables, the schematics and the harness drawings are what make_wiring.py generates from
pins.toml and parts.toml; the firmware's pins and the daemon's defaults are the same maps; every part of the parts
list is drawn, and nothing else."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from support.binaries import require_binary
from unolauncher.launcher.pins import DEFAULT_PINS, HEADER_PIN

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"
PINS = tomllib.loads((HARDWARE / "pins.toml").read_text())


def generator() -> Any:
    """hardware/make_wiring.py loaded from its path (a script, not a package; mypy checks the file itself)."""
    spec = importlib.util.spec_from_file_location("make_wiring", HARDWARE / "make_wiring.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def firmware_pins() -> dict[str, int]:
    """``PINS`` of firmware/unofw/rp2040.py, read without importing MicroPython's ``machine``."""
    tree = ast.parse((ROOT / "firmware" / "unofw" / "rp2040.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PINS" for t in node.targets):
            value: dict[str, int] = ast.literal_eval(node.value)
            return value
    raise AssertionError("rp2040.py has no PINS")


def readme_rows(pattern: str) -> list[tuple[str, ...]]:
    return re.findall(pattern, (HARDWARE / "README.md").read_text(), flags=re.M)


def test_readme_pi_table_matches_pins_toml_and_the_daemon() -> None:
    rows = readme_rows(r"^\| [^|]+ \| `(\w+)` \| GPIO (\d+) \| (\d+) \|")
    assert {role: int(gpio) for role, gpio, _ in rows} == PINS["pins"]
    assert all(HEADER_PIN[int(gpio)] == int(header) for _, gpio, header in rows)
    known = [role for role, _ in DEFAULT_PINS.items()]
    # heartbeat (the dead-man, TEAM interface): its software side (DEFAULT_PINS) is the motor branch's
    assert [role for role, _, _ in rows if role in known] == known
    assert {role for role, _, _ in rows} - set(known) <= {"heartbeat"}


def test_readme_pico_table_matches_pins_toml_and_the_firmware() -> None:
    module = generator()
    rows = readme_rows(r"^\| [^|]+ \| `(\w+)` \| GP(\d+) \| (\d+) \|")
    assert {role: int(gp) for role, gp, _ in rows} == PINS["pico"] == firmware_pins()
    assert all(module.PICO_PIN[int(gp)] == int(pin) for _, gp, pin in rows)
    assert not set(PINS["pico"].values()) & {23, 24, 25, 29}  # the Pico W's Wi-Fi pins


def test_readme_jig_table_matches_pins_toml() -> None:
    rows = readme_rows(r"^\| GPIO (\d+) \| GPIO (\d+) \(`(\w+)`\) \|")
    assert {role: int(jig) for jig, _, role in rows} == PINS["jig"]
    assert all(PINS["pins"][role] == int(target) for _, target, role in rows)


def test_each_driver_table_names_every_host_pin_it_uses() -> None:
    readme = (HARDWARE / "README.md").read_text()
    for name, marker in (("TB6612FNG", "tb6612"), ("DRV8833", "drv8833")):
        table = readme.split(f"<!-- generated: {marker} ")[1].split(f"<!-- end: {marker} -->")[0]
        assert f"GPIO {PINS['pins']['motor_forward']} (pin {HEADER_PIN[PINS['pins']['motor_forward']]})" in table
        assert f"GP{PINS['pico']['motor_reverse']} (pin " in table, name
    drv = readme.split("<!-- generated: drv8833 ")[1].split("<!-- end: drv8833 -->")[0]
    assert "never the host's 3.3 V" in drv and "Never PWM here" in drv


def test_pins_toml_does_not_promise_hardware_pwm_on_the_pi() -> None:
    text = (HARDWARE / "pins.toml").read_text()
    assert "hardware PWM0" not in text
    assert "PWM in software (lgpio)" in text


def test_readme_tables_are_current() -> None:
    module = generator()
    maps, parts = module.load()
    readme = (HARDWARE / "README.md").read_text()
    assert module.readme_with_tables(readme, module.blocks(maps, parts)) == readme, "run python hardware/make_wiring.py"


@pytest.mark.parametrize("path", ["pi", "pico"])
def test_schematic_is_current_and_draws_every_part_of_the_list(path: str) -> None:
    pytest.importorskip("schemdraw", reason="schemdraw is in the test extras (pip install -e .[test])")
    module = generator()
    maps, parts = module.load()
    svg, drawn = module.schematic(path, maps[path])
    assert svg == (HARDWARE / f"schematic-{path}.svg").read_bytes(), "run python hardware/make_wiring.py"
    assert drawn == module.refs_for(parts, path)
    texts = " ".join(module.svg_texts(svg))
    for role, gpio in maps[path].items():
        assert f"{module.gpio_name(path, gpio).replace(' ', '')} ({module.host_pin(path, gpio)})" in texts, role
        assert module.ROLES[role][2] in texts
    for ref in drawn:
        assert re.search(rf"\b{ref}\b", texts), ref
    for must in ("VM", "STBY", "3V3", "5V", "GND", "470µ 10V", "100n 50V", "220Ω 17mA"):
        assert must in texts, must


@pytest.mark.parametrize("driver", ["tb6612", "drv8833"])
@pytest.mark.parametrize("path", ["pi", "pico"])
def test_harness_source_and_drawing_are_current(path: str, driver: str) -> None:
    pytest.importorskip("wireviz", reason="WireViz is in the test extras (pip install -e .[test])")
    module = generator()
    maps, _ = module.load()
    name = module.harness_name(path, driver)
    yaml_text = module.harness_yaml(path, maps[path], driver)
    assert yaml_text == (HARDWARE / f"{name}.yml").read_text(), "run python hardware/make_wiring.py"
    require_binary("dot")
    committed = module.svg_texts((HARDWARE / f"{name}.svg").read_bytes())
    assert module.svg_texts(module.harness_svg(yaml_text)) == committed, "run python hardware/make_wiring.py"
    for role, gpio in maps[path].items():
        assert f"{module.gpio_name(path, gpio).replace(' ', '')}" in committed, role
        assert str(module.host_pin(path, gpio)) in committed, role


def test_check_mode_catches_a_changed_pin(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(HARDWARE / "make_wiring.py"), "--check", "--tables"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    module = generator()
    pins = tmp_path / "pins.toml"
    pins.write_text((HARDWARE / "pins.toml").read_text().replace("button = 17 ", "button = 5  "))
    module.PINS_FILE = pins
    assert module.main(["--check", "--tables"]) == 1
    readme = tmp_path / "README.md"
    shutil.copy(HARDWARE / "README.md", readme)
    module.README = readme
    assert module.main(["--tables"]) == 0  # regenerated: now it is current
    assert "| Launcher button | `button` | GPIO 5 | 29 |" in readme.read_text()
    assert module.main(["--check", "--tables"]) == 0


@pytest.mark.parametrize("path", ["pi", "pico"])
def test_the_drv8833_harness_never_wires_3v3_to_the_driver_and_warns_on_vm(path: str) -> None:
    """Issue 28 (high): on DRV8833 modules the pin labelled VCC is VM. Its harness has no wire from any 3.3 V
    point to U1, its VM pin (the battery's wire) says so, and the TB6612FNG harness still feeds its VCC."""
    module = generator()
    maps, _ = module.load()
    for driver in ("tb6612", "drv8833"):
        wires = module.harness_wires(module.harness_source(path, maps[path], driver))
        to_driver = {end for wire in wires for end in wire if any(e.startswith("U1:") for e in wire)}
        three_v3 = {end for end in to_driver if end.endswith(":3V3") or end.endswith(":3V3(OUT)")}
        if driver == "tb6612":
            assert ("P1:3V3", "U1:VCC") in wires
            continue
        assert not three_v3, f"a 3.3 V wire reaches the DRV8833: {sorted(three_v3)}"
        vm = [wire for wire in wires if f"U1:{module.DRV8833_VM_WARNING}" in wire]
        assert vm == [("Q1:S (pin 2)", f"U1:{module.DRV8833_VM_WARNING}")]  # the battery, after SW1, F1, Q1
        assert "VCC" in module.DRV8833_VM_WARNING and "never 3V3" in module.DRV8833_VM_WARNING
        texts = " ".join(module.svg_texts((HARDWARE / f"{module.harness_name(path, driver)}.svg").read_bytes()))
        assert module.DRV8833_VM_WARNING in texts


def test_build_guide_tests_reverse_polarity_without_driver_or_c1_and_checks_vm_against_3v3() -> None:
    build = (HARDWARE / "BUILD.md").read_text()
    reverse = build.split("**Reverse-polarity test of Q1")[1].split("## 5.")[0]
    assert "U1 and C1 unplugged" in reverse and "1 kΩ" in reverse and "swapped" in reverse
    assert "reversed for a moment" not in build  # the old test with the driver and C1 in circuit
    assert "gate is not at GND" in build  # a 0.6 V drop is the body diode: the gate is not pulled to GND
    assert "pin 3, the **drain (D)**" in build and "**gate (G)**" in build and "**source (S)**" in build
    rows = (
        "| VM and the 3V3 wire | no beep |",
        "| VM and the 5V wire | no beep |",
        "| 3V3 wire (host not connected) | 0 V |",
    )
    for row in rows:
        assert row in build, row


def netlist() -> Any:
    """hardware/netlist.py loaded from its path (a script beside make_wiring.py)."""
    spec = importlib.util.spec_from_file_location("netlist", HARDWARE / "netlist.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def host_nets(module: Any, path: str, pins: dict[str, int]) -> dict[str, str]:
    nets = {label: netlist().SUPPLY_NETS[net] for net, (label, _) in module.SUPPLY[path].items()}
    nets.update({module.gpio_name(path, gpio).replace(" ", ""): module.ROLES[role][2] for role, gpio in pins.items()})
    return nets


@pytest.mark.parametrize("path", ["pi", "pico"])
def test_every_schematic_wire_ends_where_the_netlist_says(path: str) -> None:
    """Issue 28 item 11: the drawing's geometry (wires, pins, flags) joins exactly the netlist's terminals."""
    pytest.importorskip("schemdraw", reason="schemdraw is in the test extras (pip install -e .[test])")
    module, nets = generator(), netlist()
    maps, _ = module.load()
    roles = {role: data[2] for role, data in module.ROLES.items()}
    drawing, _ = module.schematic_drawing(path, maps[path])
    assert nets.schematic_problems(drawing, roles, maps[path]) == []


def test_the_connectivity_check_catches_a_wire_that_stops_short_of_a_pin() -> None:
    """The AO2 offset wire of issue 28: the motor's lower lead 0.22 below U1's AO2 pin must be reported."""
    pytest.importorskip("schemdraw", reason="schemdraw is in the test extras (pip install -e .[test])")
    module, nets = generator(), netlist()
    maps, _ = module.load()
    roles = {role: data[2] for role, data in module.ROLES.items()}
    drawing, _ = module.schematic_drawing("pi", maps["pi"])
    ao2 = next(e for e in drawing.elements if type(e).__name__ == "Ic" and "U1" in str(e._userlabels[0].label))
    pin = ao2.absanchors["AO2"]
    wire = next(
        e
        for e in drawing.elements
        if type(e).__name__ == "Line"
        and tuple(round(v, 2) for v in e.absanchors["start"]) == tuple(round(v, 2) for v in pin)
    )
    wire.absanchors["start"] = (pin[0], pin[1] - 0.22)
    wire.absanchors["end"] = (wire.absanchors["end"][0], wire.absanchors["end"][1] - 0.22)
    problems = nets.schematic_problems(drawing, roles, maps["pi"])
    assert any("MOTOR_B is drawn in pieces" in p and "U1.AO2" in p for p in problems), problems


@pytest.mark.parametrize("driver", ["tb6612", "drv8833"])
@pytest.mark.parametrize("path", ["pi", "pico"])
def test_every_harness_wire_joins_one_net(path: str, driver: str) -> None:
    module, nets = generator(), netlist()
    maps, _ = module.load()
    source = module.harness_source(path, maps[path], driver)
    net_of = nets.harness_net_of(source, host_nets(module, path, maps[path]))
    assert nets.harness_problems(module.harness_wires(source), net_of) == []
    # and the check can fail: two motor lines swapped between the host and P1
    w1 = source["connections"][0]
    w1[2]["P1"][1], w1[2]["P1"][2] = w1[2]["P1"][2], w1[2]["P1"][1]
    problems = nets.harness_problems(module.harness_wires(source), net_of)
    assert len(problems) == 2 and all("joins MOTOR_" in p for p in problems), problems


@pytest.mark.parametrize("driver", ["tb6612", "drv8833"])
def test_the_pull_downs_sit_on_p1_between_the_host_and_the_driver(driver: str) -> None:
    """Issue 28 item 3: R2-R4 are P1 parts (parts list, harness notes), and the motor lines reach the driver only
    through P1 (no wire from the host straight to U1's inputs)."""
    module = generator()
    maps, parts = module.load()
    for path in ("pi", "pico"):
        assert {"R2", "R3", "R4"} <= set(module.on_board(parts, path))
        source = module.harness_source(path, maps[path], driver)
        assert source["connectors"]["P1"]["notes"].startswith("Parts on P1: ")
        assert "R2, R3, R4" in source["connectors"]["P1"]["notes"]
        wires = module.harness_wires(source)
        assert not [w for w in wires if w[0].startswith("A1:") and w[1].startswith("U1:") and "GND" not in w[0]]
        assert ("P1:MOTOR_FWD", "U1:" + ("AIN1" if driver == "tb6612" else "IN1")) in wires
        assert (f"A1:{module.gpio_name(path, maps[path]['motor_enable']).replace(' ', '')}", "P1:MOTOR_PWM") in wires
    assert all(part["place"] for part in parts)
    bom = (HARDWARE / "README.md").read_text().split("<!-- generated: bom ")[1]
    assert "| R2, R3, R4 | 3 | Resistor | 10 kOhm | metal-film resistor 10 kOhm, 1/4 W, 1 % | P1 |" in bom


def test_the_stall_table_is_the_cells_voltage_over_the_motors_resistance() -> None:
    """Issue 28 item 6: stall current = 4.8 V / R against each driver's continuous, peak and parallel limits."""
    module = generator()
    table = (HARDWARE / "README.md").read_text().split("<!-- generated: stall ")[1].split("<!-- end: stall -->")[0]
    rows = re.findall(r"^\| ([\d.]+) Ω \| ([\d.]+) A \| ([^|]+) \| ([^|]+) \|$", table, flags=re.M)
    assert [float(r[0]) for r in rows] == list(module.MOTOR_OHMS)
    for ohms, amps, tb, drv in rows:
        assert abs(float(amps) - 4.8 / float(ohms)) < 0.006
        assert (tb.strip() == "fine") == (float(amps) <= 1.2)  # TB6612FNG: 1.2 A average per channel
        assert (drv.strip() == "fine") == (float(amps) <= 1.5)  # DRV8833: 1.5 A RMS per bridge
    assert module.stall_verdict(2.4, 1.5, 2.0, 3.0) == "parallel the two channels"
    assert module.stall_verdict(3.2, 1.5, 2.0, 3.0).startswith("too weak")


def test_build_guide_has_the_first_spin_the_eep_check_the_vm_dip_and_a_symptom_table() -> None:
    build = (HARDWARE / "BUILD.md").read_text()
    assert "bench supply set to 4.5 V with a 0.5–1 A current limit" in build and "4.7 Ω 5 W" in build
    assert "remove its EEP pull-up first" in build
    assert "MIN/MAX" in build and "the minimum must stay above 3.3 V" in build
    symptoms = build.split("## When something is wrong: symptoms")[1].split("## 6.")[0]
    for symptom in ("Motor hums", "runs backwards", "not counted", "does not break the beam", "brown-out"):
        assert symptom in symptoms, symptom
    assert "keep R2" in build
    parts = tomllib.loads((HARDWARE / "parts.toml").read_text())["part"]
    battery = next(p for p in parts if p["refs"] == ["BT1"])
    assert "3 x C" in battery["part"] and "AA" not in (HARDWARE / "README.md").read_text()
    fuse = next(p for p in parts if p["refs"] == ["F1"])
    assert "not stall protection" in fuse["notes"]


@pytest.mark.parametrize("driver", ["tb6612", "drv8833"])
def test_the_harness_draws_every_off_board_part_and_the_power_chain(driver: str) -> None:
    """Issue 28 item 4: S1, S2 (both poles), S3, the beam's emitter and receiver, the LED, the buzzer and the power
    chain (SW1, F1, Q1 with R1) are connectors of the harness drawing, wired to their nets (checked above)."""
    module = generator()
    maps, parts = module.load()
    off = {ref for part in parts for ref in part["refs"] if part["place"] in ("off-board", "lid", "beam", "power lead")}
    assert off == {"S1", "S2", "S3", "D1", "Q3", "D2", "BZ1", "SW1", "F1", "Q1", "R1"}
    for path in ("pi", "pico"):
        source = module.harness_source(path, maps[path], driver)
        assert off <= set(source["connectors"]), off - set(source["connectors"])
        wires = module.harness_wires(source)
        chain = [("BT1:+", "SW1:1"), ("F1:1", "SW1:2"), ("F1:2", "Q1:D (pin 3)"), ("Q1:G (pin 1)", "R1:1")]
        assert all(w in wires for w in chain), wires
        interlock = "P1:STBY_IN" if path == "pi" else "P1:STBY"  # the dead-man (Pi) sits between S2A and STBY
        assert (interlock, "S2:A: NO") in wires and ("P1:LID_RC", "S2:B: C") in wires


def test_the_stripboard_layout_of_p1_matches_the_netlist_and_the_check_can_fail() -> None:
    """Issue 28 item 4: P1's stripboard layout is generated and every leg, pad and cut is checked against the
    netlist: a missing cut (two segments touching) and a transistor across non-adjacent strips are reported."""
    module, nets = generator(), netlist()
    board = module.sibling("stripboard")
    maps, parts = module.load()
    layout = board.layout(list(maps["pi"]))
    assert board.problems(layout, nets.NETS) == []
    assert {p["ref"] for p in layout["parts"]} == set(module.on_board(parts, "pi"))  # every P1 part, nothing else
    assert (HARDWARE / "stripboard-p1.svg").read_bytes() == module.stripboard_svg(maps["pi"])
    broken = board.layout(list(maps["pi"]))
    first = broken["segments"][0]
    nxt = next(s for s in broken["segments"] if s["row"] == first["row"] and s["first"] > first["last"])
    first["last"] = nxt["first"] - 1  # the cut between them forgotten
    assert any("touch: cut between them" in p for p in board.problems(broken, nets.NETS))
    q2 = next(p for p in broken["parts"] if p["ref"] == "Q2")
    q2["rows"] = [2, 4, 5]
    assert any("Q2's legs are 0.1 inch apart" in p for p in board.problems(broken, nets.NETS))


def test_the_dead_man_is_drawn_listed_and_wired_on_the_pi_path_only() -> None:
    """Issue 28 item 9 (hardware side): the heartbeat pin of TEAM.md's interface, the charge pump and Q5 in the
    STBY line in the Pi schematic (checked against the netlist above), P2 in the harness and the BOM."""
    module = generator()
    maps, parts = module.load()
    line = (
        "heartbeat = 4      # dead-man heartbeat to the driver's enable gate: a square wave while the daemon "
        "lives (hardware/README.md)"
    )
    assert line in (HARDWARE / "pins.toml").read_text().splitlines()
    assert "heartbeat" in maps["pi"] and "heartbeat" not in maps["pico"]
    deadman = {"C7", "C8", "D4", "D5", "R16", "R17", "Q4", "Q5"}
    assert set(module.on_board(parts, "pi", "P2")) == deadman and not module.on_board(parts, "pico", "P2")
    pi, pico = (module.harness_source(path, maps[path]) for path in ("pi", "pico"))
    assert "P2" in pi["connectors"] and "P2" not in pico["connectors"]
    assert ("P1:STBY", "P2:STBY") in module.harness_wires(pi)
    svg = " ".join(module.svg_texts((HARDWARE / "schematic-pi.svg").read_bytes()))
    assert "HEARTBEAT" in svg and "STBY_IN" in svg
    assert "HEARTBEAT" not in " ".join(module.svg_texts((HARDWARE / "schematic-pico.svg").read_bytes()))


def test_p1_has_the_same_pads_in_the_same_order_on_both_paths_and_u1_pins_go_by_name() -> None:
    """Issue 28 item 16: one P1 for both paths (the Pi's dead-man pads come last); U1's pins are named as printed,
    not numbered 1-9 as on no real breakout."""
    module = generator()
    maps, _ = module.load()
    for driver in ("tb6612", "drv8833"):
        pi, pico = (module.harness_source(path, maps[path], driver) for path in ("pi", "pico"))
        pads_pi, pads_pico = pi["connectors"]["P1"]["pinlabels"], pico["connectors"]["P1"]["pinlabels"]
        assert pads_pi[: len(pads_pico)] == pads_pico and pads_pi[len(pads_pico) :] == ["HEARTBEAT", "STBY_IN"]
        assert "pinlabels" not in pi["connectors"]["U1"] and "AO1" in str(pi["connectors"]["U1"]["pins"]) + "AO1"
        assert all(isinstance(pin, str) for pin in pi["connectors"]["U1"]["pins"])


def test_the_bom_is_orderable_and_is_the_parts_table() -> None:
    """Issue 28 item 13: every part of parts.toml is in the README's BOM with what to order (real breakouts, a
    lid switch that exists, the beam pair said to be a pair, one transistor with its pinout), and the things no
    drawing shows (stripboard, headers, wire, heat-shrink, SOT-23 adapters, supply, cable) are listed too."""
    module = generator()
    _, parts = module.load()
    bom = (HARDWARE / "README.md").read_text().split("<!-- generated: bom ")[1].split("<!-- end: bom -->")[0]
    rows = re.findall(r"^\| ([A-Z][A-Z0-9, ]*) \| (\d+) \| ([^|]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \|", bom, re.M)
    assert [(r[0], int(r[1])) for r in rows] == [(", ".join(p["refs"]), len(p["refs"])) for p in parts]
    for part in parts:
        assert part["order"].strip() and part["order"] in bom, part["refs"]
    order = {", ".join(p["refs"]): p["order"] for p in parts}
    for name in ("ROB-14451", "2448", "713", "3297"):
        assert name in order["U1"]
    assert "SS-01GL" in order["S2"] and "sold singly" in order["S2"]  # the micro-load model (README, Datasheet facts)
    assert "sold as a pair" in order["D1"]
    assert order["Q2"].startswith("BC547B") and "C, B, E" in order["Q2"]
    assert "2N2222" not in bom  # two transistors with different pinouts was a trap
    supplies = " ".join(s["item"] for s in module.supplies())
    for item in (
        "Stripboard",
        "pin headers",
        "Dupont",
        "0.14 mm2",
        "0.5 mm2",
        "Heat-shrink",
        "SOT-23 to DIP",
        "power supply",
        "USB data cable",
    ):
        assert item in supplies and item in bom, item


def test_the_orientation_and_inside_pictures_are_current_and_name_real_parts() -> None:
    """Issue 28 item 17: generated pictures (orientation of every polarised part, the toy's inside); each ref they
    name is a part of parts.toml, and every polarised part of the list has its picture."""
    module = generator()
    pictures = module.sibling("pictures")
    _, parts = module.load()
    assert (HARDWARE / "orientation.svg").read_bytes() == pictures.orientation_svg()
    assert (HARDWARE / "inside.svg").read_bytes() == pictures.inside_svg()
    refs = {ref for part in parts for ref in part["refs"]}
    shown = {ref.strip() for refs_text, *_ in pictures.ORIENTATION for ref in refs_text.split(",")}
    assert shown <= refs and {"Q1", "Q2", "Q4", "Q5", "D1", "D2", "D3", "D4", "D5", "C1", "Q3"} <= shown
    inside = " ".join(label for label, *_ in pictures.INSIDE)
    for ref in ("D1", "Q3", "M1", "S1", "S2", "U1", "P1", "P2", "BT1", "SW1", "F1", "Q1", "D2", "BZ1"):
        assert re.search(rf"\b{ref}\b", inside), ref
    # Honest about what it is: a block drawing, no toy measured; the photo item stays open in the picture itself.
    texts = " ".join(module.svg_texts((HARDWARE / "inside.svg").read_bytes()))
    assert "A DRAWING, NOT A PHOTO" in texts and "still open" in texts


def test_part_facts_no_vendor_text_gave_are_measured_in_the_build_guide_with_limits() -> None:
    """Issue 28: Adafruit 2167's emitter resistor / receiver pull-up and the DRV8833's cut-out were found in no
    datasheet. No fact may stay "unverified": each is either cited or a BUILD.md measurement with pass limits, and
    the limits follow from the parts table (5 V, D1's 1.2 V, R12)."""
    readme = (HARDWARE / "README.md").read_text()
    build = (HARDWARE / "BUILD.md").read_text()
    facts = readme.split("## Datasheet facts used here")[1].split("## Bill of materials")[0]
    assert "unverified" not in facts.lower() and "not verified" not in readme.lower()
    rows = {line.split("|")[1].strip(): line for line in facts.splitlines() if line.startswith("| ")}
    assert "BUILD.md §4" in rows["Adafruit 2167"]
    uvlo = next(line for line in facts.splitlines() if "undervoltage-lockout threshold" in line)
    assert "BUILD.md §5" in uvlo and "3.3 V" in uvlo and "2.7 V" in uvlo
    assert "2.6 V" not in build  # the cut-out figure no datasheet gave is not a limit anywhere
    beam = build.split("**Beam parts: measured, not looked up.**")[1].split("**Host connected")[0]
    parts = {p["refs"][0]: p for p in tomllib.loads((HARDWARE / "parts.toml").read_text())["part"]}
    r12 = float(parts["R12"]["value"].split()[0])
    vf = float(parts["D1"]["value"].split()[1])
    across = 5.0 - vf
    low, high = (float(v) for v in beam.split("across R12")[1].split(" V:")[0].split("|")[1].strip().split("–"))
    assert low < across < high and 0.015 <= across / r12 <= 0.018, (low, across, high)
    assert "above 3.4 V: the receiver is powered from 5 V" in beam and "below 0.5 V" in beam
    assert "where your module cuts out" in build and "2.4–2.9 V" in build
    for ref in ("D1", "Q3"):
        assert "BUILD.md section 4" in parts[ref]["notes"], ref


def test_the_symptom_table_is_generated_and_names_only_real_parts_and_sections() -> None:
    """Issue 28 item 17: BUILD.md's symptom table comes from hardware/pictures.py like the pictures; generating
    it refuses a part that parts.toml lacks, and every section it sends the builder to exists."""
    module = generator()
    pictures = module.sibling("pictures")
    _, parts = module.load()
    build = (HARDWARE / "BUILD.md").read_text()
    assert build.encode() == module.build_guide(parts)  # current
    table = build.split("<!-- generated: symptoms")[1].split("<!-- end: symptoms -->")[0]
    for symptom, *_ in pictures.SYMPTOMS:
        assert f"| {symptom} |" in table
    for wanted in ("hums", "backwards", "not counted", "brown-out"):  # the four the issue names
        assert any(wanted in symptom for symptom, *_ in pictures.SYMPTOMS), wanted
    sections = {int(n) for n in re.findall(r"^## (\d+)\.", build, re.M)}
    assert {int(n) for n in re.findall(r"§(\d+)", table)} <= sections
    refs = {ref for part in parts for ref in part["refs"]}
    assert pictures.symptom_table(refs)
    with pytest.raises(SystemExit, match="R13"):
        pictures.symptom_table(refs - {"R13"})  # a part renamed in parts.toml: the table refuses to generate


def test_paralleling_the_channels_is_generated_from_the_netlist_and_never_joins_outputs_alone() -> None:
    """Issue 28 item 6: "parallel the unused channel where the driver allows", as a netlist variant: the README's
    jumper table comes from it, and the check refuses outputs joined while their inputs are driven apart."""
    nets = netlist()
    wired = nets.paralleled(nets.NETS)
    assert nets.parallel_problems(wired) == [] and nets.parallel_problems(nets.NETS) == []
    assert {"U1.AO1", "U1.BO1", "M1.1"} <= wired["MOTOR_A"] and {"U1.AIN2", "U1.BIN2"} <= wired["MOTOR_REV"]
    outputs_only = {name: set(terms) for name, terms in nets.NETS.items()}
    outputs_only["MOTOR_A"] |= {"U1.BO1"}
    outputs_only["MOTOR_B"] |= {"U1.BO2"}  # B's inputs left on GND: the two halves would fight
    assert len(nets.parallel_problems(outputs_only)) == 4
    readme = (HARDWARE / "README.md").read_text()
    table = readme.split("<!-- generated: parallel")[1].split("<!-- end: parallel -->")[0]
    assert "| TB6612FNG | PWMB to PWMA, BIN1 to AIN1, BIN2 to AIN2, BO1 to AO1, BO2 to AO2 |" in table
    assert "| DRV8833 | BIN1 to AIN1, BIN2 to AIN2, BOUT1 to AOUT1, BOUT2 to AOUT2 |" in table
