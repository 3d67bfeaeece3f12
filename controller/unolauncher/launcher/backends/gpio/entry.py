"""Entry points from threads the GPIO backend does not own: whatever goes wrong there switches the motor off.

gpiozero calls input edges on its callback threads and the clock calls timers on its timer thread; an exception
escaping into either would be lost (or kill the thread) with the motor possibly on. :func:`guarded` (timers) and
:func:`input_edge` (edges, also timed for the watchdog's :meth:`~unolauncher.progress.Progress.stuck_for`) catch it
and hand it to the owner's ``fault``, which switches the motor off and ends the run as ``fault``.

Example::

    >>> class Part:
    ...     def fault(self, message: str) -> None:
    ...         print("fault:", message)
    ...     @guarded
    ...     def tick(self) -> None:
    ...         raise RuntimeError("boom")
    >>> Part().tick()
    fault: tick: RuntimeError: boom
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from unolauncher.progress import Progress

P = ParamSpec("P")
R = TypeVar("R")


class Faulting(Protocol):
    """Something that can end its work as a fault: motor off, run ended, ``fault`` event."""

    def fault(self, message: str) -> None: ...


class EdgeHandler(Faulting, Protocol):
    """A :class:`Faulting` whose edge callbacks are timed (``progress``) for the watchdog."""

    progress: Progress


F = TypeVar("F", bound=Faulting)
E = TypeVar("E", bound=EdgeHandler)


def guarded(method: Callable[Concatenate[F, P], R]) -> Callable[Concatenate[F, P], R | None]:
    """Entry points from the clock's timer thread: any exception switches the motor off and is reported."""

    @wraps(method)
    def wrapper(self: F, /, *args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            self.fault(f"{method.__name__}: {type(exc).__name__}: {exc}")
            return None

    return wrapper


def input_edge(method: Callable[Concatenate[E, P], R]) -> Callable[Concatenate[E, P], R | None]:
    """Entry points for input edges (gpiozero's callback thread): guarded, and timed for the watchdog."""

    @wraps(method)
    def wrapper(self: E, /, *args: P.args, **kwargs: P.kwargs) -> R | None:
        outer = self.progress.begin()  # on the press path: no context-manager object
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            self.fault(f"{method.__name__}: {type(exc).__name__}: {exc}")
            return None
        finally:
            self.progress.end(outer)

    return wrapper
