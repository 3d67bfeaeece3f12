"""The embedded broker's per-connection rate on a table's ``cmd`` topic: one flooding client cannot hold up the others.

Every payload on ``cmd`` that reaches the daemon gets exactly one reply, and the table answers them in order, so one
stranger's junk would keep every phone's commands waiting behind it (docs/reliability.md, "Figures behind the
guards"). So the broker takes at most :data:`BURST` commands at once from one connection, then
:data:`RATE` a second (a token bucket per connection); what is over is dropped *before the table sees it*, and the
sender is told once per second with one reply on the table's ``reply`` topic::

    {"id": null, "ok": false, "code": "rate_limited", "dropped": 1840,
     "message": "Too many commands from one connection: 1840 dropped in the last second (at most 200 a second after
                 a burst of 200); send again shortly."}

The one-reply-per-payload contract is therefore about payloads the table *receives*; a payload dropped here gets no
reply of its own (docs/protocol-mqtt.md "Replies"). A phone sends a few commands a second, far within :data:`BURST`;
the burst stays below the table's own 256-command queue, so one connection's burst alone never makes the table
answer the other phones ``busy`` (it did with a burst of 1,000). On mosquitto there is no such rate:
the table's own ``busy`` bound (256 waiting) and mosquitto's queue limits apply (docs/security.md).

Example (not a doctest: the broker mixes it in, bus/broker.py)::

    class GuardedBroker(BoundedDelivery, CommandRate, IdentityBroker): ...


    broker.rate.dropped  # commands dropped for going over the rate, all connections together
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from amqtt.contexts import Action

log = logging.getLogger("unolauncher.bus.broker")

RATE = 200.0  # commands a second per connection, once its burst is spent
BURST = 200  # commands one connection may send at once: below the table's 256-command queue (MAX_QUEUED_COMMANDS),
# so one connection's burst alone never makes the table answer the other phones `busy` (test_limits_agree.py)
CMD_SUFFIX, REPLY_SUFFIX = "/cmd", "/reply"
_BUCKET = "_unolauncher_cmd_bucket"  # on each amqtt Session


class CommandBucket:
    """A token bucket (:data:`RATE`, :data:`BURST`) and the drops since the sender was last told.

    >>> bucket = CommandBucket(now=0.0)
    >>> sum(bucket.take(0.0) for _ in range(BURST + 5))  # the burst, then nothing until time passes
    200
    >>> bucket.take(0.01), bucket.dropped
    (True, 5)
    """

    def __init__(self, now: float) -> None:
        self.tokens, self.at = float(BURST), now
        self.dropped = 0  # since the last rate_limited reply
        self.told_at = now - 1.0

    def take(self, now: float) -> bool:
        self.tokens = min(float(BURST), self.tokens + (now - self.at) * RATE)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.dropped += 1
        return False


class RateCounts:
    """What the rate did: ``dropped`` commands and ``told`` rate_limited replies (all connections together)."""

    def __init__(self) -> None:
        self.dropped = 0
        self.told = 0


class CommandRate:
    """Mixed into amqtt's ``Broker`` (before it in the bases): the ``cmd`` rate per connection (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rate = RateCounts()

    async def _topic_filtering(self, session: Any, topic: str, action: Any) -> bool:
        allowed = bool(await super()._topic_filtering(session, topic, action))  # type: ignore[misc]
        if not allowed or action != Action.PUBLISH or not topic or not topic.endswith(CMD_SUFFIX):
            return allowed
        now = time.monotonic()
        bucket = session.__dict__.get(_BUCKET)
        if bucket is None:
            bucket = session.__dict__[_BUCKET] = CommandBucket(now)
        if bucket.take(now):
            return True
        self.rate.dropped += 1
        if now - bucket.told_at >= 1.0:
            await self._tell(topic[: -len(CMD_SUFFIX)] + REPLY_SUFFIX, bucket, str(session.client_id))
            bucket.told_at, bucket.dropped = now, 0
        return False

    async def _tell(self, reply_topic: str, bucket: CommandBucket, client_id: str) -> None:
        self.rate.told += 1
        message = (
            f"Too many commands from one connection: {bucket.dropped} dropped in the last second (at most "
            f"{RATE:.0f} a second after a burst of {BURST}); send again shortly."
        )
        body = {"id": None, "ok": False, "code": "rate_limited", "dropped": bucket.dropped, "message": message}
        if self.rate.told & (self.rate.told - 1) == 0:
            log.warning("embedded broker: client %.64r is over the command rate (%s)", client_id, message)
        await self.internal_message_broadcast(  # type: ignore[attr-defined]
            reply_topic, json.dumps(body, separators=(",", ":")).encode(), 0
        )
