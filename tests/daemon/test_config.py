"""Configuration: every key known and documented, every bad key refused by name (one line, exit code 2)."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from unolauncher.daemon.config import SCHEMA, Config, ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[2]

BAD: list[tuple[dict[str, Any], str]] = [
    ({"tabel": {}}, "tabel"),
    ({"table": {"idd": "x"}}, "table.idd"),
    ({"table": {"id": "has space"}}, "table.id"),
    ({"table": {"id": "a/b"}}, "table.id"),
    ({"table": {"lockout": "yes"}}, "table.lockout"),
    ({"table": {"state_dir": 5}}, "table.state_dir"),
    ({"table": {"journal_sync": "off"}}, "table.journal_sync"),
    ({"table": {"journal_sync": "normal"}}, "table.journal_sync"),
    ({"table": {"journal_keep_days": -1}}, "table.journal_keep_days"),
    ({"table": {"journal_keep_days": "30"}}, "table.journal_keep_days"),
    ({"broker": {"port": 70000}}, "broker.port"),
    ({"broker": {"port": "1883"}}, "broker.port"),
    ({"broker": {"ws_port": -1}}, "broker.ws_port"),
    ({"broker": {"embedded": "auto"}}, "broker.embedded"),
    ({"broker": {"embedded": False}}, "broker.host"),
    ({"broker": {"tls": 1}}, "broker.tls"),
    ({"broker": {"protocol": "4"}}, "broker.protocol"),
    ({"broker": {"keepalive": 0}}, "broker.keepalive"),
    ({"broker": {"reconnect_min": 10, "reconnect_max": 5}}, "broker.reconnect_max"),
    ({"broker": {"password": "a", "password_file": "/x"}}, "broker.password"),
    ({"broker": {"hots": "x"}}, "broker.hots"),
    ({"launcher": {"backend": "pigeon"}}, "launcher.backend"),
    ({"launcher": {"seed": 1.5}}, "launcher.seed"),
    ({"launcher": {"virtual": 3}}, "launcher.virtual"),
    ({"launcher": {"jam_timeout_s": "1"}}, "launcher.jam_timeout_s"),
    ({"dashboard": {"port": True}}, "dashboard.port"),
    ({"homeassistant": {"enabled": "no"}}, "homeassistant.enabled"),
    ({"table": 5}, "table"),
    # Values a broker or paho would take and then fail on quietly (issue #18, defect 10): the daemon "ready" but deaf.
    ({"broker": {"keepalive": 65536}}, "broker.keepalive"),
    ({"broker": {"client_id": "c" * 65536}}, "broker.client_id"),
    ({"broker": {"client_id": "has space"}}, "broker.client_id"),
    ({"broker": {"username": "u" * 65536}}, "broker.username"),
    ({"broker": {"reconnect_min": 10**9}}, "broker.reconnect_min"),
    ({"broker": {"reconnect_max": 10**9}}, "broker.reconnect_max"),
    ({"broker": {"host": "bad host"}}, "broker.host"),
    ({"broker": {"ws_url": "http://x/mqtt"}}, "broker.ws_url"),
    ({"homeassistant": {"prefix": "home/+/x"}}, "homeassistant.prefix"),
    ({"homeassistant": {"prefix": "#"}}, "homeassistant.prefix"),
    ({"homeassistant": {"prefix": "a//b"}}, "homeassistant.prefix"),
    ({"homeassistant": {"prefix": "/homeassistant"}}, "homeassistant.prefix"),
    ({"table": {"state_dir": "a\x00b"}}, "table.state_dir"),
    ({"launcher": {"preset": "turbo"}}, "launcher.preset"),
    ({"launcher": {"preset": "custom"}}, "launcher.custom"),
    ({"launcher": {"custom": {"miss_hazard": [2], "cards": {"2": 1}}}}, "launcher.custom"),
    ({"launcher": {"custom": {"miss_hazard": [0.5], "cards": {"2": 1}, "jitter": 1}}}, "launcher.custom"),
    ({"launcher": {"custom": {"miss_hazard": [0.5], "cards": {"2": 1}, "suspense_ms": ["1", "2"]}}}, "launcher.custom"),
    ({"launcher": {"ms_per_card": 5}}, "launcher.ms_per_card"),
    ({"launcher": {"seed": -1}}, "launcher.seed"),
    ({"launcher": {"seed": 2**63}}, "launcher.seed"),
    # The backends' own keys, checked against the chosen backend's settings schema when the file loads (issue #15).
    ({"launcher": {"retract_ms": -5}}, "launcher.retract_ms"),  # out of range
    ({"launcher": {"retract_ms": "fast"}}, "launcher.retract_ms"),  # not a number
    ({"launcher": {"retract_ms": 12.5}}, "launcher.retract_ms"),  # a fraction where a whole number is needed
    ({"launcher": {"max_run_s": True}}, "launcher.max_run_s"),  # true is not a number
    ({"launcher": {"backend": "serial", "serial_port": "loop://", "max_run_s": 30}}, "launcher.max_run_s"),  # firmware
    ({"launcher": {"retract_ms": 120, "settle_ms": 10}}, "launcher.settle_ms"),  # a rule across two settings
    ({"launcher": {"backend": "gpio", "deadman_ms": 10}}, "launcher.deadman_ms"),  # the other backend's key
    ({"launcher": {"magazine": 501}}, "launcher.magazine"),
    ({"launcher": {"virtual": {"speed": 2}}}, "launcher.virtual.speed"),  # unknown key in a backend's table
    ({"launcher": {"virtual": {"jam_probability": 2}}}, "launcher.virtual.jam_probability"),
]


@pytest.mark.parametrize(("data", "key"), BAD, ids=[key for _, key in BAD])
def test_each_invalid_key_is_named_in_one_line(data: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    message = str(info.value)
    assert "\n" not in message
    assert re.search(rf"(^|[\s\[]){re.escape(key)}\b", message), message


def test_defaults_without_a_file_and_every_schema_key_has_a_default() -> None:
    config = Config()
    assert config.broker.use_embedded and config.table.id == "table1" and config.table.lockout is True
    for section, keys in SCHEMA.items():
        fields = {f.name for f in dataclasses.fields(getattr(config, section))}
        assert set(keys) == fields, f"[{section}] schema and dataclass disagree"


def test_a_valid_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[table]\nid = "kitchen"\nlockout = false\n[broker]\nhost = "mqtt.lan"\nport = 8883\ntls = true\n'
        '[launcher]\nbackend = "virtual"\n[launcher.virtual]\njam_probability = 0.1\n'
    )
    config = load_config(path)
    assert config.table.id == "kitchen" and config.table.lockout is False
    assert config.broker.host == "mqtt.lan" and not config.broker.use_embedded and config.broker.tls
    assert config.launcher.virtual == {"jam_probability": 0.1}


def test_every_key_is_documented() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text()
    for section, keys in SCHEMA.items():
        assert f"[{section}]" in text
        for key in keys:
            assert f"`{key}`" in text, f"{section}.{key} is not in docs/configuration.md"


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "unolauncher", "run", *args], capture_output=True, text=True, timeout=60
    )


def test_cli_unknown_key_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[broker]\nport = 1883\nhots = 'x'\n")
    result = _run(["--config", str(path), "--state-dir", str(tmp_path / "s")])
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "unolauncher run: unknown key broker.hots (known in [broker]: " + ", ".join(SCHEMA["broker"]) + ")"
    ]


def test_cli_invalid_toml_and_bad_launcher_value_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[table\nid = 1\n")
    result = _run(["--config", str(path)])
    assert result.returncode == 2 and "not valid TOML" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    # a value the launcher's settings schema refuses: still one line, still exit 2, still names it
    path.write_text(
        '[launcher]\nbackend = "virtual"\nretract_power = 7.0\n[dashboard]\nenabled = false\n'
        "[broker]\nport = 0\nws_port = 0\n"
    )
    result = _run(["--config", str(path), "--state-dir", str(tmp_path / "s")])
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("unolauncher run:")]
    assert len(errors) == 1 and "retract_power" in errors[0]


# Keys the launcher code reads that the daemon's [launcher] section deliberately does not offer, with the reason.
LAUNCHER_ALIASES = {"port": "an alias of serial_port for callers outside the daemon ([broker] has its own port)"}


def test_every_key_the_launcher_code_reads_is_accepted_and_documented() -> None:
    """The launcher factory and the backends' settings schemas name the keys read from [launcher] (the serial
    backend reads its port and pins by hand): each one must be a config key (else it could never be set) and be
    documented."""
    from unolauncher.launcher.config_table import SCHEMAS

    launcher_dir = ROOT / "controller" / "unolauncher" / "launcher"
    factory = (launcher_dir / "factory.py").read_text()
    serial = (launcher_dir / "backends" / "serial" / "settings.py").read_text()
    serial = serial[serial.index("def serial_settings_from") :]  # that function only (the last in its module)
    read = set(re.findall(r'setting\(settings, "([a-z_]+)"', factory))
    read |= set(re.findall(r'(?<![.\w])get\("([a-z_]+)"', serial))  # get(...), not pins.get(...)
    read |= {name for schema in SCHEMAS for name in schema.settings}
    assert {"serial_port", "pins", "deadman_ms", "baudrate", "jam_timeout_s", "settle_ms"} <= read  # the scan works
    text = (ROOT / "docs" / "configuration.md").read_text()
    for key in sorted(read - set(LAUNCHER_ALIASES)):
        assert key in SCHEMA["launcher"], f"launcher.{key} is read by the launcher code but refused by the config"
        assert f"`{key}`" in text, f"launcher.{key} is not in docs/configuration.md"


def test_serial_keys_are_checked() -> None:
    config = parse_config(
        {"launcher": {"backend": "serial", "serial_port": "loop://", "baudrate": 9600, "deadman_ms": 800}}
    )
    assert (config.launcher.baudrate, config.launcher.deadman_ms) == (9600, 800)
    with pytest.raises(ConfigError, match=r"launcher\.baudrate"):
        parse_config({"launcher": {"baudrate": "fast"}})


def one_line_exit_2(args: list[str], key: str) -> None:
    result = _run(args)
    assert result.returncode == 2, result.stderr[-2000:]
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("unolauncher run:") and key in errors[0], result.stderr[-2000:]
    assert "Traceback" not in result.stderr


QUIET = '[launcher]\nbackend = "virtual"\n[dashboard]\nenabled = false\n[homeassistant]\nenabled = false\n'


def test_cli_a_config_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(b'[table]\nid = "caf\xe9"\n')  # Latin-1, as an old editor saves it
    one_line_exit_2(["--config", str(path)], "not UTF-8")


def test_cli_a_password_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"p\xe4ss\n")
    path = tmp_path / "c.toml"
    path.write_text(QUIET + f'[broker]\nhost = "127.0.0.1"\nport = 1\npassword_file = "{secret}"\nusername = "u"\n')
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "s")], "broker.password_file")


def test_cli_a_state_dir_that_is_a_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(QUIET + "[broker]\nport = 0\nws_port = 0\n")
    (tmp_path / "state").write_text("not a directory")
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "state")], "table.state_dir")


@pytest.mark.parametrize("ca", ["missing", "not a certificate"])
def test_cli_a_bad_ca_file_exits_2(tmp_path: Path, ca: str) -> None:
    ca_file = tmp_path / "ca.pem"
    if ca != "missing":
        ca_file.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    path = tmp_path / "c.toml"
    path.write_text(QUIET + f'[broker]\nhost = "127.0.0.1"\nport = 1\ntls = true\nca_file = "{ca_file}"\n')
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "s")], "ca_file")


def test_cli_an_unknown_preset_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(QUIET.replace('backend = "virtual"', 'backend = "virtual"\npreset = "turbo"'))
    one_line_exit_2(["--config", str(path), "--state-dir", str(tmp_path / "s")], "launcher.preset")


@pytest.mark.parametrize(
    ("launcher", "line"),
    [
        ("retract_ms = -5", "launcher.retract_ms must be a whole number from 0 to 2000 ms, got -5"),
        ('retract_ms = "fast"', "launcher.retract_ms must be a whole number from 0 to 2000 ms, got 'fast'"),
        ("[launcher.virtual]\nspeed = 2", "unknown key launcher.virtual.speed (known in [launcher.virtual]: "),
    ],
    ids=["out-of-range", "wrong-type", "unknown-key-in-backend-table"],
)
def test_cli_a_bad_launcher_setting_stops_start_up_before_anything_starts(
    tmp_path: Path, launcher: str, line: str
) -> None:
    """Checked when the file loads: one line naming the key, exit 2, and no state directory created (the journal,
    the broker and the launcher were never started)."""
    path = tmp_path / "c.toml"
    path.write_text(QUIET.replace('backend = "virtual"\n', f'backend = "virtual"\n{launcher}\n'))
    state = tmp_path / "state"
    result = _run(["--config", str(path), "--state-dir", str(state)])
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"unolauncher run: {line}"), result.stderr[-2000:]
    assert not state.exists()
