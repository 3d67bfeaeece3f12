"""``unolauncher verify``: the fairness audit. Recompute every press of a game from its revealed seed.

At game start the table publishes ``sha256(seed)`` (the ``ejection_start`` event); at game end it reveals the seed
(``ejection_reveal``). Anyone holding the game's event log can then check that the seed matches the commitment and
that every ``press`` event is exactly what the ejection model gives for that seed — the table could not have chosen
outcomes after seeing who was pressing.

The presses file is JSON Lines: the table's events in order (other event types are skipped). Used are
``ejection_start`` (``preset``, ``commitment``; or the referee's ``game_started``), ``press`` (``index`` and
``plan``, or ``fire``/``cards`` at top level) and ``lid_open`` (the ``sequence`` preset restarts its count there).

Exit status: 0 all outcomes match, 1 a mismatch (each one listed), 2 unusable input.

Example::

    $ unolauncher verify --seed 1234 --commitment 03ac67… --presses game-events.jsonl
    verified 57 presses (preset classic): every outcome matches seed 1234
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any, TextIO

from unolauncher.launcher.ejection import PRESETS, EjectionConfigError, EjectionModel, commitment

PLAN_FIELDS = ("fire", "cards", "run_ms", "power", "suspense_ms")


class VerifyInputError(ValueError):
    """The audit cannot start: one sentence says which input is unusable."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", required=True, help="the revealed seed (a whole number)")
    parser.add_argument("--commitment", required=True, help="the sha256 hex published at game start")
    parser.add_argument("--presses", required=True, help="JSON Lines file of the game's events ('-' = stdin)")
    parser.add_argument("--preset", choices=PRESETS, help="ejection preset (default: the log's, else classic)")
    parser.add_argument("--custom", help="TOML or JSON file with the custom preset's table")
    parser.add_argument("--no-sensor", action="store_true", help="the launcher ran open loop (no card sensor)")


def run(args: argparse.Namespace) -> int:
    try:
        seed = _parse_seed(args.seed)
        expected_commitment = _parse_commitment(args.commitment)
        lines = _read_lines(args.presses)
        custom = _read_custom(args.custom) if args.custom else None
        report = verify(seed, expected_commitment, lines, args.preset, custom, not args.no_sensor)
    except (VerifyInputError, EjectionConfigError) as exc:
        print(f"unolauncher verify: {exc}", file=sys.stderr)
        return 2
    for line in report.mismatches:
        print(line)
    print(report.summary())
    return 0 if report.ok else 1


class Report:
    """The audit's findings."""

    def __init__(self, seed: int, preset: str) -> None:
        self.seed = seed
        self.preset = preset
        self.presses = 0
        self.mismatches: list[str] = []

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> str:
        if self.ok:
            return f"verified {self.presses} presses (preset {self.preset}): every outcome matches seed {self.seed}"
        return f"{len(self.mismatches)} mismatch(es) in {self.presses} presses (preset {self.preset}, seed {self.seed})"


def verify(
    seed: int,
    expected_commitment: str,
    lines: list[tuple[int, dict[str, Any]]],
    preset: str | None = None,
    custom: Any = None,
    has_sensor: bool = True,
) -> Report:
    """Recompute every press in ``lines`` ((line number, event) pairs) and list each difference."""
    start = next((event for _, event in lines if event.get("type") == "ejection_start"), None)
    if start is None:  # the referee's game_started carries the same facts under other names
        game = next((event for _, event in lines if event.get("type") == "game_started"), None)
        if game is not None:
            raw_options = game.get("options")
            options: dict[str, Any] = raw_options if isinstance(raw_options, dict) else {}
            start = {"preset": options.get("ejection_preset", "classic"), "commitment": game.get("ejection_commitment"),
                     "ms_per_card": options.get("ejection_ms_per_card")}
    if preset is None:
        preset = str(start.get("preset", "classic")) if start else "classic"
    report = Report(seed, preset)
    if commitment(seed) != expected_commitment:
        report.mismatches.append(f"seed {seed} does not match the commitment {expected_commitment}")
    if start and start.get("commitment") not in (None, expected_commitment):
        report.mismatches.append(f"the log's commitment {start['commitment']} differs from the given one")
    ms_per_card = start.get("ms_per_card") if start else None  # the game's calibrated value, if it had one
    try:
        model = EjectionModel(preset, custom, has_sensor=has_sensor, ms_per_card=ms_per_card)
    except EjectionConfigError as exc:
        raise VerifyInputError(f"the log's ejection settings cannot be used: {exc}") from None
    state = model.start(seed)
    for number, event in lines:
        kind = event.get("type", "press" if "fire" in event or "plan" in event else None)
        if kind == "lid_open":
            state = model.lid_opened(state)
        elif kind == "press":
            recorded = event.get("plan", event)
            if not isinstance(recorded, dict) or "fire" not in recorded:
                raise VerifyInputError(f"line {number}: a press must carry a plan with 'fire'")
            index = state["press"]
            if "index" in event and event["index"] != index:
                report.mismatches.append(
                    f"line {number}: press index {event['index']} where press {index} was due (a press is missing "
                    "or repeated)"
                )
            plan, state = model.plan(state)
            wanted = plan.to_json()
            diffs = [
                f"{key} {recorded[key]!r} (expected {wanted[key]!r})"
                for key in PLAN_FIELDS
                if key in recorded and recorded[key] != wanted[key]
            ]
            report.presses += 1
            if diffs:
                report.mismatches.append(f"line {number}: press {index}: " + ", ".join(diffs))
    return report


def _parse_seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise VerifyInputError(f"--seed must be a whole number, got {text!r}") from None


def _parse_commitment(text: str) -> str:
    value = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise VerifyInputError("--commitment must be 64 hexadecimal characters (a sha256 digest)")
    return value


def _read_lines(path: str) -> list[tuple[int, dict[str, Any]]]:
    if path == "-":
        return _parse_lines(sys.stdin, "stdin")
    try:
        with open(path, encoding="utf-8") as handle:
            return _parse_lines(handle, path)
    except FileNotFoundError:
        raise VerifyInputError(f"presses file {path} does not exist") from None
    except UnicodeDecodeError:
        raise VerifyInputError(f"presses file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise VerifyInputError(f"presses file {path} cannot be read: {exc.strerror}") from None


def _parse_lines(handle: TextIO, name: str) -> list[tuple[int, dict[str, Any]]]:
    result = []
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            raise VerifyInputError(f"{name} line {number} is not valid JSON") from None
        if not isinstance(event, dict):
            raise VerifyInputError(f"{name} line {number} must be a JSON object")
        result.append((number, event))
    return result


def _read_custom(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        raise VerifyInputError(f"custom table file {path} cannot be read") from None
    try:
        data = json.loads(text) if path.endswith(".json") else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError):
        kind = "JSON" if path.endswith(".json") else "TOML"
        raise VerifyInputError(f"custom table file {path} is not valid {kind}") from None
    return data.get("custom", data) if isinstance(data, dict) else data
