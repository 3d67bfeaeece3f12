"""Fixtures of the bus tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.mosquitto import Mosquitto
from unolauncher.bus.broker import EmbeddedBroker


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    """The embedded amqtt broker on free ports (TCP and WebSocket), one per test module."""
    embedded = EmbeddedBroker(port=0, ws_port=0)
    embedded.start()
    yield embedded
    embedded.stop()


@pytest.fixture(params=["embedded", "mosquitto"])
def broker_port(request: pytest.FixtureRequest, broker: EmbeddedBroker) -> Iterator[int]:
    """The port of the embedded broker, then of a real mosquitto: a test using it runs against both."""
    if request.param == "embedded":
        yield broker.port
        return
    with Mosquitto() as mosquitto:
        yield mosquitto.port
