"""The dashboard's HTTP server: the page, its config with the phone's host name, caching, compression, refusals."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from unolauncher.web.server import STATIC_DIR, DashboardServer


@pytest.fixture
def server() -> Iterator[DashboardServer]:
    config = {"mqtt_url": "ws://{host}:9001/mqtt", "table": "kitchen", "launcher": "virtual"}
    with DashboardServer("127.0.0.1", 0, config) as running:
        yield running


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_serves_the_page_at_root(server: DashboardServer) -> None:
    status, headers, body = get(server.url)
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert b'<script src="vendor/mqtt.min.js"' in body
    assert body == (STATIC_DIR / "index.html").read_bytes()


def test_config_uses_the_host_name_the_phone_used(server: DashboardServer) -> None:
    status, headers, body = get(server.url + "config.json", {"Host": f"raspberrypi.local:{server.port}"})
    assert status == 200
    assert headers["Cache-Control"] == "no-store"
    config = json.loads(body)
    assert config["mqtt_url"] == "ws://raspberrypi.local:9001/mqtt"
    assert config["base"] == "unolauncher/kitchen/"  # derived from the table id
    assert config["table"] == "kitchen" and config["launcher"] == "virtual"


def test_vendored_mqtt_library_is_gzipped_and_cached(server: DashboardServer) -> None:
    status, headers, body = get(server.url + "vendor/mqtt.min.js", {"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert "max-age=86400" in headers["Cache-Control"]
    raw = gzip.decompress(body)
    assert raw == (STATIC_DIR / "vendor" / "mqtt.min.js").read_bytes()
    assert len(body) < len(raw) / 2


def test_page_files_revalidate_with_etag(server: DashboardServer) -> None:
    status, headers, _ = get(server.url + "js/main.js")
    assert status == 200 and headers["Cache-Control"] == "no-cache"
    status, _, body = get(server.url + "js/main.js", {"If-None-Match": headers["ETag"]})
    assert status == 304 and body == b""


@pytest.mark.parametrize("path", ["nope.html", "../server.py", "%2e%2e/server.py", "js/../../server.py", "js/"])
def test_unknown_or_outside_paths_are_404(server: DashboardServer, path: str) -> None:
    status, _, body = get(server.url + path)
    assert status == 404
    assert b"def " not in body


def test_port_zero_picks_a_free_port_and_stop_releases_it() -> None:
    first = DashboardServer("127.0.0.1", 0, {"mqtt_url": "ws://x/mqtt"})
    first.start()
    port = first.port
    assert port > 0 and first.url == f"http://127.0.0.1:{port}/"
    first.stop()
    first.stop()  # idempotent
    again = DashboardServer("127.0.0.1", port, {"mqtt_url": "ws://x/mqtt"})
    again.start()  # the port was released
    again.stop()


def test_busy_port_raises_at_start() -> None:
    with DashboardServer("127.0.0.1", 0, {}) as taken:
        clash = DashboardServer("127.0.0.1", taken.port, {})
        with pytest.raises(OSError):
            clash.start()
