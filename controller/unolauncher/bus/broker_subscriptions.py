"""The embedded broker sends a client the retained messages of its own subscriptions only.

amqtt 0.12.1, on every new connection, walks *the broker's* topic filters (every client's) and sends the newcomer,
at QoS 0, each retained message that matches any of them — meant for a persistent session's own subscriptions, but
it reads the wrong table. A phone opening the dashboard therefore got the table's retained state, status, launcher
and rule catalogue before it had subscribed (and again after: twice), and retained messages it never asked for:
another table's, Home Assistant's discovery configs. mosquitto sends retained messages only for a SUBSCRIBE, as the
MQTT specification says (3.3.1.3). Found when a browser test's injected rule catalogue was overwritten by the second
copy of the retained one.

Here a retained message is sent for a topic filter only to a session that holds that filter: after its SUBSCRIBE
(amqtt adds the subscription before it sends the retained messages) or, for a persistent session, its own earlier
subscriptions.

Example (not a doctest: the broker mixes it in, bus/broker.py)::

    class GuardedBroker(BoundedDelivery, OwnRetained, IdentityBroker): ...
"""

from __future__ import annotations

from typing import Any


class OwnRetained:
    """Mixin for amqtt's ``Broker``: retained messages only for the filters a session holds."""

    _subscriptions: dict[str, list[tuple[Any, int]]]

    async def _publish_retained_messages_for_subscription(self, subscription: tuple[str, int], session: Any) -> None:
        holders = self._subscriptions.get(subscription[0], ())
        if not any(held.client_id == session.client_id for held, _qos in holders):
            return  # another client's filter (amqtt's walk at connect time): not this client's to receive
        await super()._publish_retained_messages_for_subscription(subscription, session)  # type: ignore[misc]
