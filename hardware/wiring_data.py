"""The wiring's data, read by make_wiring.py and its modules: the two hosts' pin numbers, the roles and nets of
``pins.toml``, each driver's wiring, the stall-current figures; ``pins.toml`` and ``parts.toml`` loaded (the one
source of truth). Standard library only."""

from __future__ import annotations

import tomllib
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
    "motor_enable": (
        "Motor driver speed",
        "out (PWM)",
        "MOTOR_PWM",
        "TB6612FNG PWMA; DRV8833: not connected; 10 kOhm to GND (R2)",
    ),
    "motor_forward": (
        "Motor driver direction 1",
        "out",
        "MOTOR_FWD",
        "TB6612FNG AIN1 / DRV8833 IN1; 10 kOhm to GND (R3)",
    ),
    "motor_reverse": (
        "Motor driver direction 2",
        "out",
        "MOTOR_REV",
        "TB6612FNG AIN2 / DRV8833 IN2; 10 kOhm to GND (R4)",
    ),
    "button": ("Launcher button", "in, pull-up", "BUTTON", "S1 to GND; 10 kOhm to 3.3 V, 1 kOhm in series, 100 nF"),
    "sensor": (
        "Card-exit beam receiver",
        "in, pull-up",
        "SENSOR",
        "IR receiver output (open collector), 10 kOhm to 3.3 V; beam broken = low",
    ),
    "lid": ("Lid switch", "in, pull-up", "LID", "S2B to GND, closed when the lid is shut; 10 kOhm, 1 kOhm, 100 nF"),
    "uno": ("UNO button (optional)", "in, pull-up", "UNO", "S3 to GND; 10 kOhm to 3.3 V, 1 kOhm in series, 100 nF"),
    "led": ("Button LED", "out", "LED", "330 Ohm and LED D2 to GND"),
    "buzzer": ("Buzzer", "out", "BUZZER", "1 kOhm to the base of NPN Q2; active 5 V buzzer BZ1 on its collector"),
    "heartbeat": (
        "Dead-man heartbeat (optional)",
        "out (square wave)",
        "HEARTBEAT",
        "C7 into the dead-man charge pump on P2: STBY only while it toggles (Safety)",
    ),
}

# Each supported driver: (driver pin, Pi/Pico connection, why). "{role}" is replaced with the host's pin.
DRIVERS: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "tb6612": (
        "TB6612FNG (recommended: PWM speed control on both paths)",
        [
            ("VM", "motor supply after SW1, F1, Q1 (4.5 V)", "motor supply, 2.5-13.5 V; C1 470 uF + C2 100 nF to GND"),
            ("VCC", "{3V3} through P1", "logic supply 2.7-5.5 V: the host's 3.3 V, so its inputs see 3.3 V logic"),
            ("GND", "{GND2}", "one ground for battery, driver and host"),
            (
                "STBY",
                "3.3 V through lid switch S2A; R5 10 kOhm to GND",
                "low = standby: lid open stops the motor in hardware",
            ),
            ("PWMA", "{motor_enable}", "speed (PWM); R2 10 kOhm to GND"),
            ("AIN1", "{motor_forward}", "direction 1; R3 10 kOhm to GND"),
            ("AIN2", "{motor_reverse}", "direction 2; R4 10 kOhm to GND"),
            ("AO1, AO2", "motor M1 (C3 100 nF across it)", "swap the two if eject and retract come out reversed"),
            ("PWMB, BIN1, BIN2", "GND", "channel B unused: held off"),
        ],
    ),
    "drv8833": (
        "DRV8833 (no VCC pin: never connect 3.3 V to its VM)",
        [
            (
                "VM (often labelled VCC on modules)",
                "motor supply after SW1, F1, Q1 (4.5 V)",
                "the only supply pin (2.7-10.8 V); 10 uF ceramic + C1 470 uF to GND; never the host's 3.3 V",
            ),
            ("GND", "{GND2}", "one ground for battery, driver and host"),
            (
                "nSLEEP (EEP on some modules)",
                "3.3 V through lid switch S2A; R5 10 kOhm to GND",
                "high = awake, low = sleep: the lid interlock. Never PWM here (up to 1 ms to wake)",
            ),
            ("AIN1", "{motor_forward}", 'IN1; R3 10 kOhm to GND. Pico: PWM here (DRIVER = "drv8833")'),
            ("AIN2", "{motor_reverse}", "IN2; R4 10 kOhm to GND. Pico: PWM here"),
            ("(none)", "{motor_enable} not connected", "Pi path: speed is on/off only (full power)"),
            ("AOUT1, AOUT2", "motor M1 (C3 100 nF across it)", "swap the two if eject and retract come out reversed"),
            ("BIN1, BIN2", "GND", "bridge B unused: held off"),
        ],
    ),
}

# Motor stall current at the fresh cells' voltage against each driver's limits (datasheets: README, Datasheet
# facts): (name, continuous A per channel, peak A, continuous A with both channels in parallel).
CELLS_V = 4.8  # three fresh alkaline C cells
DRIVER_LIMITS = (("TB6612FNG", 1.2, 3.2, 2.4), ("DRV8833", 1.5, 2.0, 3.0))
MOTOR_OHMS = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0)

# ---- data --------------------------------------------------------------------------------------------------------


def load(
    pins_file: Path = PINS_FILE, parts_file: Path = PARTS_FILE
) -> tuple[dict[str, dict[str, int]], list[dict[str, Any]]]:
    """({"pi": role -> GPIO, "pico": role -> GP, "jig": role -> GPIO}, parts)."""
    data = tomllib.loads(pins_file.read_text(encoding="utf-8"))
    maps = {
        "pi": {role: gpio for role, gpio in data["pins"].items() if gpio != -1},
        "pico": dict(data["pico"]),
        "jig": dict(data.get("jig", {})),
    }
    parts = tomllib.loads(parts_file.read_text(encoding="utf-8"))["part"]
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
