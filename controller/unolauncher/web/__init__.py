"""The phone dashboard: its static files (``static/``: ``index.html``, one JavaScript module per concern in
``static/js/``, the vendored MQTT.js) and the tiny HTTP server that serves them (``server.py``:
:class:`~unolauncher.web.server.DashboardServer`, bounded connections, gzip). The page talks to the table over MQTT
(WebSocket), not through this server.
"""
