"""A stand-in for the daemon's table on the press path, for launcher tests and benchmarks: an ejection model with
its state (the referee's, in the daemon) and who may hit. ``claim`` is what :class:`PressHandler` asks on a press.

Example::

    table = ModelClaims(EjectionModel("classic"), hitter="ann")
    handler = PressHandler(launcher, table.claim, on_hit, events.append, on_lid_opened=table.lid_opened)
"""

from __future__ import annotations

import threading

from unolauncher.launcher.press import PressClaim
from unolauncher.rules.ejection import EjectionModel

TEST_SECRET = "5e" * 32


class ModelClaims:
    """Plans presses with one model, keyed by ``secret``; ``presses`` counts the plans used up."""

    def __init__(self, model: EjectionModel, hitter: str | None = "ann", secret: str = TEST_SECRET) -> None:
        self.model = model
        self.hitter = hitter
        self.state = model.start(secret)
        self.lock = threading.Lock()  # (the daemon's table answers under a press lock of its own too)

    @property
    def presses(self) -> int:
        return int(self.state["press"])

    def claim(self, lockout: bool) -> PressClaim | None:
        with self.lock:
            player = self.hitter
            if player is None and lockout:
                return None
            plan, self.state = self.model.plan(self.state, player)
        return PressClaim(player, plan)

    def lid_opened(self) -> None:
        with self.lock:
            self.state = self.model.lid_opened(self.state)
