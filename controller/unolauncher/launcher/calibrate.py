"""How fast this launcher ejects cards, measured and written to the configuration (``unolauncher selftest
--calibrate``, the command: :mod:`unolauncher.cli.selftest`).

The ejection model plans ``run_ms = spin_up + cards * ms_per_card``; its default ``ms_per_card`` (110) is a guess.
Calibration fires runs of 2, 4 and 6 cards, twice, at full power through the card-exit beam (closed loop: each run
stops at its last card), fits the run times against the card counts by least squares, and writes the slope as
``ms_per_card = N`` into the ``[launcher]`` table of the configuration file (the old file is kept as ``.bak``).
It works on any backend the configuration names (GPIO, serial co-processor, virtual) because it only uses the
:class:`~unolauncher.launcher.interface.Launcher` interface.

Example::

    $ unolauncher selftest --calibrate --config /etc/unolauncher/config.toml
    run of 2 cards: 372 ms
    ...
    8.9 cards/s: ms_per_card = 112 (first card after about 261 ms), written to /etc/unolauncher/config.toml
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from unolauncher.errors import UnolauncherError
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher
from unolauncher.launcher.waits import Wait
from unolauncher.rules.ejection import MS_PER_CARD_RANGE

RUNS = (2, 4, 6, 2, 4, 6)
RUN_TIMEOUT_S = 8.0


class CalibrationError(UnolauncherError, RuntimeError):
    """Calibration cannot go on; the message says why in one sentence."""


@dataclass(frozen=True)
class Calibration:
    """The fit: ``ran_ms ≈ offset_ms + cards * ms_per_card`` over ``samples`` (cards, ran_ms).

    Example::

        >>> fit([(2, 372), (4, 596), (6, 820)]).ms_per_card
        112
    """

    ms_per_card: int
    offset_ms: int  # the line's intercept: the first card leaves after about offset_ms + ms_per_card
    samples: tuple[tuple[int, int], ...]

    @property
    def cards_per_s(self) -> float:
        return 1000 / self.ms_per_card


def fit(samples: Sequence[tuple[int, int]]) -> Calibration:
    """Least-squares line through (cards, ran_ms); refused when it cannot be a launcher's."""
    if len({cards for cards, _ in samples}) < 2:
        raise CalibrationError("calibration needs runs of at least two different card counts")
    n = len(samples)
    mean_x = sum(c for c, _ in samples) / n
    mean_y = sum(t for _, t in samples) / n
    slope = sum((c - mean_x) * (t - mean_y) for c, t in samples) / sum((c - mean_x) ** 2 for c, _ in samples)
    intercept = mean_y - slope * mean_x
    ms_per_card = round(slope)
    low, high = MS_PER_CARD_RANGE
    if not low <= ms_per_card <= high:
        raise CalibrationError(
            f"the runs give {slope:.0f} ms per card, outside {low}-{high}: check the beam "
            "(one card must break it once) and the magazine"
        )
    return Calibration(ms_per_card, round(intercept), tuple(samples))


def measure(
    launcher: Launcher, wait: Wait, runs: Sequence[int] = RUNS, say: Callable[[str], None] = print
) -> Calibration:
    """Fire ``runs`` through the beam and fit them (the launcher must have a card sensor and the lid shut)."""
    status = launcher.status()
    if not status.has_sensor:
        raise CalibrationError("calibration counts cards with the card-exit beam, and this launcher has none")
    if status.lid_open:
        raise CalibrationError("the lid is open: load the magazine, shut the lid and start again")
    samples: list[tuple[int, int]] = []
    for cards in runs:
        result = _one_run(launcher, wait, cards)
        if result.outcome != "ok" or result.cards_out != cards:
            raise CalibrationError(
                f"a run of {cards} cards ended {result.outcome} after {result.cards_out}: load at "
                f"least {sum(runs)} cards and check the beam"
            )
        say(f"run of {cards} cards: {result.ran_ms} ms")
        samples.append((cards, result.ran_ms))
    return fit(samples)


def _one_run(launcher: Launcher, wait: Wait, cards: int) -> FireResult:
    done: list[FireResult] = []
    if not launcher.fire(FirePlan(fire=True, cards=cards, run_ms=0, power=1.0), done.append):
        raise CalibrationError("the launcher refused to fire (a run in progress, or the lid open)")
    wait(lambda: bool(done), RUN_TIMEOUT_S)
    if not done:
        raise CalibrationError(f"a run of {cards} cards did not finish within {RUN_TIMEOUT_S:g} s")
    return done[0]


# ---- the configuration file ----------------------------------------------------------------------------------------

_TABLE = re.compile(r"^\s*\[")
_LAUNCHER = re.compile(r"^\s*\[launcher\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*ms_per_card\s*=")


def with_ms_per_card(text: str, value: int) -> str:
    """``text`` (a TOML configuration) with ``[launcher] ms_per_card = value``, everything else byte for byte."""
    lines = text.splitlines(keepends=True)
    line = f"ms_per_card = {value}  # measured by unolauncher selftest --calibrate\n"
    start = next((i for i, raw in enumerate(lines) if _LAUNCHER.match(raw)), None)
    if start is None:
        tail = "" if not text or text.endswith("\n") else "\n"
        result = f"{text}{tail}\n[launcher]\n{line}"
    else:
        end = next((i for i in range(start + 1, len(lines)) if _TABLE.match(lines[i])), len(lines))
        existing = next((i for i in range(start + 1, end) if _KEY.match(lines[i])), None)
        if existing is not None:
            lines[existing] = line
        else:
            lines.insert(start + 1, line)
        result = "".join(lines)
    before = tomllib.loads(text)
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = None
    expected = {**before, "launcher": {**before.get("launcher", {}), "ms_per_card": value}}
    if after != expected:  # a dotted key or an inline launcher table: editing lines would change the meaning
        raise CalibrationError(
            f"ms_per_card could not be placed automatically: add `ms_per_card = {value}` to "
            "the [launcher] table by hand"
        )
    return result


def write_ms_per_card(path: Path, value: int) -> None:
    """Update the file in place (atomically), keeping the previous version next to it as ``<name>.bak``."""
    text = path.read_text(encoding="utf-8")
    updated = with_ms_per_card(text, value)
    path.with_name(path.name + ".bak").write_text(text, encoding="utf-8")
    temporary = path.with_name(path.name + ".calibrating")
    temporary.write_text(updated, encoding="utf-8")
    os.replace(temporary, path)
