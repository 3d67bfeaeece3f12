"""Home Assistant ``online`` flood (#33 item 10): ``unolauncher run`` on its embedded broker, a paho client floods
``online`` on a topic, then ten ``status`` commands are timed and the daemon's RSS read (Linux ``/proc``).

    .venv/bin/python bench/ha_flood.py [TOPIC] [COUNT] [QOS]
    .venv/bin/python bench/ha_flood.py homeassistant/status 20000 0
    .venv/bin/python bench/ha_flood.py unolauncher/t1/cmd 20000 0

Prints one JSON line: the seconds each ``status`` took and the RSS before and at its peak (MB).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.daemon import DaemonProcess, TableClient


def main(topic: str = "homeassistant/status", count: int = 20_000, qos: int = 0) -> None:
    with (
        tempfile.TemporaryDirectory() as workdir,
        DaemonProcess(Path(workdir), overrides={"homeassistant": {"enabled": True}}) as daemon,
    ):
        table = TableClient(daemon.mqtt_host, daemon.mqtt_port, "t1", name="flood-watch")
        assert table.command({"type": "status"})["ok"]
        time.sleep(1)
        rss_before = peak = daemon.rss_mb()
        flood = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="flood")
        flood.connect(daemon.mqtt_host, daemon.mqtt_port)
        flood.loop_start()
        for _ in range(count):
            flood.publish(topic, "online", qos=qos)
        took = []
        for _ in range(10):
            started = time.monotonic()
            table.command({"type": "status"}, timeout=60)
            took.append(round(time.monotonic() - started, 3))
            peak = max(peak, daemon.rss_mb())
        flood.disconnect()
        flood.loop_stop()
        table.close()
        print(
            json.dumps(
                {
                    "topic": topic,
                    "count": count,
                    "qos": qos,
                    "status_s": took,
                    "rss_before_mb": round(rss_before, 1),
                    "rss_peak_mb": round(peak, 1),
                }
            )
        )


if __name__ == "__main__":
    main(*(int(a) if a.isdigit() else a for a in sys.argv[1:]))  # type: ignore[arg-type]
