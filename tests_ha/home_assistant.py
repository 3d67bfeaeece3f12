"""A real Home Assistant for ``python3 dev.py ha-check``: installed once into a cached venv outside the repository,
started on a free port with a fresh configuration, onboarded and given the MQTT integration through its own REST
API (the config flow a user clicks through).

Home Assistant needs Python >= 3.13 (``homeassistant==2025.4.4`` is the newest release that runs on 3.13.0, the
pyenv interpreter found on the development machines); :func:`find_python` looks for one and the suite skips, saying
why, where there is none.

Example::

    with HomeAssistant(tmp_path) as ha:
        ha.add_mqtt(port=1883)
        print(ha.state("sensor.uno_kitchen_phase"))
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from support.net import free_port, wait_until
from support.process import end_process

HA_VERSION = "2025.4.4"
# Installed with it, so Home Assistant installs nothing at run time (--skip-pip): MQTT's client and the frontend.
EXTRA_REQUIREMENTS = ["paho-mqtt==2.1.0", "home-assistant-frontend==20250411.0"]
CACHE = Path(os.environ.get("UNOLAUNCHER_HA_CACHE", Path.home() / ".cache" / "unolauncher-ha"))
CLIENT_ID = "http://127.0.0.1/"


def find_python() -> str | None:
    """An interpreter that can run Home Assistant (>= 3.13): ``UNOLAUNCHER_HA_PYTHON``, ``python3.13`` on the PATH,
    or pyenv's 3.13.x."""
    candidates = [os.environ.get("UNOLAUNCHER_HA_PYTHON", ""), shutil.which("python3.13") or ""]
    candidates += sorted(glob.glob(str(Path.home() / ".pyenv" / "versions" / "3.13*" / "bin" / "python")))
    for candidate in filter(None, candidates):
        try:
            out = subprocess.run(
                [candidate, "-c", "import sys; print(sys.version_info[:2] >= (3, 13))"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except OSError:
            continue
        if out.stdout.strip() == "True":
            return candidate
    return None


def ensure_installed(python: str) -> Path:
    """The cached venv's ``hass``, installing Home Assistant into it first if needed (minutes, once)."""
    venv = CACHE / "venv"
    hass = venv / "bin" / "hass"
    stamp = venv / f".installed-{HA_VERSION}"
    if hass.exists() and stamp.exists():
        return hass
    CACHE.mkdir(parents=True, exist_ok=True)
    if not (venv / "bin" / "python").exists():
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run(
        ["nice", "-n", "10", *pip, f"homeassistant=={HA_VERSION}", *EXTRA_REQUIREMENTS], check=True, timeout=3600
    )
    stamp.write_text(HA_VERSION)
    return hass


CONFIGURATION = """\
homeassistant:
  name: UNO test home
  latitude: 52.5
  longitude: 13.4
  elevation: 30
  unit_system: metric
  time_zone: UTC
  country: DE
  currency: EUR
http:
  server_host: 127.0.0.1
  server_port: {port}
frontend:
config:
api:
automation: !include automations.yaml
counter:
  motor_runs:
    initial: 0
    step: 1
  rounds_by_event_entity:
    initial: 0
    step: 1
  rounds_by_device_trigger:
    initial: 0
    step: 1
logger:
  default: warning
"""


class HomeAssistant:
    """One Home Assistant process with its own configuration directory (see the module docstring)."""

    def __init__(self, workdir: Path, hass: Path) -> None:
        self.config_dir = workdir / "ha-config"
        self.hass = hass
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.token = ""
        self.tokens: dict[str, Any] = {}
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / "home-assistant.log"

    # -- life ---------------------------------------------------------------------------------------------------

    def start(self, timeout: float = 600.0) -> None:
        self.config_dir.mkdir(parents=True, exist_ok=True)
        (self.config_dir / "configuration.yaml").write_text(CONFIGURATION.format(port=self.port))
        automations = self.config_dir / "automations.yaml"
        if not automations.exists():
            automations.write_text("[]\n")
        log = self.log_path.open("ab")
        command = ["nice", "-n", "10", str(self.hass), "-c", str(self.config_dir), "--skip-pip"]
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        if not wait_until(self._answers, timeout, interval=1.0):
            raise RuntimeError(f"Home Assistant did not start; log:\n{self.log_text()[-4000:]}")

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"Home Assistant exited; log:\n{self.log_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{self.base}/api/onboarding", timeout=5) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def stop(self) -> None:
        if self.process is not None:
            end_process(self.process, 60)
            self.process = None

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> HomeAssistant:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    # -- REST -----------------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, form: dict[str, str] | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        with urllib.request.urlopen(request, timeout=60) as answer:
            text = answer.read().decode()
        return json.loads(text) if text.strip() else None

    def onboard(self) -> None:
        """Create the owner, log in, and finish onboarding (as the first page of a new Home Assistant does)."""
        user = self.request(
            "POST",
            "/api/onboarding/users",
            {
                "client_id": CLIENT_ID,
                "name": "Tester",
                "username": "tester",
                "password": "uno-launcher-test",
                "language": "en",
            },
        )
        token = self.request(
            "POST",
            "/auth/token",
            form={"grant_type": "authorization_code", "code": user["auth_code"], "client_id": CLIENT_ID},
        )
        self.tokens = token  # the browser's login (tests_ha/screenshot.py)
        self.token = token["access_token"]
        self.request("POST", "/api/onboarding/core_config", {})
        self.request("POST", "/api/onboarding/analytics", {})
        self.request("POST", "/api/onboarding/integration", {"client_id": CLIENT_ID, "redirect_uri": CLIENT_ID})

    def add_mqtt(self, port: int) -> dict[str, Any]:
        """The MQTT integration through its config flow (discovery on, prefix ``homeassistant``: the defaults)."""
        flow = self.request("POST", "/api/config/config_entries/flow", {"handler": "mqtt"})
        result: dict[str, Any] = self.request(
            "POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"broker": "127.0.0.1", "port": port}
        )
        return result

    def states(self) -> dict[str, dict[str, Any]]:
        return {s["entity_id"]: s for s in self.request("GET", "/api/states")}

    def state(self, entity_id: str) -> str | None:
        found = self.states().get(entity_id)
        return None if found is None else str(found["state"])

    def template(self, text: str) -> str:
        request = urllib.request.Request(
            self.base + "/api/template",
            data=json.dumps({"template": text}).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            return str(answer.read().decode())

    def call(self, domain: str, service: str, **data: Any) -> None:
        self.request("POST", f"/api/services/{domain}/{service}", data)

    def add_automation(self, automation_id: str, config: dict[str, Any]) -> None:
        """Through the automation editor's API (writes automations.yaml and reloads)."""
        self.request("POST", f"/api/config/automation/config/{automation_id}", {"id": automation_id, **config})

    def counter(self, name: str) -> int:
        value = self.state(f"counter.{name}")
        return int(value) if value not in (None, "unknown", "unavailable") else -1

    def wait_state(self, entity_id: str, predicate: Any, timeout: float = 60.0) -> bool:
        return wait_until(lambda: predicate(self.state(entity_id)), timeout, interval=0.5)

    def errors_about(self, word: str) -> list[str]:
        """Lines of Home Assistant's log at ERROR or WARNING that mention ``word``."""
        return [
            line for line in self.log_text().splitlines() if word in line and (" ERROR " in line or " WARNING " in line)
        ]


def now() -> float:
    return time.time()
