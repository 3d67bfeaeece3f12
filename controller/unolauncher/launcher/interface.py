"""The one launcher interface every backend implements (gpiozero pins, virtual launcher, serial co-processor).

Nothing above this interface knows which backend is there. The ejection model (``rules/ejection.py``, owned by the
referee) turns a press into a :class:`FirePlan`; the backend executes it and reports a :class:`FireResult` through
a callback, because a run takes seconds and the press callback must return in microseconds.

Example (not a doctest: needs a launcher backend, see launcher/factory.py)::

    def on_done(result: FireResult) -> None:
        print(result.cards_out, result.outcome)


    launcher.on_press = lambda: launcher.fire(FirePlan(fire=True, cards=3), on_done)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from operator import attrgetter
from typing import Any, Literal, Protocol

from unolauncher.rules.ejection import FirePlan  # the plan is decided by the pure core; backends execute it

Outcome = Literal["ok", "no_fire", "jam", "empty", "max_run", "stopped", "fault"]


@dataclass(frozen=True)
class FireResult:
    """What a run actually did: cards counted out by the sensor (or estimated), run time, outcome."""

    cards_out: int
    ran_ms: int
    outcome: Outcome
    counted: bool = True  # False when there is no sensor and cards_out is only the plan's estimate
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LauncherStatus:
    """A snapshot for the dashboard and Home Assistant."""

    backend: str
    motor_on: bool = False
    running: bool = False
    lid_open: bool = False
    magazine_estimate: int | None = None
    jammed: bool = False
    has_sensor: bool = True
    enabled: bool = True  # False after an emergency stop (the ``disable`` command) until ``enable``
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        # A copy one level deep, not dataclasses.asdict (which deep-copies value by value, ~20 µs on every status
        # reply and sensor refresh): status() builds a fresh snapshot each call, so nothing deeper is shared.
        return {**self.__dict__, "extra": dict(self.extra)}


PressCallback = Callable[[], None]
LidCallback = Callable[[bool], None]  # True = lid opened
EventCallback = Callable[[dict[str, Any]], None]  # launcher-level events: jam, magazine_empty, fault, ...
DoneCallback = Callable[[FireResult], None]


class Launcher(Protocol):
    """The launcher as the daemon sees it.

    Contract:
    - the motor is off after construction, after :meth:`stop`, after :meth:`close` and on every error path;
    - :meth:`fire` returns at once (the motor is switched on before it returns when there is no suspense
      delay); ``done`` is called exactly once per accepted fire, from the backend's timer/IO thread;
    - a ``fire`` while a run is in progress is refused (returns ``False``) and reported as ``ignored_press``
      through ``on_event`` by the caller's policy, not silently queued;
    - ``on_press`` / ``on_lid`` / ``on_uno`` are called from the backend's input thread and must be quick;
    - :meth:`set_enabled` ``(False)`` is the emergency stop: the motor is off when it returns, whichever thread calls
      it, without waiting for anything the rest of the daemon holds; every fire is refused until ``(True)``;
    - :meth:`indicate`, :meth:`set_magazine` and :meth:`health` exist on every backend, so no caller has to probe for
      them; where a backend has nothing to do (no LED/buzzer fitted, no thread of its own to watch) they are a
      documented no-op.

    ``tests/launcher/test_launcher_contract.py`` runs this contract against every backend.
    """

    on_press: PressCallback | None
    on_uno: PressCallback | None
    on_lid: LidCallback | None
    on_event: EventCallback | None

    def fire(self, plan: FirePlan, done: DoneCallback) -> bool: ...

    def stop(self) -> None: ...

    def set_enabled(self, enabled: bool) -> None: ...

    def status(self) -> LauncherStatus: ...

    def indicate(self, chime: bool, tension: int) -> None:
        """Press feedback: a chime for an accepted press (``chime``), and the pulse of ``tension`` presses in a row
        that fired nothing (``0`` = quiet). Returns at once; a no-op without an LED or buzzer."""
        ...

    def set_magazine(self, cards: int | None) -> None:
        """Tell the launcher how many cards are loaded (``None`` = unknown); a count above zero clears ``jammed``."""
        ...

    def health(self, now: float, deadline_s: float) -> list[str]:
        """What keeps the backend's own threads from progressing for more than ``deadline_s`` at monotonic time
        ``now``, one sentence each; empty when nothing does (the daemon's watchdog calls it)."""
        ...

    def close(self) -> None: ...


def require_in_range(kind: str, settings: object, checks: Sequence[tuple[str, bool]]) -> None:
    """Refuse the first failed ``(field, ok)`` check of a settings object in one sentence naming field and value.

    Example::

        >>> from types import SimpleNamespace
        >>> settings = SimpleNamespace(max_run_s=90.0)
        >>> require_in_range("launcher", settings, [("max_run_s", 0.1 <= settings.max_run_s <= 60)])
        Traceback (most recent call last):
        ValueError: launcher setting max_run_s=90.0 is out of range
    """
    for name, ok in checks:
        if not ok:
            raise ValueError(f"{kind} setting {name}={attrgetter(name)(settings)!r} is out of range")
