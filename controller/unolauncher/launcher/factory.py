"""Choose and build the launcher backend from the daemon's settings: ``gpio``, ``virtual``, ``serial`` or ``auto``.

``auto`` uses real GPIO when this machine has it (a ``/dev/gpiochip*`` device) and the virtual launcher when it
has none — and says so in the log, so nobody wonders why the motor is quiet. A machine *with* GPIO on which no pin
factory starts (lgpio not installed, say) is an error naming what to install, never a silent virtual launcher on a
Pi. The pin factory is ``pin_factory``, else ``GPIOZERO_PIN_FACTORY`` (gpiozero's own variable; ``mock`` means the
virtual launcher), else lgpio, then RPi.GPIO.

Settings may be a mapping (a ``[launcher]`` TOML table) or any object with attributes (the daemon's config
dataclass); every key is optional:

==================  ==========================================================================================
``backend``         ``auto`` (default), ``gpio``, ``virtual``, ``serial``
``pins``            pin overrides, role -> BCM number (``-1`` = not fitted); or ``pins_file``: a pins TOML file
``pin_factory``     gpiozero factory: ``lgpio`` (default, the only one on a Pi 5), ``rpigpio``, …
``board_revision``  the Pi's revision code (hex, e.g. ``"c03111"``) when the kernel has none to read: gpiozero's
                    factories read it from ``/proc/device-tree`` or ``/proc/cpuinfo`` and refuse to start without
                    it (a virtual machine's gpio-sim chip, ``tools/vpi``); unset on a real Pi
``magazine``        cards believed loaded after a refill (also the virtual magazine's start), e.g. 40
``jam_timeout_s``, ``max_run_s``, ``retract_ms``, ``retract_power``, ``debounce_ms``, ``settle_ms``, …:
                    the backend's settings schema (``GPIO_SETTINGS`` in ``backends/gpio/settings.py``,
                    ``SERIAL_SETTINGS`` in ``backends/serial/settings.py``)
``virtual``         table of :class:`~unolauncher.launcher.backends.virtual.params.VirtualParams` fields
                    (``jam_probability``, …; ``VIRTUAL_SETTINGS``)
==================  ==========================================================================================

:class:`VirtualLauncher` is re-exported here, for type checkers only: it types :func:`create_launcher`'s second item
for callers that may not import a backend themselves (the daemon; the import-linter contracts in ``pyproject.toml``).
The simulated toy and gpiozero's mock pins are imported only when the virtual launcher is built: a daemon on real
GPIO would otherwise keep them in memory for nothing (docs/performance.md, "Daemon RSS").

The ``serial`` backend lives in ``launcher/backends/serial/`` (imported only when chosen): it is built with
``SerialLauncher.from_settings(settings, clock)``, which reads its own keys.

Example::

    >>> from unolauncher.clock import VirtualClock
    >>> clock = VirtualClock()  # the daemon passes a RealClock
    >>> launcher, virtual = create_launcher({"backend": "virtual", "magazine": 30}, clock)
    >>> type(launcher).__name__, virtual.magazine  # GPIO code on mock pins, wired to the simulated toy
    ('GpioLauncher', 30)
    >>> virtual.press_button()
"""

from __future__ import annotations

import glob
import importlib
import logging
import os
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unolauncher.clock import Clock
from unolauncher.errors import UnolauncherError
from unolauncher.launcher.backends.gpio.launcher import GpioLauncher
from unolauncher.launcher.backends.gpio.lgpio_release import releasing_pin_class
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.virtual.params import VIRTUAL_SETTINGS, VirtualParams
from unolauncher.launcher.interface import Launcher
from unolauncher.launcher.pins import DEFAULT_PINS, PinMap, PinMapError, load_pin_file, resolve_pins
from unolauncher.launcher.settings_schema import setting

if TYPE_CHECKING:  # imported where it is built, in create_virtual (see the module docstring)
    from unolauncher.launcher.backends.virtual.toy import VirtualLauncher as VirtualLauncher  # re-exported

log = logging.getLogger(__name__)

BACKENDS = ("auto", "gpio", "virtual", "serial")
PIN_FACTORIES = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
    "native": ("gpiozero.pins.native", "NativeFactory"),
}
GPIO_CHIPS = "/dev/gpiochip*"  # Linux GPIO character devices: this machine has GPIO
INSTALL_HINT = (
    'install lgpio into the environment the daemon runs in ("pip install lgpio"; a 32-bit Pi: see systemd/README.md), '
    'or set launcher.backend = "virtual"'
)
# A library that is there but cannot open the chip (seen in the virtual Pi, tools/vpi, with the unit's DeviceAllow
# line removed: "install lgpio" would send the user the wrong way).
ACCESS_HINT = (
    "the GPIO library is installed but could not open the chip: the daemon's user must be allowed /dev/gpiochip* "
    "(the gpio group; under systemd, the unit's DeviceAllow=char-gpiochip rw)"
)


class LauncherSetupError(UnolauncherError, ValueError):
    """The launcher cannot be built from these settings; one sentence says why."""


def env_pin_factory() -> str | None:
    """gpiozero's ``GPIOZERO_PIN_FACTORY`` (lower case), or ``None`` when it is not set."""
    return os.environ.get("GPIOZERO_PIN_FACTORY", "").strip().lower() or None


def gpio_unavailable_reason() -> str | None:
    """Why ``auto`` means the virtual launcher here, or ``None`` when this machine has GPIO (``auto`` = ``gpio``)."""
    if env_pin_factory() == "mock":
        return "GPIOZERO_PIN_FACTORY=mock is set"
    if not glob.glob(GPIO_CHIPS):
        return "this machine has no /dev/gpiochip* device"
    return None


def parse_revision(revision: str | None) -> int | None:
    """A revision code as gpiozero reads it from ``/proc/cpuinfo``: hex, an over-voltage prefix ``100`` dropped.

    Example::

        >>> hex(parse_revision("c03111")), parse_revision(None)
        ('0xc03111', None)
    """
    if revision is None:
        return None
    try:
        value = int(revision, 16)
    except ValueError:
        raise LauncherSetupError(f"board_revision must be a Pi revision code in hex, got {revision!r}") from None
    return int(revision[-4:], 16) if revision.startswith("100") else value


def with_revision(factory_class: type, revision: int) -> type:
    """``factory_class`` that reports ``revision`` instead of reading it from the kernel (gpiozero's own hook)."""

    def _get_revision(self: Any) -> int:
        return revision

    return type(factory_class.__name__, (factory_class,), {"_get_revision": _get_revision})


def make_pin_factory(name: str | None, board_revision: str | None = None) -> Any:
    """A gpiozero pin factory by name; ``None``: ``GPIOZERO_PIN_FACTORY`` if set, else lgpio, then rpigpio.

    ``board_revision`` overrides the revision gpiozero would read from ``/proc`` (see the module docstring).
    """
    revision = parse_revision(board_revision)
    name = name or env_pin_factory()
    names = [name] if name else ["lgpio", "rpigpio"]
    errors = []
    imported = False  # some library was there but failed to start: access, not installation
    for candidate in names:
        if candidate == "mock":
            from gpiozero.pins.mock import MockFactory, MockPWMPin

            return MockFactory(pin_class=MockPWMPin)
        if candidate not in PIN_FACTORIES:
            raise LauncherSetupError(f"unknown pin_factory {candidate!r} (known: {', '.join(PIN_FACTORIES)}, mock)")
        module_name, class_name = PIN_FACTORIES[candidate]
        try:
            factory_class = getattr(importlib.import_module(module_name), class_name)
            if revision is not None:
                factory_class = with_revision(factory_class, revision)
            factory = factory_class()
            if candidate == "lgpio":  # leaving edge detection waits for the kernel to free the line (its module)
                factory.pin_class = releasing_pin_class()
            return factory
        except ImportError as exc:  # the library is not installed
            errors.append(f"{candidate}: {exc}")
        except Exception as exc:  # no GPIO chip, not allowed to open it, not a Pi
            errors.append(f"{candidate}: {exc}")
            imported = True
    hint = ACCESS_HINT if imported else INSTALL_HINT
    raise LauncherSetupError(f"no GPIO pin factory could start ({'; '.join(errors)}); {hint}")


def pins_from_settings(settings: Any) -> PinMap:
    """The pin map: defaults, then ``pins_file``, then ``pins`` overrides."""
    pins = DEFAULT_PINS
    pins_file = setting(settings, "pins_file")
    if pins_file:
        pins = load_pin_file(Path(pins_file))
    overrides = setting(settings, "pins")
    if overrides:
        if not isinstance(overrides, Mapping):
            raise LauncherSetupError("launcher pins must be a table of role = GPIO number")
        pins = resolve_pins(overrides, pins)
    return pins


def device_settings(settings: Any) -> DeviceSettings:
    values = {f.name: setting(settings, f.name) for f in fields(DeviceSettings)}
    return DeviceSettings(**{k: v for k, v in values.items() if v is not None})


def virtual_params(settings: Any) -> VirtualParams:
    table = setting(settings, "virtual", {})
    if not isinstance(table, Mapping):
        raise LauncherSetupError("launcher virtual settings must be a table")
    VIRTUAL_SETTINGS.check(table, "launcher.virtual.", table="launcher.virtual")
    values = dict(table)
    magazine = setting(settings, "magazine")
    if magazine is not None and "magazine" not in values:
        values["magazine"] = magazine
    return VirtualParams(**values)


def create_virtual(settings: Any, clock: Clock) -> tuple[GpioLauncher, VirtualLauncher]:
    """The real device code on mock pins, with the simulated toy attached."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from unolauncher.launcher.backends.virtual.toy import VirtualLauncher

    pins = pins_from_settings(settings)
    factory = MockFactory(pin_class=MockPWMPin)
    virtual = VirtualLauncher(factory, clock, pins, virtual_params(settings))
    device = device_settings(settings)
    virtual.release_gap_s = device.debounce_ms / 1000 + 0.0005  # a queued press's edge must pass the debounce
    launcher = GpioLauncher(factory, clock, pins, device, backend="virtual")
    return launcher, virtual


def create_launcher(settings: Any, clock: Clock) -> tuple[Launcher, VirtualLauncher | None]:
    """Build the configured backend; the second item is the simulation when the backend is virtual.

    Raises :class:`LauncherSetupError` (or :class:`~unolauncher.launcher.pins.PinMapError`) with a one-sentence
    message for bad settings.
    """
    backend = setting(settings, "backend", "auto")
    if backend not in BACKENDS:
        raise LauncherSetupError(f"unknown launcher backend {backend!r} (known: {', '.join(BACKENDS)})")
    try:
        auto = backend == "auto"
        if auto:
            reason = gpio_unavailable_reason()
            if reason is not None:
                log.warning("launcher: using the virtual launcher because %s", reason)
                return create_virtual(settings, clock)
            backend = "gpio"
        if backend == "virtual":
            return create_virtual(settings, clock)
        if backend == "serial":
            return _create_serial(settings, clock), None
        pins = pins_from_settings(settings)
        try:
            factory = make_pin_factory(setting(settings, "pin_factory"), setting(settings, "board_revision"))
        except LauncherSetupError as exc:
            if not auto:
                raise
            chip = sorted(glob.glob(GPIO_CHIPS))[0]
            raise LauncherSetupError(f'backend "auto" found GPIO ({chip}) but {exc}') from None
        return GpioLauncher(factory, clock, pins, device_settings(settings)), None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, LauncherSetupError | PinMapError):
            raise
        raise LauncherSetupError(f"launcher settings are invalid: {exc}") from None


def _create_serial(settings: Any, clock: Clock) -> Launcher:
    from unolauncher.launcher.backends.serial.launcher import (
        SerialLauncher,  # pyserial only when this backend is chosen
    )

    return SerialLauncher.from_settings(settings, clock)
