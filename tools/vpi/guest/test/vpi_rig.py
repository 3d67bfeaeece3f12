"""The virtual Pi test's rig, inside the guest: gpio-sim's lines (:class:`Sim`), the table over MQTT (:class:`Table`),
systemd, and the pace of this guest (:data:`PACE`), from which every wait's ceiling is derived.

Under TCG a guest runs several times slower than a Pi, and slower still on a loaded host (arm64 more than amd64):
nothing here sleeps to let time pass; each wait polls or blocks for the state it means, and gives up only after its
ceiling times ``PACE.slow``, which ``vpi_test.py``'s ``boot`` measures once.

Example (in the guest)::

    wait_for(lambda: Sim().role("motor_forward") == 1, 10, "the motor's forward line high")  # 10 s x PACE.slow
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

TABLE = "vpi"
BASE = f"unolauncher/{TABLE}"
UNIT = "unolauncher.service"
CONFIG = Path("/etc/unolauncher/config.toml")
PINS = tomllib.loads(Path("/etc/unolauncher/pins.toml").read_text())["pins"]
SIM_CONFIG = Path("/sys/kernel/config/gpio-sim/vpi")


class Failed(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


@dataclass
class Pace:
    """How much slower than the nominal guest this one runs (``slow`` >= 1), measured by ``vpi_test.py``'s boot:
    the mean time of a gpio-sim sysfs read and of an MQTT command's round trip against the figures below: those of
    the amd64 guest under TCG on the shared 2-core host at load ~13, where every scenario passed with the rig's
    timings (1.42 ms and 81 ms measured, docs/reliability.md)."""

    READ_S = 0.0015  # one sim_gpioN/value read from Python
    ROUND_TRIP_S = 0.1  # a status command and its reply through the embedded broker
    slow: float = 1.0
    read_s: float = 0.0
    round_trip_s: float = 0.0

    def ceiling(self, seconds: float) -> float:
        return seconds * self.slow

    def set(self, read_s: float, round_trip_s: float) -> None:
        self.read_s, self.round_trip_s = read_s, round_trip_s
        self.slow = max(1.0, read_s / self.READ_S, round_trip_s / self.ROUND_TRIP_S)


PACE = Pace()


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.01) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail naming ``what`` after ``timeout`` seconds (times
    the guest's measured slowness, :data:`PACE`)."""
    timeout = PACE.ceiling(timeout)
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failed(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


class Sim:
    """The gpio-sim chip's lines by BCM number (line offset = BCM GPIO, 28 lines: tools/vpi/guest/base)."""

    def __init__(self) -> None:
        device = (SIM_CONFIG / "dev_name").read_text().strip()
        chip = (SIM_CONFIG / "gpio-bank0/chip_name").read_text().strip()
        self.chip = chip
        self.dev = f"/dev/{chip}"
        self.root = Path("/sys/devices/platform") / device / chip
        self._last_card = 0.0

    def value(self, gpio: int) -> int:
        return int((self.root / f"sim_gpio{gpio}/value").read_text())

    def pull(self, gpio: int, level: str) -> None:
        (self.root / f"sim_gpio{gpio}/pull").write_text(f"pull-{level}")

    def role(self, role: str) -> int:
        return self.value(PINS[role])

    def motor_off(self) -> bool:
        return all(self.role(r) == 0 for r in ("motor_enable", "motor_forward", "motor_reverse"))

    def press(self) -> None:  # the button is wired to GND with a pull-up: pressed = low
        self.pull(PINS["button"], "down")

    def release(self) -> None:
        self.pull(PINS["button"], "up")

    def card(self) -> None:
        """A card breaks the beam (the receiver pulls the line low) for 12 ms; cards come at most 9 a second, as
        the toy ejects them (the virtual toy's defaults): this paces the simulated world, it counts nothing."""
        wait = self._last_card + 1 / 9 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_card = time.monotonic()
        self.pull(PINS["sensor"], "down")
        wait_for(lambda: self.role("sensor") == 0, 5, "the beam line low")
        time.sleep(0.012)
        self.pull(PINS["sensor"], "up")
        wait_for(lambda: self.role("sensor") == 1, 5, "the beam line high")

    def duty(self, gpio: int, while_: Callable[[], bool], limit: int = 4000) -> tuple[float, int]:
        """The share of high reads of a line while ``while_()`` holds (software PWM sampled at random phases)."""
        high = total = 0
        while total < limit and while_():
            high += self.value(gpio)
            total += 1
        return (high / total if total else 0.0), total


class Table:
    """An MQTT client of the table, reconnecting by itself when the daemon (and its embedded broker) restarts."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.status: list[str] = []
        self.lock = threading.Condition()
        self.connected = threading.Event()
        self.counter = 0
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"vpi-test-{os.getpid()}")
        self.client.reconnect_delay_set(1, 2)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", 1883, keepalive=30)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not reason.is_failure:
            client.subscribe([(f"{BASE}/events", 1), (f"{BASE}/reply", 1), (f"{BASE}/status", 1)])
            self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            if message.topic.endswith("/events"):
                self.events.append(json.loads(message.payload))
            elif message.topic.endswith("/reply"):
                self.replies.put(json.loads(message.payload))
            else:
                self.status.append(message.payload.decode())
            self.lock.notify_all()

    def mark(self) -> int:
        with self.lock:
            return len(self.events)

    def event(self, since: int, match: Callable[[dict[str, Any]], bool], timeout: float, what: str) -> dict[str, Any]:
        """The first event after position ``since`` that ``match``es (waiting for it up to ``timeout`` s, paced)."""
        timeout = PACE.ceiling(timeout)
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for event in self.events[since:]:
                    if match(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [e.get("type") for e in self.events[since:]]
                    raise Failed(f"timed out after {timeout:g} s waiting for {what}; events since: {seen}")
                self.lock.wait(left)

    def command(self, payload: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        self.counter += 1
        ident = f"t{self.counter}"
        timeout = PACE.ceiling(timeout)
        self.client.publish(f"{BASE}/cmd", json.dumps({**payload, "id": ident}), qos=1)
        deadline = time.monotonic() + timeout
        while True:
            try:
                reply = self.replies.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise Failed(f"no reply to {payload['type']} within {timeout:g} s") from None
            if reply.get("id") == ident:
                return reply

    def online(self, since_status: int, timeout: float) -> None:
        """A fresh ``online`` after position ``since_status`` (the daemon's broker came back and it subscribed)."""
        timeout = PACE.ceiling(timeout)
        with self.lock:
            ok = self.lock.wait_for(lambda: "online" in self.status[since_status:], timeout)
        check(ok, f"no 'online' from the daemon within {timeout:g} s")

    def launcher(self) -> dict[str, Any]:
        launcher: dict[str, Any] = self.command({"type": "status"})["data"]["launcher"]
        return launcher


def unit(*props: str) -> dict[str, str]:
    out = subprocess.run(["systemctl", "show", UNIT, *(f"-p{p}" for p in props)], capture_output=True, text=True)
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


def systemctl(*args: str) -> None:
    subprocess.run(["systemctl", *args], check=True, timeout=PACE.ceiling(120))


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False
