"""What the table's parts agree on: the referee it keeps, where its results go, the virtual launcher's controls, the
next game's preset, and one record on its way to the journal.

Types only: no thread runs code here. Who calls what, and on which thread, is in each part's module —
:mod:`~unolauncher.daemon.table` (the worker), :mod:`~unolauncher.daemon.press_gate` (the press path's claims),
:mod:`~unolauncher.daemon.restore` (start-up), :mod:`~unolauncher.daemon.handlers` (daemon commands),
:mod:`~unolauncher.daemon.sensors` (Home Assistant's sensors), :mod:`~unolauncher.daemon.emergency_stop`.

Example::

    >>> record = Record({"type": "hit", "player": "ann", "cards": 2}, [{"type": "hit", "player": "ann"}], origin="hit")
    >>> record.pending, record.seq
    (False, 0)
    >>> PresetChoice("classic", ("classic", "brutal")).chosen
    False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from unolauncher.errors import UnolauncherError
from unolauncher.launcher.interface import FirePlan


class RefereeLike(Protocol):
    def handle(self, command: dict[str, Any]) -> list[dict[str, Any]]: ...

    def public_state(self) -> dict[str, Any]: ...

    def legal_moves(self, player: str) -> list[dict[str, Any]]: ...

    def playable(self, player: str) -> list[str]: ...

    def hitter(self) -> str | None: ...

    def commitment(self) -> str | None: ...

    def next_fire_plan(self, player: str | None, secret: str | None = None) -> FirePlan | None: ...

    def to_json(self) -> dict[str, Any]: ...


class RefereeType(Protocol):
    """What makes referees (``Referee`` itself): a fresh one, or one from a :meth:`RefereeLike.to_json` snapshot."""

    def __call__(self) -> RefereeLike: ...

    def from_json(self, data: dict[str, Any]) -> RefereeLike: ...


class TableOutput(Protocol):
    """Where a table's results go (the MQTT bus in the daemon, a list in unit tests)."""

    def events_journalled(self) -> None: ...  # new rows in the outbox

    def reply(self, payload: dict[str, Any], qos: int = 1) -> None: ...

    def backlog(self) -> int: ...  # messages handed to the transport and not yet acknowledged

    def state(self, public_state: dict[str, Any]) -> None: ...

    def launcher_status(self, status: dict[str, Any]) -> None: ...

    def press(self, press: dict[str, Any]) -> None: ...

    def sensors(self, values: dict[str, Any]) -> None: ...

    def motor(self, on: bool) -> None: ...

    def resend(self, events: list[dict[str, Any]]) -> None: ...


class VirtualControls(Protocol):
    """What the daemon-level ``press`` / ``lid`` / ``load`` commands need from the virtual launcher."""

    def press_button(self) -> None: ...

    def click(self) -> bool: ...  # one whole press, queued while the button is still held (False: queue full)

    def open_lid(self) -> None: ...

    def close_lid(self) -> None: ...

    def load(self, cards: int) -> None: ...


class CommandRefused(UnolauncherError):
    """Raised by the table's ``prepare`` hook: the daemon refuses this command before the referee sees it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class PresetChoice:
    """The ejection preset a ``new_game`` without one gets: the configured one, or the one a ``preset`` command
    chose since (``chosen``: then a journal note holds it). ``offered``: what the ``preset`` command accepts."""

    name: str
    offered: tuple[str, ...] = ()
    chosen: bool = False


@dataclass
class Record:
    """Something to journal: an applied command with its events, or launcher/daemon events alone."""

    command: dict[str, Any] | None
    events: list[dict[str, Any]]
    public: dict[str, Any] | None = None  # the referee's public state right after the command, if it can change it
    origin: str = "worker"  # "worker" (a command from the queue), "hit" (applied by on_hit), "press", "launcher"
    seq: int = 0  # the journal's last seq once written
    error: Exception | None = None
    # A press claimed but not yet applied to the referee: the journal waits for it (see PressGate.settle).
    pending: bool = False
    plan: FirePlan | None = None  # a press's: the plan it fired with, which the referee must record
