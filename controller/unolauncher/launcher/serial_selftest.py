"""``unolauncher selftest --serial PORT``: the wiring selftest of a launcher behind a Pico co-processor.

The same parts, in the same FAIL-names-the-fix style, as the GPIO selftest (:mod:`~unolauncher.launcher.gpio_selftest`),
read by the firmware and sent over the serial link:

1. the co-processor answers HELLO (the firmware runs, the cable and port are right);
2. **idle levels** (the firmware's PROBE reply): button and UNO button released, lid shut, beam clear;
3. **pull-downs**: the firmware releases each motor driver line in turn to an input with its internal pull-up; each
   must still read low, held by its external 10 kΩ pull-down (R2-R4);
4. a button press reaches the host (press it within ``--timeout`` seconds);
5. **motor**: one card is fired through the beam and counted.

Exit 0 when every part passed, 1 when one failed, 2 when the co-processor did not answer at all.

Example (not a doctest: needs a co-processor on the port)::

    $ unolauncher selftest --serial /dev/ttyACM0
    PASS  co-processor     firmware unofw 1.3 on /dev/ttyACM0
    ...
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from unolauncher.clock import RealClock
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.backends.serial.launcher import SerialLauncher, SerialSettings
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.waits import real_wait

Result = tuple[str, bool | None, str]
CONNECT_S = 5.0
# motor role -> (pull-down reference on P1, driver input)
PULL_DOWNS = {
    "motor_enable": ("R2", "TB6612FNG PWMA"),
    "motor_forward": ("R3", "AIN1 / IN1"),
    "motor_reverse": ("R4", "AIN2 / IN2"),
}


def run_serial(
    port: str, timeout: float, results: list[Result], on_waiting_for_press: Callable[[], None] | None = None
) -> int:
    """Run every part against the co-processor on ``port``; each result is appended to ``results`` as it is known.

    ``on_waiting_for_press`` is called once the selftest listens for the button (a test's simulated finger)."""
    launcher = SerialLauncher(SerialSettings(port=port), RealClock())
    try:
        if not real_wait(lambda: bool(launcher.status().extra["connected"]), CONNECT_S):
            error = launcher.status().extra["last_error"] or "no answer"
            results.append(
                (
                    "co-processor",
                    False,
                    (
                        f"no answer on {port} ({error}): plug the Pico in, check the port, install the firmware "
                        f"(firmware/README.md) and make sure mpremote or another program does not hold the port"
                    ),
                )
            )
            return 2
        firmware = launcher.status().extra["firmware"].get("firmware", "?")
        results.append(("co-processor", True, f"firmware {firmware} on {port}"))
        readings = probe(launcher)
        if isinstance(readings, str):
            results.append(("probe", False, readings))
        else:
            results.extend(idle_levels(readings))
            results.extend(pull_downs(readings))
        results.append(check_press(launcher, timeout, on_waiting_for_press))
        pins = readings["pins"] if isinstance(readings, dict) else {}
        lid_open = bool(readings["lid_open"]) if isinstance(readings, dict) else False
        results.append(check_motor(launcher, pins, lid_open))
    finally:
        launcher.close()
    return 0 if all(ok is not False for _, ok, _ in results) else 1


def probe(launcher: SerialLauncher) -> dict[str, Any] | str:
    """The firmware's PROBE readings, or why there are none (one sentence that names the fix)."""
    got: list[tuple[int, dict[str, Any] | None]] = []
    event = threading.Event()

    def answer(code: int, readings: dict[str, Any] | None) -> None:
        got.append((code, readings))
        event.set()

    if not launcher.probe(answer) or not event.wait(CONNECT_S):
        return "the co-processor did not answer PROBE: check the USB cable"
    code, readings = got[0]
    if readings is not None:
        return readings
    if code == sp.AckCode.UNKNOWN_TYPE:
        return "the firmware predates the wiring probe: update it (firmware/README.md, Updating the firmware later)"
    return f"the co-processor refused PROBE (code {code}): let the run in progress end and try again"


def idle_levels(readings: dict[str, Any]) -> list[Result]:
    """Inputs at rest, as the firmware reads them: the same verdicts as the GPIO selftest's idle check."""
    pins = readings["pins"]
    button, uno, sensor, lid = (f"GP{pins[role]}" for role in ("button", "uno", "sensor", "lid"))
    return [
        (
            "pin button",
            not readings["button_down"],
            f"{button} "
            + (
                "reads pressed at rest: check the wiring (S1 to GND, R6 pull-up to 3.3 V)"
                if readings["button_down"]
                else "released"
            ),
        ),
        (
            "pin uno",
            not readings["uno_down"],
            f"{uno} "
            + (
                "reads pressed at rest: check the wiring (S3 to GND, R8 pull-up; no UNO button: leave it unwired)"
                if readings["uno_down"]
                else "released"
            ),
        ),
        (
            "pin sensor",
            not readings["beam_blocked"],
            f"{sensor} "
            + (
                "beam blocked or receiver unpowered: align D1 and Q3, R13 to 3.3 V, take the card out of the beam"
                if readings["beam_blocked"]
                else "beam clear"
            ),
        ),
        (
            "pin lid",
            not readings["lid_open"],
            f"{lid} "
            + (
                "lid open or switch unwired: close the lid; check pole B of S2 (to GND when shut)"
                if readings["lid_open"]
                else "lid closed"
            ),
        ),
    ]


def pull_downs(readings: dict[str, Any]) -> list[Result]:
    results: list[Result] = []
    for role, (ref, driver_pin) in PULL_DOWNS.items():
        gp = f"GP{readings['pins'][role]}"
        if readings["released_high"][role]:
            ok, detail = (
                False,
                (
                    f"{gp} reads high when released: fit {ref}, 10 kΩ from the driver input ({driver_pin}) to GND "
                    f"(hardware/README.md, Safety); without it a reset Pico leaves the motor input floating"
                ),
            )
        else:
            ok, detail = True, f"{gp} reads low when released, even against the Pico's pull-up"
        results.append((f"pull-down {role.removeprefix('motor_')}", ok, detail))
    return results


def check_press(launcher: SerialLauncher, timeout: float, simulate: Callable[[], None] | None) -> Result:
    presses = threading.Event()
    launcher.on_press = presses.set
    print(f"press the launcher button within {timeout:g} s ...", flush=True)
    if simulate is not None:
        simulate()
    pressed = presses.wait(timeout)
    launcher.on_press = None
    return (
        "button",
        pressed,
        "press seen"
        if pressed
        else (f"no press within {timeout:g} s: check S1's two wires (to the button input and GND) and R9"),
    )


def check_motor(launcher: SerialLauncher, pins: dict[str, int], lid_open: bool) -> Result:
    """One card through the beam, counted by the firmware: the motor turns forward and the beam sees cards.
    ``lid_open``: the probe found the lid open (the interlock then holds the driver off: that is the fix to name)."""
    driver = ", ".join(f"{role.removeprefix('motor_')} GP{pins[role]}" for role in PULL_DOWNS if role in pins)
    print("firing one card through the beam (load a few cards) ...", flush=True)
    done: list[FireResult] = []
    finished = threading.Event()

    def on_done(result: FireResult) -> None:
        done.append(result)
        finished.set()

    if not launcher.fire(FirePlan(fire=True, cards=1, run_ms=400, power=1.0), on_done):
        return "motor", False, "the launcher refused to fire: close the lid"
    finished.wait(8.0)
    if not done:
        return "motor", False, "the run did not finish: check the USB cable"
    result = done[0]
    if result.cards_out >= 1:
        return "motor", True, f"a card passed the beam {result.ran_ms} ms after the motor started"
    if lid_open or "lid" in result.detail:
        return "motor", False, "the lid is open (the interlock holds the driver off): close the lid"
    wiring = driver or "see hardware/README.md"
    return (
        "motor",
        False,
        (
            f"no card reached the beam ({result.outcome}): load cards; check the motor supply (SW1, F1, Q1), the "
            f"driver wiring ({wiring}), STBY/nSLEEP (3.3 V with the lid shut) and the beam"
        ),
    )
