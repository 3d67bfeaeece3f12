"""The embedded broker's deliveries, bounded per client: a flood cannot pile up in the daemon's process.

amqtt 0.12.1 hands each message to each subscriber as its own task and waits in that task until the client took it
(QoS 0: the socket's buffer; QoS 1/2: the acknowledgement — and it delivers at the *subscription's* QoS, so a QoS 0
flood reaches a QoS 1 subscriber as QoS 1). A client that reads slowly, or not at all, therefore holds one task, one
packet and one payload per message for as long as it lags, in the daemon's own process (the figures:
docs/reliability.md, "Figures behind the guards"). And amqtt frees finished tasks only from the front of its list, so
one delivery stuck at the front kept every later one alive.

Here, as mosquitto's ``max_queued_messages``/``max_queued_bytes`` do, a client with :data:`MAX_PENDING` deliveries or
:data:`MAX_PENDING_BYTES` of payload still in flight gets no more until it catches up: the broker drops the message for
that client (counted; logged at the 1st, 2nd, 4th, ... drop) and every other client is served as before. The daemon's
events are not at risk: they go from the daemon *to* the broker, and a phone that missed some asks ``resend`` (the
seq gap). The finished tasks are swept from amqtt's list every :data:`SWEEP_EVERY` messages.

Example (not a doctest: the broker mixes it in, bus/broker.py)::

    class GuardedBroker(BoundedDelivery, IdentityBroker): ...


    broker.delivery.dropped  # messages not delivered to a client that was too far behind
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

log = logging.getLogger("unolauncher.bus.broker")

MAX_PENDING = 1000  # deliveries in flight to one client (mosquitto's default max_queued_messages)
MAX_PENDING_BYTES = 4 * 1024 * 1024  # payload bytes in flight to one client (64 commands of the 64 KiB maximum)
SWEEP_EVERY = 64  # messages between two sweeps of amqtt's finished delivery tasks
_STATE = "_unolauncher_in_flight"  # [deliveries, bytes] on each amqtt Session


class DeliveryCounts:
    """What the bound did: ``dropped`` messages (all clients together)."""

    def __init__(self) -> None:
        self.dropped = 0


class _BoundedHandler:
    """An amqtt protocol handler whose ``mqtt_publish`` gives up at once when its client is too far behind."""

    def __init__(self, handler: Any, state: list[int], counts: DeliveryCounts, client_id: str) -> None:
        self._handler, self._state, self._counts, self._client_id = handler, state, counts, client_id

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handler, name)

    async def mqtt_publish(
        self, topic: str, data: bytes | bytearray, qos: int | None, retain: bool, ack_timeout: int | None = None
    ) -> Any:
        size = len(data) if data else 0
        state = self._state
        if state[0] >= MAX_PENDING or state[1] + size > MAX_PENDING_BYTES:
            self._counts.dropped += 1
            dropped = self._counts.dropped
            if dropped & (dropped - 1) == 0:
                log.warning(
                    "embedded broker: client %.64r is %d message(s) behind: a message on %.100r was not delivered to "
                    "it (%d dropped so far)", self._client_id, state[0], topic, dropped,
                )  # fmt: skip
            return None
        state[0] += 1
        state[1] += size
        try:
            return await self._handler.mqtt_publish(topic, data, qos, retain, ack_timeout)
        finally:
            state[0] -= 1
            state[1] -= size


class BoundedDelivery:
    """Mixed into amqtt's ``Broker`` (before it in the bases): bounded deliveries and swept tasks (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.delivery = DeliveryCounts()
        self._swept_at = 0

    def _get_handler(self, session: Any) -> Any:
        handler = super()._get_handler(session)  # type: ignore[misc]
        if handler is None:
            return None
        state = session.__dict__.setdefault(_STATE, [0, 0])
        return _BoundedHandler(handler, state, self.delivery, str(session.client_id))

    async def _run_broadcast(self, running_tasks: deque[asyncio.Task[Any]]) -> None:
        await super()._run_broadcast(running_tasks)  # type: ignore[misc]
        self._swept_at += 1
        if self._swept_at >= SWEEP_EVERY:
            self._swept_at = 0
            sweep(running_tasks)


def sweep(tasks: deque[asyncio.Task[Any]]) -> None:
    """Remove the finished tasks from amqtt's list wherever they are (amqtt looks only at the front), reading their
    outcome as amqtt would (a failed delivery is logged, never left "never retrieved")."""
    waiting = [task for task in tasks if not task.done()]
    if len(waiting) == len(tasks):
        return
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.debug("embedded broker: a delivery failed: %s", task.exception())
    tasks.clear()
    tasks.extend(waiting)
