"""What a started daemon has imported: nothing that only a CLI subcommand, an unconfigured backend, the dashboard or
an embedded broker uses. Every module loaded stays in memory for the daemon's whole life (docs/performance.md,
"Daemon RSS"), so code that an idle table never runs must be imported where it is used.

The daemon runs in a fresh interpreter (``running_daemon``: external broker that is not there, dashboard off), which
then prints its ``sys.modules``: once on the virtual launcher, once on the GPIO backend (gpiozero's mock pins standing
in for a Pi's), which must not load the simulated toy either.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]

# Imported only by the subcommand, backend or option that uses them.
NOT_IN_AN_IDLE_DAEMON = (
    "unolauncher.cli.simulate",  # `unolauncher simulate`
    "unolauncher.rules.bots",
    "unolauncher.cli.replay",  # `unolauncher replay`
    "unolauncher.cli.selftest",  # `unolauncher selftest`
    "unolauncher.launcher.gpio_selftest",
    "unolauncher.launcher.calibrate",
    "unolauncher.cli.verify",  # `unolauncher verify`
    "unolauncher.rules.ejection_audit",
    "unolauncher.cli.export",  # `unolauncher export`
    "unolauncher.cli.league",  # `unolauncher league`
    "unolauncher.league",
    "unolauncher.cli.ha_remove",  # `unolauncher ha-remove`
    "unolauncher.web.server",  # dashboard.enabled = false
    "unolauncher.bus.broker",  # an external broker: no amqtt
    "unolauncher.voice.speaker",  # voice.enabled = false
    "amqtt",
    "unolauncher.launcher.backends.serial.protocol",  # backend = "virtual": no wire protocol, no COBS, no pyserial
    "unolauncher.launcher.backends.serial.launcher",
    "cobs",
    "serial",
)

TOY = "unolauncher.launcher.backends.virtual.toy"  # the simulated toy (and gpiozero's mock pins under it)

SCRIPT = """
import json, sys
from pathlib import Path
from support.daemon import running_daemon
launcher = json.loads(sys.argv[2])
with running_daemon(Path(sys.argv[1]), overrides={"launcher": launcher}) as daemon:
    assert daemon.table is not None and (daemon.virtual is not None) == (launcher["backend"] == "virtual")
    print(json.dumps(sorted(sys.modules)))
"""


def started_daemon_modules(workdir: Path, launcher: dict[str, str]) -> set[str]:
    """``sys.modules`` of a fresh interpreter that has started a daemon with these ``[launcher]`` keys."""
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(workdir), json.dumps(launcher)],
        capture_output=True,
        text=True,
        cwd=ROOT / "tests",
        timeout=50,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    modules = set(json.loads(proc.stdout.splitlines()[-1]))
    assert {"unolauncher.daemon.table", "unolauncher.launcher.backends.gpio.launcher"} <= modules  # a real start
    return modules


@pytest.mark.parametrize("launcher", [{"backend": "virtual"}, {"backend": "gpio", "pin_factory": "mock"}])
def test_an_idle_daemon_has_not_imported_what_it_does_not_run(tmp_path: Path, launcher: dict[str, str]) -> None:
    for name in (*NOT_IN_AN_IDLE_DAEMON, TOY):  # a renamed module would make this test pass for nothing
        assert importlib.util.find_spec(name) is not None, name
    modules = started_daemon_modules(tmp_path, launcher)
    imported = [name for name in NOT_IN_AN_IDLE_DAEMON if name in modules]
    assert imported == [], f"an idle daemon imported {imported}"
    assert (TOY in modules) == (launcher["backend"] == "virtual"), "the simulated toy is loaded only when it runs"


BROKER_SCRIPT = """
import json, sys, threading
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from unolauncher.bus.broker import EmbeddedBroker
broker = EmbeddedBroker(port=0, ws_port=0)
broker.start()
connected = threading.Event()
client = mqtt.Client(CallbackAPIVersion.VERSION2)  # no user name: an anonymous client, as a phone's
client.on_connect = lambda c, userdata, flags, reason, props: connected.set() if not reason.is_failure else None
client.connect("127.0.0.1", broker.port)
client.loop_start()
assert connected.wait(10), "the anonymous client was not let in"
client.disconnect()
client.loop_stop()
broker.stop()
print(json.dumps(sorted(sys.modules)))
"""


def test_the_embedded_broker_lets_clients_in_without_loading_password_hashing() -> None:
    # amqtt's own anonymous plugin shares its module with the password-file plugin (pwdlib, argon2, crypt).
    proc = subprocess.run([sys.executable, "-c", BROKER_SCRIPT], capture_output=True, text=True, timeout=50)
    assert proc.returncode == 0, proc.stderr[-3000:]
    modules = set(json.loads(proc.stdout.splitlines()[-1]))
    assert "unolauncher.bus.broker_auth" in modules and "amqtt.broker" in modules
    loaded = [name for name in ("amqtt.plugins.authentication", "pwdlib", "argon2", "crypt") if name in modules]
    assert loaded == [], f"the embedded broker loaded {loaded}"
