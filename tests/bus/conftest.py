"""Fixtures of the bus tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from unolauncher.bus.broker import EmbeddedBroker


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    """The embedded amqtt broker on free ports (TCP and WebSocket), one per test module."""
    embedded = EmbeddedBroker(port=0, ws_port=0)
    embedded.start()
    yield embedded
    embedded.stop()
