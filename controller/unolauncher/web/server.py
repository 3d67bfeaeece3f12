"""The dashboard's tiny HTTP server: the static page plus ``/config.json``, in one background thread.

It only serves files; everything live goes over MQTT (the page talks to the broker's WebSocket listener
directly), so the server stays small and stdlib-only — it sits on the daemon's start-up path on a Pi Zero.

API for the daemon::

    from unolauncher.web.server import DashboardServer

    web = DashboardServer(
        host="0.0.0.0",  # "127.0.0.1" to keep it local
        port=8080,  # 0 picks a free port (tests)
        config={
            "mqtt_url": "ws://{host}:9001/mqtt",  # "{host}" becomes the host name the phone used
            "table": "t1",
            "base": "unolauncher/t1/",
            "launcher": "virtual",  # optional: "virtual" shows the big on-screen launcher button
        },
    )
    web.start()  # binds now (raises OSError if the port is taken), serves in a thread
    print("dashboard at", web.url)  # e.g. http://127.0.0.1:8080/
    ...
    web.stop()  # closes the socket and joins the thread; safe to call twice

``config`` is returned as-is (after ``{host}`` substitution in ``mqtt_url``) at ``GET /config.json``. Keys the
page reads: ``mqtt_url`` (required), ``table``, ``base`` (defaults to ``unolauncher/<table>/``), ``launcher``,
``title``. Never put broker credentials here: the page asks for them once and keeps them on the phone.

Text files are gzip-compressed once on first request (the vendored MQTT.js shrinks to under a third: it matters on a
Pi's Wi-Fi). The vendored library is cached for a day; the page's own files are revalidated
with an ETag so a new version shows up at once.

Bounded against a hostile LAN: files are cached by their resolved path (``/./././x`` is the same entry as ``/x``), at
most :data:`MAX_CACHED_FILES`; a request must arrive whole within ``request_timeout`` seconds (a client dribbling a
byte at a time is cut off, as is a keep-alive connection left idle); at most ``max_connections`` connections are
served at once, ``max_per_client`` from one address (more are closed at once instead of queueing, and one host cannot
take every slot from the phones; sized for a table's phones behind one NAT); a request head over
:data:`MAX_HEAD_BYTES` or with more than :data:`MAX_HEADERS` headers gets a 431 (or 414) and is not read further; a
kept-alive connection idle for :data:`KEEP_ALIVE_IDLE_S` is closed, and none is kept past ``max_connection_s``;
a request the server cannot make sense of (a NUL byte or an over-long path, a ``Host`` that is not a host) gets a
4xx, never a traceback. ``/config.json`` names the broker by the ``Host`` only when that is this machine's name.
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import io
import ipaddress
import logging
import socket
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from unolauncher import strict_json
from unolauncher.slots import ConnectionSlots

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".md": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".webmanifest": "application/manifest+json",
}
COMPRESSIBLE = (".html", ".js", ".css", ".json", ".svg", ".md", ".txt", ".webmanifest")
MAX_CACHED_FILES = 64  # the page has about 15 files
MAX_PATH = 1024  # characters of a URL path; the page's longest is about 30
REQUEST_TIMEOUT_S = 10.0  # for the request line and headers to arrive, counted from the first byte awaited
SEND_TIMEOUT_S = 30.0  # for one response to be taken by the client (the MQTT library on a slow phone link)
MAX_CONNECTIONS = 128  # a household's phones need a few each
# From one address: a browser opens up to 6 per host, and a table's phones may all come from one address (a guest
# Wi-Fi's NAT, a phone's hotspot): 8 phones x 6. (16 hung the third phone behind one NAT.) Idle connections close
# after KEEP_ALIVE_IDLE_S, so a phone holds fewer than 6 for long.
MAX_PER_CLIENT = 48
MAX_HEAD_BYTES = 8 * 1024  # request line and headers together; a browser's request here is under 1 KiB
MAX_HEADERS = 40
KEEP_ALIVE_IDLE_S = 5.0  # a kept-alive connection with no new request this long is closed
MAX_CONNECTION_S = 60.0  # and none is kept past this, however busy: no client holds slots for ever


class _DeadlineReader(io.RawIOBase):
    """The connection's input with one deadline for a whole request head (per-read timeouts alone let a client keep a
    connection for ever by sending a byte just before each runs out)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.deadline = time.monotonic() + REQUEST_TIMEOUT_S
        self.budget = MAX_HEAD_BYTES  # bytes a request head may still take (reset per request)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        if self.budget <= 0:  # 99 headers of 64 KB from 16 connections once held +100 MB for 10 s
            raise http.client.LineTooLong(f"request head over {MAX_HEAD_BYTES} bytes")
        self._sock.settimeout(left)
        n = self._sock.recv_into(memoryview(buffer)[: self.budget])
        self.budget -= n
        return n


class _BoundedHTTPServer(ThreadingHTTPServer):
    """One thread per connection, within the connection slots; quiet about clients that hang up."""

    daemon_threads = True
    request_queue_size = 128  # listen backlog: a burst is accepted (and over the cap, closed) at once, not left waiting

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], slots: ConnectionSlots) -> None:
        super().__init__(address, handler)
        self.slots = slots

    def process_request(self, request: Any, client_address: Any) -> None:
        client = str(client_address[0])
        if not self.slots.take(client):
            self.shutdown_request(request)  # closed at once: no thread, no file handle kept for it
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.give_back(client)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.give_back(str(client_address[0]))

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A phone that walks out of Wi-Fi mid-response is normal, not a traceback in the journal.
        log.debug("dashboard connection from %s ended with an error", client_address, exc_info=True)


class _Asset:
    """One static file held in memory with its ETag and, for text, its gzip form (``gzipped``, else None).

    Made on the file's first request (under the server's asset lock), so each file is read and compressed once.
    """

    def __init__(self, path: Path) -> None:
        self.body = path.read_bytes()
        self.content_type = CONTENT_TYPES.get(path.suffix, "application/octet-stream")
        self.etag = '"' + hashlib.sha1(self.body, usedforsecurity=False).hexdigest()[:16] + '"'
        self.long_cache = "vendor" in path.parts
        self.gzipped = gzip.compress(self.body, compresslevel=6, mtime=0) if path.suffix in COMPRESSIBLE else None


class DashboardServer:
    """Serves the phone dashboard and its ``/config.json`` from a daemon thread.

    Example::

        server = DashboardServer("127.0.0.1", 0, {"mqtt_url": "ws://{host}:9001/mqtt", "table": "t1"})
        server.start()
        assert server.url.startswith("http://127.0.0.1:")
        server.stop()
    """

    def __init__(
        self,
        host: str = "0.0.0.0",
        port: int = 8080,
        config: dict[str, Any] | None = None,
        *,
        static_dir: Path | None = None,
        request_timeout: float = REQUEST_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
        max_per_client: int = MAX_PER_CLIENT,
        max_connection_s: float = MAX_CONNECTION_S,
    ) -> None:
        self.host = host
        self.max_connection_s = max_connection_s
        self.requested_port = port
        self.request_timeout = request_timeout
        self.slots = ConnectionSlots(max_connections, max_per_client)
        self.config: dict[str, Any] = dict(config or {})
        if "table" in self.config and "base" not in self.config:
            self.config["base"] = f"unolauncher/{self.config['table']}/"
        self.static_dir = (static_dir or STATIC_DIR).resolve()
        self._assets: dict[str, _Asset] = {}
        self._assets_lock = threading.Lock()
        self._httpd: _BoundedHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port (the real one when ``port=0`` was asked), or the requested port before start."""
        if self._httpd is not None:
            return int(self._httpd.server_address[1])
        return self.requested_port

    @property
    def url(self) -> str:
        """The page's address; ``0.0.0.0`` is shown as ``127.0.0.1`` so it can be opened as printed."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        """Bind the socket (errors surface here, in the caller's thread) and serve in a daemon thread."""
        if self._httpd is not None:
            return
        handler = _make_handler(self)
        self._httpd = _BoundedHTTPServer((self.host, self.requested_port), handler, self.slots)
        # poll_interval bounds how long stop() waits; 0.2 s costs a Pi Zero nothing measurable.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="dashboard-http", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and release the port."""
        httpd, thread = self._httpd, self._thread
        self._httpd = self._thread = None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if thread is not None:
            thread.join(5)

    def __enter__(self) -> DashboardServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the request handler -------------------------------------------------------------------------

    def config_for(self, host_header: str | None, local_address: str = "127.0.0.1") -> dict[str, Any]:
        """``config`` with ``{host}`` in ``mqtt_url`` replaced by the host name the browser used, if it is this
        machine's (an address, ``localhost``, the host name, a ``.local`` name); else by ``local_address``, the
        address the request came in on. A page on a rebound DNS name (``evil.example`` resolving to the Pi) is not
        sent to the broker under that name."""
        cfg = dict(self.config)
        url = cfg.get("mqtt_url")
        if isinstance(url, str) and "{host}" in url:
            name = _hostname(host_header)
            if not _own_name(name):
                name = f"[{local_address}]" if ":" in local_address else local_address
            cfg["mqtt_url"] = url.replace("{host}", name)
        return cfg

    def asset(self, url_path: str) -> _Asset | None:
        """The static file for a URL path, or None (also for anything outside the static folder).

        Cached by the file's resolved path, so the spellings of one file (``/x``, ``/./x``, ``/a/../x``) share one
        entry; files that appear after :data:`MAX_CACHED_FILES` are served but not kept.
        """
        rel = url_path.lstrip("/") or "index.html"
        try:
            path = (self.static_dir / rel).resolve()
            if not path.is_relative_to(self.static_dir) or not path.is_file():
                return None
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte
            return None
        key = str(path)
        with self._assets_lock:
            cached = self._assets.get(key)
            if cached is not None:
                return cached
            asset = _Asset(path)
            if len(self._assets) < MAX_CACHED_FILES:
                self._assets[key] = asset
            return asset

    def cached_files(self) -> int:
        """How many files the cache holds."""
        with self._assets_lock:
            return len(self._assets)

    @property
    def refused_connections(self) -> int:
        """Connections closed at once: ``max_connections`` in all, or ``max_per_client`` from one address, open."""
        return self.slots.refused


def _hostname(host_header: str | None) -> str:
    """The host name in a ``Host`` header, or "" when there is none or it is not a host (``[``)."""
    if not host_header:
        return ""
    try:
        name = urlsplit("//" + host_header.strip()).hostname or ""
    except ValueError:
        return ""
    return name if name.isprintable() and len(name) <= 253 else ""


def _own_name(name: str) -> bool:
    """Whether a host name from a ``Host`` header names this machine (an address literal, ``localhost``, its host
    name, an mDNS ``.local`` name, which only the LAN resolves)."""
    if not name:
        return False
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        pass
    name = name.lower().rstrip(".")
    return name in ("localhost", socket.gethostname().lower()) or name.endswith(".local")


def _make_handler(server: DashboardServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "unolauncher-dashboard"
        protocol_version = "HTTP/1.1"
        # Errors for requests without a version get a status line too (HTTP/0.9 answers have none).
        default_request_version = "HTTP/1.0"
        _reader: _DeadlineReader

        def parse_request(self) -> bool:
            if not super().parse_request():
                return False
            if len(self.requestline.split()) < 3:  # HTTP/0.9: no browser sends it
                self.send_error(HTTPStatus.BAD_REQUEST, "The request has no HTTP version.")
                return False
            if len(self.headers) > MAX_HEADERS:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers.")
                return False
            if time.monotonic() - self._opened > server.max_connection_s:
                self.close_connection = True  # answered, then closed: the slot goes back
            return True

        def setup(self) -> None:
            super().setup()
            self._reader = _DeadlineReader(self.connection)
            self.rfile = io.BufferedReader(self._reader)
            self._opened = time.monotonic()
            self._requests = 0

        def handle_one_request(self) -> None:
            # One deadline for each request's line and headers, and for the idle time before it (keep-alive: shorter).
            idle = min(server.request_timeout, KEEP_ALIVE_IDLE_S) if self._requests else server.request_timeout
            self._reader.deadline = time.monotonic() + idle
            self._reader.budget = MAX_HEAD_BYTES
            self._requests += 1
            self.raw_requestline = b""
            try:
                super().handle_one_request()
            except http.client.LineTooLong:  # the head budget ran out in the request line
                self.command, self.requestline, self.request_version = "", "", self.default_request_version
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG, "The request is too long.")
                self.close_connection = True

        def do_GET(self) -> None:
            self._respond(head=False)

        def do_HEAD(self) -> None:
            self._respond(head=True)

        def _respond(self, head: bool) -> None:
            self.connection.settimeout(SEND_TIMEOUT_S)
            try:
                path = urlsplit(self.path).path
            except ValueError:
                self.send_error(HTTPStatus.BAD_REQUEST, "The request path is not a URL.")
                return
            if "\x00" in path or len(path) > MAX_PATH:
                status = HTTPStatus.BAD_REQUEST if "\x00" in path else HTTPStatus.REQUEST_URI_TOO_LONG
                self.send_error(status, "The request path is not one this server has.")
                return
            if path == "/config.json":
                local = str(self.connection.getsockname()[0])
                body = strict_json.dumps(server.config_for(self.headers.get("Host"), local), sort_keys=False).encode()
                self._send(HTTPStatus.OK, body, "application/json", {"Cache-Control": "no-store"}, head)
                return
            asset = server.asset(path)
            if asset is None:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", {}, head)
                return
            headers = {
                "ETag": asset.etag,
                "Cache-Control": "public, max-age=86400" if asset.long_cache else "no-cache",
                "X-Content-Type-Options": "nosniff",
            }
            if self.headers.get("If-None-Match") == asset.etag:
                self._send(HTTPStatus.NOT_MODIFIED, b"", None, headers, head=True)
                return
            body = asset.body
            if asset.gzipped is not None and "gzip" in (self.headers.get("Accept-Encoding") or ""):
                body = asset.gzipped
                headers["Content-Encoding"] = "gzip"
                headers["Vary"] = "Accept-Encoding"
            self._send(HTTPStatus.OK, body, asset.content_type, headers, head)

        def _send(
            self, status: HTTPStatus, body: bytes, content_type: str | None, headers: dict[str, str], head: bool
        ) -> None:
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            # Quiet: the daemon logs what matters; a request log per asset would flood a Pi's journal.
            pass

    return Handler
