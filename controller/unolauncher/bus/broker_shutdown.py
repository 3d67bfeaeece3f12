"""Stop the embedded amqtt broker without waiting out a cancellation that Python 3.11 loses.

amqtt's ``Broker.shutdown()`` stops each client's protocol handler: it cancels the handler's reader task and waits
for it to say it stopped. The reader sits in ``asyncio.wait_for(read the next packet, keepalive)``; on Python 3.11
``wait_for`` *drops* a cancellation that arrives while the read it wraps has just completed (CPython gh-86296, fixed
by 3.12's rewrite of ``wait_for``). A client that was being sent QoS 1 messages at that instant (a phone, Home
Assistant, the dashboard: the daemon's events while a run ends) has its PUBACK read just then, the reader loops on
to the next read, and shutdown waits for it until the client's next packet or the daemon's 10 s timeout (how it was
found: docs/reliability.md, "Figures behind the guards").

So the readers are cancelled first, again and again until each has ended (a lost cancellation is simply
repeated), then amqtt's own shutdown runs with nothing left to wait for. Harmless where nothing is lost (3.12+).

Example (not a doctest: it runs inside the broker's event loop)::

    await shutdown_broker(broker)  # instead of await broker.shutdown()
"""

from __future__ import annotations

import asyncio
from typing import Any

RETRY_S = 0.05  # how often a reader that swallowed its cancellation is cancelled again


async def cancel_until_done(task: asyncio.Task[Any], deadline: float) -> bool:
    """Cancel ``task`` until it has ended or the loop's clock passes ``deadline``; True when it ended."""
    loop = asyncio.get_running_loop()
    while not task.done() and loop.time() < deadline:
        task.cancel()
        await asyncio.wait([task], timeout=RETRY_S)
    return task.done()


async def shutdown_broker(broker: Any, settle_s: float = 3.0) -> None:
    """``broker.shutdown()``, after every client handler's reader task has really ended (see the module docstring)."""
    deadline = asyncio.get_running_loop().time() + settle_s
    sessions = getattr(broker, "_sessions", {})  # amqtt 0.12: client id -> (session, handler)
    readers = [
        task
        for _, handler in list(sessions.values())
        if (task := getattr(handler, "_reader_task", None)) is not None and task is not asyncio.current_task()
    ]
    for task in readers:
        await cancel_until_done(task, deadline)
    await broker.shutdown()
