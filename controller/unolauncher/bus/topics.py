"""MQTT topic names of one table (``unolauncher/<table_id>/...``), as fixed in PROTOCOL.md.

Every topic carries strict JSON except the few named in :data:`PLAIN_TEXT` (``online``/``offline``, ``ON``/``OFF``):
consumers and the hostile-input tests read that declaration rather than keep their own list.

Example::

    >>> topics = Topics("kitchen")
    >>> topics.cmd
    'unolauncher/kitchen/cmd'
    >>> topics.plain_text
    ('unolauncher/kitchen/status', 'unolauncher/kitchen/motor')
"""

from __future__ import annotations

from dataclasses import dataclass

ROOT = "unolauncher"
# The table's topics whose payload is plain text, not JSON (docs/protocol-mqtt.md): the property names of Topics.
PLAIN_TEXT = ("status", "motor")


@dataclass(frozen=True)
class Topics:
    """Every topic the daemon publishes or subscribes to."""

    table_id: str

    @property
    def base(self) -> str:
        return f"{ROOT}/{self.table_id}"

    @property
    def plain_text(self) -> tuple[str, ...]:
        """The topics of :data:`PLAIN_TEXT`, in full; every other topic of the table carries strict JSON."""
        return tuple(getattr(self, name) for name in PLAIN_TEXT)

    @property
    def status(self) -> str:
        """Retained ``online`` / ``offline`` (the offline one is also the Last Will)."""
        return f"{self.base}/status"

    @property
    def state(self) -> str:
        """Retained public state of the game."""
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        """Every event, QoS 1, with a gap-free ``seq``."""
        return f"{self.base}/events"

    @property
    def cmd(self) -> str:
        """Commands in."""
        return f"{self.base}/cmd"

    @property
    def reply(self) -> str:
        """One ``{"id", "ok", "code", "message"}`` per command."""
        return f"{self.base}/reply"

    @property
    def launcher(self) -> str:
        """Retained launcher status (motor, lid, magazine estimate, jam)."""
        return f"{self.base}/launcher"

    @property
    def sensors(self) -> str:
        """Retained flat sensor values for Home Assistant."""
        return f"{self.base}/sensors"

    @property
    def alive(self) -> str:
        """The daemon's heartbeat, every second, not retained: ``{"t": unix ms, "seq": last state seq}``."""
        return f"{self.base}/alive"

    @property
    def motor(self) -> str:
        """Retained ``ON``/``OFF``: the motor, published when it starts and stops (Home Assistant's Motor sensor)."""
        return f"{self.base}/motor"

    @property
    def refusal(self) -> str:
        """Retained: the last refused command's reply (``code``, ``message``, ``at``), for Home Assistant."""
        return f"{self.base}/refusal"

    @property
    def rules(self) -> str:
        """Retained: the table's rule catalogue (presets, card actions, options; ``daemon/catalogue.py``)."""
        return f"{self.base}/rules"

    @property
    def press(self) -> str:
        """One message per launcher button press (Home Assistant device trigger)."""
        return f"{self.base}/press"

    @property
    def probe(self) -> str:
        """The daemon's deafness probe (bus/deafness.py): its own ``{"probe": token}`` messages, QoS 0."""
        return f"{self.base}/probe"
