"""Broker refusals (an MQTT 5 PUBACK or SUBACK with a failure reason code): the one sentence the log gives for each
(:func:`refusal_sentence`), and the retry record :class:`~unolauncher.bus.mqtt.TableBus` keeps per refused topic
(:class:`RefusedTopic`, read and written on paho's network thread only). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# What to do about a refusal, by MQTT 5 reason code (the broker's log has the details).
REFUSAL_FIXES = {
    0x87: "the MQTT user must be allowed to {verb} there (the broker's ACL)",
    0x90: "the topic name is invalid for this broker",
    0x95: "the message is larger than the broker's max_packet_size",
    0x97: "the broker's quota for this client is exhausted",
    0x9E: "the broker does not allow shared subscriptions",
}


def refusal_sentence(topic: str, reason: Any, verb: str) -> str:
    """One sentence for the log: what was refused, the broker's reason, and what fixes it.

    Example:

    >>> from paho.mqtt.packettypes import PacketTypes
    >>> from paho.mqtt.reasoncodes import ReasonCode
    >>> sentence = refusal_sentence("t1/events", ReasonCode(PacketTypes.PUBACK, identifier=0x87), "publish")
    >>> what, fix = sentence.split(": ")
    >>> what
    'the broker refused to let the table publish to t1/events (Not authorized)'
    >>> fix
    "the MQTT user must be allowed to publish there (the broker's ACL)"
    """
    fix = REFUSAL_FIXES.get(getattr(reason, "value", -1), "see the broker's log for why")
    return f"the broker refused to let the table {verb} to {topic} ({reason}): {fix.format(verb=verb)}"


@dataclass
class RefusedTopic:
    """A topic the broker refuses: retried at ``retry_at``, the wait doubling each time up to the maximum."""

    reason: str
    delay: float
    retry_at: float
    refusals: int = 1
