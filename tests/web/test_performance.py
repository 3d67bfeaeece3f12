"""Dashboard performance, measured inside Chromium: cold-cache page load and event -> DOM latency.

Run once per broker (the embedded amqtt of ``unolauncher run``, and mosquitto). Figures are printed (``-s``) and
written to ``test-artifacts/dashboard-perf-<broker>.json``; docs/performance.md ("Dashboard") quotes them.
Targets from the issue: the page is usable in under 1 s on loopback with a cold cache; an event reaches the DOM
within a few milliseconds of the MQTT event.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import expect

from support.benchstats import percentile

from .conftest import PHONE, GameFactory, PhoneFactory, Stack, stack_on_mosquitto
from .test_dashboard import start_rigged

LOADS = 5
EVENTS = 300

# Runs in the page: a second MQTT.js client publishes events one at a time; for each, the time from publish to
# the page's MQTT message callback (broker round trip) and from there to the feed row in the DOM.
MEASURE_EVENTS_JS = """
async ([n, base]) => {
  const app = window.unoDashboard;
  const pub = mqtt.connect(app.config.mqtt_url, { protocolVersion: 4, clientId: "perf-publisher" });
  await new Promise((resolve) => pub.on("connect", resolve));
  let received = 0;
  app.link.client.prependListener("message", () => { received = performance.now(); });
  const feed = document.getElementById("feed");
  const total = [], inPage = [];
  for (let i = 1; i <= n; i++) {
    const shown = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (feed.querySelector(`[data-seq="${i}"]`)) { observer.disconnect(); resolve(performance.now()); }
      });
      observer.observe(feed, { childList: true });
    });
    const sent = performance.now();
    pub.publish(base + "events", JSON.stringify({ type: "hit", player: "ann", cards: i % 5, owed_left: 0, seq: i }),
                { qos: 1 });
    const dom = await shown;
    total.push(dom - sent);
    inPage.push(dom - received);
  }
  pub.end(true);
  return { total, inPage };
}
"""

# Runs in the page: note the wall-clock time each feed row appears (timeOrigin + now() is the epoch clock the
# Python publisher also reads, on the same machine).
WATCH_FEED_JS = """
() => {
  window.__shown = {};
  const feed = document.getElementById("feed");
  new MutationObserver((records) => {
    const now = performance.timeOrigin + performance.now();
    for (const r of records) {
      for (const node of r.addedNodes) if (node.dataset && node.dataset.seq) window.__shown[node.dataset.seq] = now;
    }
  }).observe(feed, { childList: true });
}
"""

LOAD_TIMINGS_JS = """
() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const mark = (name) => performance.getEntriesByName(name)[0].startTime;
  const resources = performance.getEntriesByType("resource");
  return {
    domContentLoaded: nav.domContentLoadedEventEnd,
    load: nav.loadEventEnd,
    connected: mark("uno-connected"),
    state: mark("uno-state"),
    transferred: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
    fromCache: resources.filter((r) => r.transferSize === 0 && r.decodedBodySize > 0).length,
  };
}
"""


@pytest.fixture(scope="module", params=["embedded", "mosquitto"])
def stack(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if request.param == "embedded":
        yield Stack(request.getfixturevalue("daemon"), request.getfixturevalue("table"))
        return
    with stack_on_mosquitto(tmp_path_factory.mktemp("perf-mosquitto")) as running:
        yield running


def test_cold_load_and_event_to_dom_latency(
    phones: PhoneFactory, browser: Any, stack: Stack, rigged: GameFactory, artifacts_dir: Path
) -> None:
    table, url = stack.table, stack.url
    broker = "mosquitto 2.0" if stack.broker else "embedded amqtt"
    start_rigged(table, rigged)
    loads: list[dict[str, float]] = []
    for _ in range(LOADS):
        context = browser.new_context(viewport=PHONE, device_scale_factor=2)  # fresh context = cold HTTP cache
        try:
            page = context.new_page()
            page.goto(url)
            expect(page.locator("body[data-has-state='1']")).to_have_count(1, timeout=10_000)
            expect(page.locator(".seat")).to_have_count(3)
            loads.append(page.evaluate(LOAD_TIMINGS_JS))
        finally:
            context.close()
    assert all(load["fromCache"] == 0 for load in loads), "a cold load was served from cache"
    usable = [load["state"] for load in loads]
    # The target (usable in under a second on loopback, cold cache) is a figure for docs/performance.md,
    # not a pass/fail line: timings on a shared CI machine are noise. The test proves the measurement is real.
    assert all(0 < load["domContentLoaded"] <= load["state"] for load in loads), loads

    page = phones.open(url + "?table=perf")
    # Subscribed, not only "online" (which the page says before the broker's SUBACK): the events below are not
    # retained, and one published before the subscription is lost (the first one's wait would never end).
    page.wait_for_function("() => window.unoDashboard.link.subscribed === true", timeout=10_000)
    result = page.evaluate(MEASURE_EVENTS_JS, [EVENTS, "unolauncher/perf/"])
    total, in_page = result["total"], result["inPage"]
    assert len(total) == EVENTS

    # The real path: a Python (paho) publisher over TCP, as the daemon publishes, to the page over WebSockets.
    page.evaluate(WATCH_FEED_JS)
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="perf-daemon")
    publisher.connect(stack.daemon.mqtt_host, stack.daemon.mqtt_port)
    publisher.loop_start()
    sent: dict[int, float] = {}
    try:
        for seq in range(EVENTS + 1, 2 * EVENTS + 1):
            event = {"type": "hit", "player": "ann", "cards": seq % 5, "owed_left": 0, "seq": seq}
            sent[seq] = time.time() * 1000
            publisher.publish("unolauncher/perf/events", json.dumps(event), qos=1)
            time.sleep(0.02)  # 50 events/s: far busier than a real table, yet not a flood (latency, not throughput)
        expect(page.locator(f'#feed [data-seq="{2 * EVENTS}"]')).to_have_count(1)
    finally:
        publisher.loop_stop()
        publisher.disconnect()
    shown = page.evaluate("() => window.__shown")
    daemon_to_dom = [shown[str(seq)] - t for seq, t in sent.items()]
    figures = {
        "broker": broker,
        "cold_load_ms": {
            "runs": LOADS,
            "dom_content_loaded_median": statistics.median(load["domContentLoaded"] for load in loads),
            "load_event_median": statistics.median(load["load"] for load in loads),
            "mqtt_connected_median": statistics.median(load["connected"] for load in loads),
            "state_on_screen_median": statistics.median(usable),
            "state_on_screen_max": max(usable),
            "bytes_transferred": loads[0]["transferred"],
        },
        "event_to_dom_ms": {
            "events": EVENTS,
            "publish_to_dom_median": statistics.median(total),
            "publish_to_dom_p99": percentile(total, 0.99),
            "message_to_dom_median": statistics.median(in_page),
            "message_to_dom_p99": percentile(in_page, 0.99),
            "paho_publish_to_dom_median": statistics.median(daemon_to_dom),
            "paho_publish_to_dom_p99": percentile(daemon_to_dom, 0.99),
        },
    }
    slug = broker.split()[0]
    (artifacts_dir / f"dashboard-perf-{slug}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    # Figures, not thresholds (see above): every event was timed, and the page's share is part of the whole trip.
    assert len(daemon_to_dom) == EVENTS and all(t >= 0 for t in daemon_to_dom), figures
    assert all(0 <= inner <= whole for inner, whole in zip(in_page, total)), figures
