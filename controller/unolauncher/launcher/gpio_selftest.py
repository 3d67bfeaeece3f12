"""The GPIO selftest's checks (``unolauncher selftest``, the command: :mod:`unolauncher.cli.selftest`): a freshly wired
launcher part by part, with a pass/fail result for each.

1. every pin can be claimed, and the inputs read sensible idle levels (button up, lid closed, beam clear);
2. **pull-downs**: each motor driver input, released (an input, as after the daemon died), must read low even
   against the Pi's weak internal pull-up — only a pull-down on the driver side keeps the motor off then;
3. **strict_gpiod**: a dead process must release its output lines (``dtparam=strict_gpiod``), read from the kernel's
   ``persist_gpio_outputs`` parameter where it exposes it (SKIP where it does not);
4. a button press is awaited (press it within ``timeout`` seconds);
5. **motor**: one card is fired through the beam and counted — proof that the motor turns forward (with no beam
   fitted, the wheel is pulsed and the operator confirms it turned: ``y`` on standard input).

Each FAIL result names the fix. With a :class:`VirtualBox` the same steps run against the virtual launcher in virtual
time (a simulated person presses the button and watches the wheel); that is how the command itself is tested. This
module drives the GPIO backend itself, which is why it lives in ``launcher/`` (the import contracts let only the
factory, the config check and this selftest import a backend).

Example::

    >>> from unolauncher.launcher.pins import DEFAULT_PINS
    >>> results: list[Result] = []
    >>> run_gpio(DEFAULT_PINS, results, timeout=5, virtual=VirtualBox())
    press the launcher button within 5 s ...
    firing one card through the beam (load a few cards) ...
    >>> [part for part, ok, _ in results if ok is False]
    []
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpiozero import DigitalInputDevice, DigitalOutputDevice

from unolauncher.clock import Clock, RealClock, VirtualClock
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.lgpio_release import line_info
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.virtual.params import VirtualParams
from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
from unolauncher.launcher.factory import make_pin_factory
from unolauncher.launcher.interface import FirePlan, FireResult
from unolauncher.launcher.pins import DRIVER_ROLES, OUTPUT_ROLES, PinMap
from unolauncher.launcher.waits import Wait, real_wait, virtual_wait

Confirm = Callable[[str], bool]  # asks the operator a yes/no question
Result = tuple[str, bool | None, str]  # (part, passed — None: could not be checked here, detail)
# Raspberry Pi kernels: Y = an output keeps its level after the owning process released it (the default), N = it
# reverts to an input (dtparam=strict_gpiod). bcm2835 on Pi 1-4 and Zero, rp1 on Pi 5.
PERSIST_PARAMETERS = (
    "sys/module/pinctrl_bcm2835/parameters/persist_gpio_outputs",
    "sys/module/pinctrl_rp1/parameters/persist_gpio_outputs",
)


@dataclass(frozen=True)
class VirtualBox:
    """``selftest --virtual``: the simulated launcher (its magazine, its driver pull-downs) and the simulated person
    who presses the button.

    >>> VirtualBox(magazine=0).press
    True
    """

    magazine: int = 10
    press: bool = True
    pull_downs: bool = True


def run_gpio(
    pins: PinMap,
    results: list[Result],
    *,
    timeout: float,
    pin_factory: str | None = None,
    board_revision: str | None = None,
    virtual: VirtualBox | None = None,
) -> None:
    """Every GPIO part in order, each result appended to ``results`` as it is known; on the virtual launcher in
    virtual time when ``virtual`` is given.

    Raises :class:`~unolauncher.launcher.factory.LauncherSetupError` when no pin factory works here."""
    box: VirtualLauncher | None = None
    clock: Clock
    if virtual is not None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        vclock = VirtualClock()
        clock = vclock
        factory: Any = MockFactory(pin_class=MockPWMPin)
        params = VirtualParams(magazine=virtual.magazine, driver_pull_downs=virtual.pull_downs)
        box = VirtualLauncher(factory, vclock, pins, params)
        wait = virtual_wait(vclock)
    else:
        factory = make_pin_factory(pin_factory, board_revision)
        clock = RealClock()
        wait = real_wait
    try:
        results.extend(check_pins(pins, factory))
        if all(ok is not False for _, ok, _ in results):
            results.extend(check_pull_downs(pins, factory))
            results.append(check_strict_gpiod())
            press = virtual is None or virtual.press
            run_parts(pins, factory, clock, wait, timeout=timeout, virtual=box, simulate_press=press, results=results)
    finally:
        if hasattr(factory, "close") and virtual is None:
            factory.close()


def check_pins(pins: PinMap, factory: Any) -> list[Result]:
    """Claim each pin on its own (so a dead or busy pin is named) and read the inputs' idle levels."""
    results: list[Result] = []
    for role, gpio in pins.items():
        try:
            if role in OUTPUT_ROLES:
                device: Any = DigitalOutputDevice(gpio, initial_value=False, pin_factory=factory)
                detail = f"GPIO {gpio} output, driven low"
                ok = True
            else:
                device = DigitalInputDevice(gpio, pull_up=True, pin_factory=factory)
                active = bool(device.value)  # pull-up: active = line held low
                ok, detail = _idle_check(role, gpio, active)
            device.close()
        except Exception as exc:
            ok, detail = False, f"GPIO {gpio} cannot be used: {exc}"
            if "busy" in str(exc):
                detail += _busy_hint(factory, gpio)
        results.append((f"pin {role}", ok, detail))
    return results


def _busy_hint(factory: Any, gpio: int) -> str:
    """Who holds a busy line, as the kernel says (lgpio's chip), and what to do about it."""
    holder = ""
    chip = getattr(factory, "chip", None)
    if isinstance(chip, int):
        try:
            info = line_info(f"/dev/gpiochip{chip}", gpio)
            holder = f" (requested by {info.consumer or 'the kernel'!r})" if info.used else ""
        except OSError:
            pass
    return f"{holder}: another program holds the line; stop the daemon first (sudo systemctl stop unolauncher)"


def _idle_check(role: str, gpio: int, low: bool) -> tuple[bool, str]:
    if role == "button" or role == "uno":
        return (not low, f"GPIO {gpio} " + ("reads pressed at rest: check the wiring" if low else "released"))
    if role == "sensor":
        return (not low, f"GPIO {gpio} " + ("beam blocked or receiver unpowered" if low else "beam clear"))
    if role == "lid":
        return (low, f"GPIO {gpio} " + ("lid closed" if low else "lid open or switch unwired: close the lid"))
    return True, f"GPIO {gpio} input"


def check_pull_downs(pins: PinMap, factory: Any) -> list[Result]:
    """Each motor driver input, released (an input, as when no process owns it), must read low even against the
    Pi's weak internal pull-up (~50 kΩ): then a pull-down on the driver side (10 kΩ) holds it, and a crashed daemon
    cannot leave the motor running. The other two driver inputs are held low meanwhile, so the motor cannot turn:
    enable with both directions low brakes or coasts, a direction with enable low does nothing."""
    results: list[Result] = []
    driver = {role: getattr(pins, role) for role in DRIVER_ROLES}
    for role, gpio in driver.items():
        held: list[Any] = []
        try:
            for other_role, other in driver.items():
                if other_role != role:
                    held.append(DigitalOutputDevice(other, initial_value=False, pin_factory=factory))
            line = DigitalInputDevice(gpio, pull_up=True, pin_factory=factory)
            try:
                high = bool(line.pin.state)  # the raw level, whatever the device's active state
            finally:
                line.close()
            if high:
                ok, detail = (
                    False,
                    (
                        f"GPIO {gpio} reads high when released: fit a 10 kΩ pull-down from the driver input to GND "
                        f"(hardware/README.md, Safety); without it a crashed daemon can leave the motor running"
                    ),
                )
            else:
                ok, detail = True, f"GPIO {gpio} reads low when released, even against the Pi's pull-up"
        except Exception as exc:
            ok, detail = False, f"GPIO {gpio} cannot be checked: {exc}"
        finally:
            for device in held:
                device.close()
        results.append((f"pull-down {role.removeprefix('motor_')}", ok, detail))
    return results


def check_strict_gpiod(root: Path = Path("/")) -> Result:
    """A dead process must release the motor lines: with ``dtparam=strict_gpiod`` the kernel turns a released output
    back into an input, and the pull-downs switch the motor off; without it the line stays driven as it was. Read
    from the pinctrl driver's ``persist_gpio_outputs`` parameter (``root``: for tests)."""
    for relative in PERSIST_PARAMETERS:
        path = root / relative
        try:
            value = path.read_text().strip().upper()
        except OSError:
            continue
        if value in ("N", "0"):
            return "strict_gpiod", True, f"a released line reverts to an input ({path} = {value})"
        return (
            "strict_gpiod",
            False,
            (
                f"a dead process leaves the motor line driven ({path} = {value}): add dtparam=strict_gpiod to "
                f"/boot/firmware/config.txt and reboot"
            ),
        )
    return "strict_gpiod", None, "this kernel does not say whether released lines persist (no persist_gpio_outputs)"


def check_motor(launcher: GpioLauncher, pins: PinMap, wait: Wait, confirm: Confirm) -> Result:
    """The motor turns forward: a card through the beam proves it; without a beam the operator must confirm it."""
    driver = f"enable GPIO {pins.motor_enable}, forward GPIO {pins.motor_forward}"
    if pins.sensor is None:
        on = launcher.drive_motor("forward", 0.5)
        wait(lambda: False, 0.5)
        launcher.drive_motor("off")
        if not on:
            return "motor", False, "the motor guard refused to switch it on: close the lid"
        if confirm("no beam fitted: did the wheel turn forward just now? [y/N] "):
            return "motor", True, "the operator saw the wheel turn (no beam: the launcher runs open loop)"
        return "motor", False, f"not confirmed: check the motor supply and the driver wiring ({driver})"
    print("firing one card through the beam (load a few cards) ...", flush=True)
    done: list[FireResult] = []
    if not launcher.fire(FirePlan(fire=True, cards=1, run_ms=400, power=1.0), done.append):
        return "motor", False, "the launcher refused to fire: close the lid"
    wait(lambda: bool(done), 6.0)
    if not done:
        return "motor", False, "the run did not finish"
    result = done[0]
    if result.cards_out >= 1:
        return "motor", True, f"a card passed the beam {result.ran_ms} ms after the motor started"
    return (
        "motor",
        False,
        (
            f"no card reached the beam ({result.outcome}): load cards; check the motor supply, the driver wiring "
            f"({driver}) and the beam (GPIO {pins.sensor})"
        ),
    )


def run_parts(
    pins: PinMap,
    factory: Any,
    clock: Clock,
    wait: Wait,
    *,
    timeout: float,
    virtual: VirtualLauncher | None = None,
    simulate_press: bool = True,
    results: list[Result] | None = None,
    confirm: Confirm | None = None,
) -> list[Result]:
    """Button press, then the motor (:func:`check_motor`), on a :class:`GpioLauncher` built on ``factory``."""
    results = [] if results is None else results
    if confirm is None:
        confirm = _virtual_operator(virtual) if virtual is not None else _ask
    launcher = GpioLauncher(factory, clock, pins, DeviceSettings(jam_timeout_s=2.0, max_run_s=3.0))
    try:
        presses: list[float] = []
        launcher.on_press = lambda: presses.append(clock.now())
        print(f"press the launcher button within {timeout:g} s ...", flush=True)
        if virtual is not None and simulate_press:
            clock.call_later(0.3, virtual.press_button)
        pressed = wait(lambda: bool(presses), timeout)
        results.append(("button", pressed, "press seen" if pressed else f"no press within {timeout:g} s"))
        launcher.on_press = None
        results.append(check_motor(launcher, pins, wait, confirm))
    finally:
        launcher.close()
    return results


def _ask(question: str) -> bool:
    """The operator's answer on standard input (no answer, end of input: no)."""
    print(question, end="", flush=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def _virtual_operator(virtual: VirtualLauncher) -> Confirm:
    """A simulated operator who says yes only when the simulated wheel started since the check began."""
    starts = virtual.motor_starts
    return lambda question: virtual.motor_starts > starts
