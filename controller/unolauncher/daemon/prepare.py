"""What the daemon adds to a command from outside before the referee sees it, or why it refuses it: the table's
``prepare`` hook (fairness, docs/ejection.md).

Thread: the **table's worker**, once per referee command (``Table.apply``), before ``Table.lock`` is taken.

Nobody who sends commands chooses the launcher's outcomes. The daemon draws the secret behind every launcher
commitment itself (``secret`` on ``new_game``, ``next_round`` and ``undo``, which may open one) and refuses a command
that brings its own, or that rigs the game (``seed``, ``launcher.seed``/``script``, a full-mode ``deal``) unless
``[launcher] allow_rigged = true``; the launcher's own ``pressed``/``lid_opened`` never come from outside. The
filled-in command is what is journalled, so a replay is still exact.

Example::

    >>> from unolauncher.daemon.config import LauncherConfig
    >>> prepare = CommandPreparer(LauncherConfig(), next_preset=lambda: "brutal", mode=lambda: None)
    >>> command = prepare({"type": "new_game", "ruleset": "attack", "players": ["a", "b"]})
    >>> command["options"], len(command["secret"])
    ({'ejection_preset': 'brutal'}, 64)
    >>> try:
    ...     prepare({"type": "new_game", "ruleset": "attack", "players": ["a", "b"], "seed": 1})
    ... except CommandRefused as refused:
    ...     refused.code
    'rigged_not_allowed'
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from unolauncher.daemon.config import LauncherConfig
from unolauncher.daemon.interfaces import CommandRefused
from unolauncher.rules.ejection import BUILTIN_PRESETS


def offered_presets(configured: str) -> tuple[str, ...]:
    """The ejection presets Home Assistant's select offers for the next game (custom only when configured).

    >>> offered_presets("custom")[-1]
    'custom'
    """
    return tuple(BUILTIN_PRESETS) + ((configured,) if configured not in BUILTIN_PRESETS else ())


class CommandPreparer:
    """The table's ``prepare`` hook (see the module docstring). ``next_preset()`` is the preset the next game gets
    (the configured one, or one chosen since); ``mode()`` is the running game's mode (``None`` without one)."""

    def __init__(
        self, launcher: LauncherConfig, next_preset: Callable[[], str], mode: Callable[[], str | None]
    ) -> None:
        self.launcher = launcher
        self.next_preset = next_preset
        self.mode = mode

    def __call__(self, command: dict[str, Any]) -> dict[str, Any]:
        kind = command.get("type")
        if kind in ("pressed", "lid_opened", "fire_failed", "free_play"):
            raise CommandRefused("not_allowed", f"{kind} is reported by the launcher itself, not sent as a command.")
        if "secret" in command:
            raise CommandRefused(
                "rigged_not_allowed", "The launcher's secrets are drawn by the table daemon; no command may bring one."
            )
        if kind == "hit" and "manual" in command:
            raise CommandRefused("not_allowed", "manual is set by the table daemon, not sent.")
        if kind == "hit" and command.get("cards") is not None:
            # A count typed in settles a hit without the launcher's plan (docs/fairness.md): a rig.
            if not self.launcher.allow_rigged:
                raise CommandRefused(
                    "manual_hit_not_allowed",
                    "A hit with a card count settles it without the launcher's plan; press the launcher (the table's "
                    "[launcher] allow_rigged setting is off).",
                )
            return {**command, "manual": True}
        if kind == "entropy":
            # The commit-then-reveal window is timed by the table, never by the sender (docs/fairness.md).
            return {**command, "at": time.time_ns() // 1_000_000}
        if kind not in ("new_game", "next_round", "undo"):
            return command
        launcher = self.launcher
        rig = self.rigging_field(command)
        if rig is not None and not launcher.allow_rigged:
            raise CommandRefused(
                "rigged_not_allowed",
                f"{kind} may not carry {rig}: it would let the sender choose the game's outcomes "
                "(the table's [launcher] allow_rigged setting is off).",
            )
        command = dict(command)
        if kind == "new_game":
            if launcher.seed is not None and "seed" not in command:
                command["seed"] = launcher.seed  # allow_rigged is on (the configuration insists): a rigged game
            elif rig not in ("seed", "launcher.seed", "launcher.script"):
                command.setdefault("seed", secrets.randbelow(2**62))  # the deal's shuffle
                command["secret"] = secrets.token_hex(32)
            options = command.get("options")
            configured: dict[str, Any] = {}
            # The next game's preset: the configured one, or the one chosen since (the preset command, HA's select).
            preset = self.next_preset()
            if preset != "classic":
                configured["ejection_preset"] = preset
                if preset == "custom":
                    configured["ejection_custom"] = launcher.custom
            if launcher.ms_per_card is not None:
                configured["ejection_ms_per_card"] = launcher.ms_per_card  # journalled with the game
            if (options is None or isinstance(options, dict)) and configured:
                command["options"] = options = {**configured, **(options or {})}
            if (
                isinstance(options, dict)  # a phone asking for the custom preset without a table: the configured one
                and options.get("ejection_preset") == "custom"
                and options.get("ejection_custom") is None
                and launcher.custom
            ):
                command["options"] = {**options, "ejection_custom": launcher.custom}
        else:
            command["secret"] = secrets.token_hex(32)  # the referee uses it only if the command opens a commitment
        return command

    def rigging_field(self, command: dict[str, Any]) -> str | None:
        """The first field of a ``new_game``/``next_round`` that would rig it, or ``None``. A table-mode ``deal``
        only reports the real cards on the table (the starter, who dealt): that steers nothing."""
        if command.get("type") == "new_game":
            if "seed" in command:
                return "seed"
            rig = command.get("launcher")
            for key in ("seed", "script"):
                if isinstance(rig, dict) and key in rig:
                    return f"launcher.{key}"
            mode = command.get("mode", "full")
        elif command.get("type") == "next_round":
            mode = self.mode()
        else:
            return None
        return "deal" if command.get("deal") is not None and mode != "table" else None
