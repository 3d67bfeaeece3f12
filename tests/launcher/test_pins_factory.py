"""Pin maps (defaults, overrides, refusals) and the backend factory."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from unolauncher.clock import VirtualClock
from unolauncher.launcher.backends.virtual.toy import VirtualLauncher
from unolauncher.launcher.factory import (
    LauncherSetupError,
    create_launcher,
    gpio_unavailable_reason,
    make_pin_factory,
)
from unolauncher.launcher.pins import (
    DEFAULT_JIG,
    DEFAULT_PINS,
    PinMap,
    PinMapError,
    load_pin_file,
    resolve_jig,
    resolve_pins,
)

ROOT = Path(__file__).resolve().parents[2]


def test_default_pins_match_hardware_pins_toml() -> None:
    data = tomllib.loads((ROOT / "hardware" / "pins.toml").read_text())
    assert data["pins"] == {role: gpio for role, gpio in DEFAULT_PINS.items()}
    assert data["jig"] == DEFAULT_JIG
    assert load_pin_file(ROOT / "hardware" / "pins.toml") == DEFAULT_PINS


def test_override_and_not_fitted() -> None:
    pins = resolve_pins({"button": 5, "uno": -1, "sensor": "GPIO26"})
    assert pins.button == 5 and pins.uno is None and pins.sensor == 26
    assert pins.motor_enable == DEFAULT_PINS.motor_enable


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"button": 27}, "'button' and 'sensor' both use GPIO 27|'sensor' and 'button'|both use GPIO 27"),
        ({"led": 14}, "GPIO 14, which is reserved for the UART"),
        ({"sensor": 0}, "reserved for the HAT ID EEPROM"),
        ({"button": 40}, "only has GPIO 0-27"),
        ({"motor_enable": 4}, "pulled high at boot"),
        ({"buzzer": 7}, "pulled high at boot"),
        ({"button": -1}, "'button' is required"),
        ({"fan": 5}, "unknown pin role 'fan'"),
        ({"lid": "twelve"}, "must be a BCM GPIO number"),
        ({"lid": True}, "must be a BCM GPIO number"),
    ],
)
def test_invalid_pin_maps_refused(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(PinMapError, match=message) as info:
        resolve_pins(overrides)
    text = str(info.value)
    assert text.count(". ") == 0 and "\n" not in text  # one sentence


def test_pinmap_dataclass_validates_itself() -> None:
    with pytest.raises(PinMapError, match="both use GPIO 12"):
        PinMap(motor_enable=12, motor_forward=12, motor_reverse=24, button=17)


def test_pin_file_errors(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match="does not exist"):
        load_pin_file(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[pins\n")
    with pytest.raises(PinMapError, match="not valid TOML"):
        load_pin_file(bad)
    bad.write_text("button = 5\n")
    with pytest.raises(PinMapError, match=r"no \[pins\] table"):
        load_pin_file(bad)
    good = tmp_path / "good.toml"
    good.write_text("[pins]\nbutton = 5\nuno = -1\n")
    assert load_pin_file(good) == resolve_pins({"button": 5, "uno": None})


def test_jig_must_not_clash() -> None:
    assert resolve_jig(None, DEFAULT_PINS) == DEFAULT_JIG
    with pytest.raises(PinMapError, match="both use GPIO 17"):
        resolve_jig({"button": 17}, DEFAULT_PINS)


def test_factory_builds_virtual_and_auto_falls_back_here(caplog: pytest.LogCaptureFixture) -> None:
    clock = VirtualClock()
    launcher, sim = create_launcher({"backend": "virtual", "magazine": 12, "virtual": {"seed": 4}}, clock)
    try:
        assert isinstance(sim, VirtualLauncher) and sim.magazine == 12
        assert launcher.status().backend == "virtual" and launcher.status().magazine_estimate == 12
    finally:
        launcher.close()
    assert gpio_unavailable_reason() is not None  # the build machine has no GPIO chip
    launcher, sim = create_launcher(None, clock)  # auto
    try:
        assert sim is not None
        assert "using the virtual launcher because" in caplog.text
    finally:
        launcher.close()


def test_factory_reads_config_objects() -> None:
    # The shape of the daemon's config dataclass: attributes, not keys.
    config = SimpleNamespace(backend="virtual", preset="gentle", magazine=40, pins={"button": 5}, seed=None)
    launcher, sim = create_launcher(config, VirtualClock())
    try:
        assert sim is not None and sim.pins.button == 5
    finally:
        launcher.close()


@pytest.mark.parametrize(
    "settings, error, message",
    [
        ({"backend": "bluetooth"}, LauncherSetupError, "unknown launcher backend 'bluetooth'"),
        ({"backend": "virtual", "pins": {"button": 14}}, PinMapError, "reserved for the UART"),
        ({"backend": "virtual", "virtual": {"speed": 2}}, LauncherSetupError, "unknown key launcher.virtual.speed"),
        ({"backend": "virtual", "jam_timeout_s": 0}, LauncherSetupError, "jam_timeout_s"),
        ({"backend": "gpio", "pin_factory": "magic"}, LauncherSetupError, "unknown pin_factory 'magic'"),
    ],
)
def test_factory_refuses_bad_settings(settings: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        create_launcher(settings, VirtualClock())


def test_serial_backend_hook() -> None:
    with pytest.raises(LauncherSetupError, match="needs serial_port"):
        create_launcher({"backend": "serial"}, VirtualClock())
    launcher, sim = create_launcher({"backend": "serial", "serial_port": "loop://", "magazine": 10}, VirtualClock())
    try:
        assert sim is None and launcher.status().backend == "serial"
    finally:
        launcher.close()


def test_real_pin_factory_unavailable_is_a_clear_error() -> None:
    if gpio_unavailable_reason() is None:  # on a Pi: it must simply work
        make_pin_factory(None).close()
        return
    with pytest.raises(LauncherSetupError, match="no GPIO pin factory could start"):
        make_pin_factory("native")


@pytest.fixture
def gpio_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This machine with a GPIO chip (a file standing in for /dev/gpiochip0) and no pin factory that can start."""
    from unolauncher.launcher import factory

    chip = tmp_path / "gpiochip0"
    chip.touch()
    monkeypatch.setattr(factory, "GPIO_CHIPS", str(tmp_path / "gpiochip*"))
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    for name in ("lgpio", "rpigpio"):  # as on a Pi where neither module is installed
        monkeypatch.setitem(factory.PIN_FACTORIES, name, (f"missing_{name}_module", "Factory"))
    return chip


def test_auto_with_gpio_but_no_pin_factory_is_an_error_naming_what_to_install(gpio_machine: Path) -> None:
    assert gpio_unavailable_reason() is None  # GPIO is here: auto means gpio, never a silent virtual launcher
    with pytest.raises(LauncherSetupError) as raised:
        create_launcher({"backend": "auto"}, VirtualClock())
    message = str(raised.value)
    assert "\n" not in message
    assert f'backend "auto" found GPIO ({gpio_machine})' in message
    assert "lgpio: No module named 'missing_lgpio_module'" in message and "pip install lgpio" in message


@pytest.mark.timeout(60)  # a regression would run the daemon (virtual launcher) here until something stops it
def test_run_exits_2_with_one_line_when_a_pi_has_no_pin_factory(
    gpio_machine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import signal

    from unolauncher.cli import main

    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nstate_dir = "{tmp_path / "state"}"\n[dashboard]\nenabled = false\n')
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                                                                 signal.SIGQUIT)}  # fmt: skip
    try:
        assert main(["run", "--config", str(config)]) == 2
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('unolauncher run: launcher: backend "auto" found GPIO'), lines
    assert "install lgpio" in lines[0]


def test_gpiozero_pin_factory_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "native")
    with pytest.raises(LauncherSetupError, match=r"no GPIO pin factory could start \(native: "):
        make_pin_factory(None)  # only the one asked for, not lgpio then rpigpio
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "MOCK")
    launcher, sim = create_launcher({"backend": "gpio"}, VirtualClock())
    try:
        assert sim is None and launcher.status().backend == "gpio"  # real device code on gpiozero's mock pins
    finally:
        launcher.close()
    launcher, sim = create_launcher(None, VirtualClock())
    launcher.close()
    assert sim is not None  # and auto means the virtual launcher


class RevisionProbe:
    """Stands in for gpiozero's Pi factories: their __init__ reads the board's revision, and without one (a VM's
    gpio-sim chip) they refuse to start."""

    def __init__(self) -> None:
        self.revision = self._get_revision()

    def _get_revision(self) -> int:
        raise RuntimeError("unable to locate Pi revision in /proc/device-tree or /proc/cpuinfo")


def test_board_revision_overrides_what_gpiozero_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from gpiozero.pins.pi import PiFactory

    from unolauncher.launcher import factory

    assert callable(PiFactory._get_revision)  # the hook the override replaces (gpiozero 2.0's)
    module = types.ModuleType("vpi_probe_factory")
    module.Probe = RevisionProbe  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vpi_probe_factory", module)
    monkeypatch.setitem(factory.PIN_FACTORIES, "probe", ("vpi_probe_factory", "Probe"))
    with pytest.raises(LauncherSetupError, match="unable to locate Pi revision"):
        make_pin_factory("probe")
    assert make_pin_factory("probe", "c03111").revision == 0xC03111
    assert make_pin_factory("probe", "1000000e").revision == 0x000E  # over-voltage prefix: as gpiozero reads it
    with pytest.raises(LauncherSetupError, match="board_revision must be a Pi revision code in hex, got 'pi4'"):
        make_pin_factory("probe", "pi4")


def test_board_revision_in_the_configuration(tmp_path: Path) -> None:
    from unolauncher.daemon.config import ConfigError, load_config

    config = tmp_path / "config.toml"
    config.write_text('[launcher]\nboard_revision = "c03111"\n')
    assert load_config(config).launcher.board_revision == "c03111"
    config.write_text('[launcher]\nboard_revision = "Pi 4"\n')
    with pytest.raises(ConfigError, match=r"launcher.board_revision must be a Raspberry Pi revision code in hex"):
        load_config(config)


class NoAccessProbe:
    """lgpio's factory as it fails when the chip is there but this process may not open it."""

    def __init__(self) -> None:
        raise OSError("'can not open gpiochip'")


def test_a_library_that_cannot_open_the_chip_is_not_told_to_install_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from unolauncher.launcher import factory

    module = types.ModuleType("vpi_noaccess_factory")
    module.Probe = NoAccessProbe  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vpi_noaccess_factory", module)
    monkeypatch.setitem(factory.PIN_FACTORIES, "lgpio", ("vpi_noaccess_factory", "Probe"))
    monkeypatch.setitem(factory.PIN_FACTORIES, "rpigpio", ("missing_rpigpio_module", "Factory"))
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with pytest.raises(LauncherSetupError) as raised:
        make_pin_factory(None)
    message = str(raised.value)
    assert "lgpio: 'can not open gpiochip'" in message and "DeviceAllow=char-gpiochip rw" in message
    assert "pip install" not in message
