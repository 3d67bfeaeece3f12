"""Limits set in two layers that only work together: the embedded broker's per-connection command burst
(``bus/broker_rate.py`` ``BURST``) must stay below the table's command queue (``daemon/table.py``
``MAX_QUEUED_COMMANDS``), so that one connection's burst alone never fills the queue and the other phones are never
answered ``busy`` because of it (a 1,000 burst over the 256 queue failed ``test_cmd_flood`` 2 of 3). The two
modules sit in layers that may not import each other; this test ties them."""

from __future__ import annotations

from unolauncher.bus import broker_rate
from unolauncher.daemon import table


def test_one_connections_burst_leaves_room_in_the_tables_queue() -> None:
    room = table.MAX_QUEUED_COMMANDS - broker_rate.BURST
    assert room > 0, (
        f"broker_rate.BURST ({broker_rate.BURST}) must stay below table.MAX_QUEUED_COMMANDS "
        f"({table.MAX_QUEUED_COMMANDS}): one connection's burst would fill the table's queue"
    )
