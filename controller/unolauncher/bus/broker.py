"""The embedded MQTT broker (amqtt) for zero-setup use: TCP and WebSocket listeners, in its own thread.

amqtt speaks MQTT 3.1.1 only and manages ~6k messages/s here (NOTES.md): fine for one table and a few phones;
production tables use mosquitto (``systemd/mosquitto/``). amqtt is imported only when this module is, so a
daemon pointed at mosquitto never loads it.

Example::

    broker = EmbeddedBroker(host="127.0.0.1", port=0, ws_port=0)
    broker.start()                 # returns once both listeners accept connections
    print(broker.port, broker.ws_port)
    broker.stop()
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future
from typing import Any

WS_PATH = "/mqtt"  # amqtt's WebSocket listener accepts any path; clients are told to use this one


class EmbeddedBroker:
    """An amqtt broker on ``host`` with a TCP listener on ``port`` and a WebSocket listener on ``ws_port``.

    A port of 0 picks a free one; the chosen ports are in :attr:`port` / :attr:`ws_port` after :meth:`start`.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 1883, ws_port: int = 9001) -> None:
        self.host = host
        self.port = port
        self.ws_port = ws_port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None

    def start(self, timeout: float = 15.0) -> None:
        # amqtt logs every connection at INFO; the daemon's log is for the table, not for the broker.
        logging.getLogger("amqtt").setLevel(logging.WARNING)
        logging.getLogger("transitions").setLevel(logging.WARNING)
        logging.getLogger("websockets").setLevel(logging.WARNING)
        started: Future[None] = Future()
        self._thread = threading.Thread(target=self._run, args=(started,), name="amqtt-broker", daemon=True)
        self._thread.start()
        started.result(timeout)

    def _run(self, started: Future[None]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._start())
        except BaseException as exc:
            started.set_exception(exc)
            loop.close()
            return
        started.set_result(None)
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _start(self) -> None:
        from amqtt.broker import Broker  # lazy: only the embedded broker pays for amqtt's imports

        config = {
            "listeners": {
                "default": {"type": "tcp", "bind": f"{self.host}:{self.port}", "max_connections": 200},
                "ws": {"type": "ws", "bind": f"{self.host}:{self.ws_port}", "max_connections": 200},
            },
            # Anonymous only, and no $SYS or packet-logging plugins: they cost CPU on a Pi Zero.
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        self._broker = Broker(config)
        await self._broker.start()
        self.port = self._bound_port("default")
        self.ws_port = self._bound_port("ws")

    def _bound_port(self, listener: str) -> int:
        server = self._broker._servers[listener].instance
        return int(next(iter(server.sockets)).getsockname()[1])

    def stop(self, timeout: float = 10.0) -> None:
        loop, broker = self._loop, self._broker
        if loop is None or broker is None or not loop.is_running():
            return
        try:
            asyncio.run_coroutine_threadsafe(broker.shutdown(), loop).result(timeout)
        except Exception:
            logging.getLogger(__name__).warning("embedded broker did not shut down cleanly", exc_info=True)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread:
            self._thread.join(timeout)
        self._broker = None
