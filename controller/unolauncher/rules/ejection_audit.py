"""The fairness audit: recompute every press under every revealed launcher commitment from a table's events. Pure.

``unolauncher verify`` runs it on a state directory's journal or on an ``unolauncher export`` file; the dashboard's
``fairness.js`` does the same in the browser. What it proves and what it cannot is in ``docs/ejection.md``.

Events read (all others are skipped, and only their ``seq`` is checked for gaps):

* ``round_started`` (``commitment``, ``preset``, ``custom``?, ``ms_per_card``?, ``rigged``?, ``run``, ``since_lid``)
  and ``ejection_commit`` (the same, plus ``reason``) open a commitment; ``run``/``since_lid`` must go on from where
  the game's previous commitment left them (``game_started`` starts them at 0), which the recorded plans tell;
* ``press`` (``commitment``, ``index``, ``player``, ``plan``, ``draw``), ``ejection_lid`` and ``ejection_entropy``
  (``commitment``, ``press``, ``entropy``) are its operations, in order;
* ``round_ended`` and ``ejection_reveal`` (``commitment``, ``secret``, ``presses``) reveal it.

A log may begin in the middle of a commitment (journal retention deletes whole games, the first kept one starting
with the reveal of the round it replaced): events of commitments opened before the first opening the log holds are
counted as unchecked, not as mismatches. After that first opening, an unknown commitment is a mismatch.

Example (not a doctest: needs a game's events, as tests/rules/test_ejection.py builds them)::

    report = audit([("line 1", event) for event in events])
    report.ok(allow_rigged=False)  # every revealed commitment checks out and none was rigged
    print("\\n".join(report.lines()))
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from unolauncher.rules.ejection import (
    ENTROPY_PATTERN,
    SECRET_PATTERN,
    EjectionConfigError,
    EjectionModel,
    FirePlan,
    press_draw,
)

PLAN_FIELDS = tuple(FirePlan(fire=False).to_json())
_OPERATIONS = ("press", "ejection_lid", "ejection_entropy", "ejection_carry")
_REVEALS = ("round_ended", "ejection_reveal")
_WINDOW = ("ejection_entropy_commit", "ejection_entropy_withheld")  # the players' entropy window (docs/fairness.md)


@dataclass
class Commitment:
    """One commitment as the events tell it, and what checking it found."""

    commitment: str
    opened_at: str
    reason: str  # "round" (round_started), "undo", "free"
    round: int | None
    preset: str
    custom: Any
    ms_per_card: Any
    rigged: bool
    operations: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    secret: str | None = None
    revealed_presses: Any = None
    revealed_at: str | None = None
    presses: int = 0
    mismatches: list[str] = field(default_factory=list)
    commits: dict[str, str] = field(default_factory=dict)  # players' entropy commitments: hash -> client
    warnings: list[str] = field(default_factory=list)  # withheld entropy, entropy without commit-then-reveal
    manual: list[str] = field(default_factory=list)  # where a hit was settled by a sent count, not by a plan
    notes: list[str] = field(default_factory=list)  # aborted and undone presses (their plans carried)
    superseded: bool = False  # a later commitment was opened while this one was still unrevealed
    start: tuple[int, int] = (0, 0)  # the streak (run, since_lid) it goes on from

    @property
    def name(self) -> str:
        short = self.commitment[:12] + "…"
        if self.reason == "free":
            return f"free play ({short})"
        what = f"round {self.round}" if self.round is not None else "a round"
        return f"{what} (reopened by an undo, {short})" if self.reason == "undo" else f"{what} ({short})"


@dataclass
class AuditReport:
    commitments: list[Commitment]
    problems: list[str]  # findings that belong to no commitment: unknown commitments, gaps in seq
    # Events of commitments opened before the log begins (a journal whose older games retention deleted, or an
    # export of one game): they cannot be checked, and they are not counted against the log.
    unchecked: int = 0

    @property
    def revealed(self) -> list[Commitment]:
        return [c for c in self.commitments if c.secret is not None]

    @property
    def open(self) -> list[Commitment]:
        return [c for c in self.commitments if c.secret is None]

    @property
    def rigged(self) -> list[Commitment]:
        return [c for c in self.revealed if c.rigged]

    @property
    def mismatches(self) -> list[str]:
        return self.problems + [f"{c.name}: {m}" for c in self.commitments for m in c.mismatches]

    @property
    def warnings(self) -> list[str]:
        """What a strict audit fails on and a lenient one reports: entropy a contributor withheld (a veto of its
        contribution, on the record), entropy mixed in without commit-then-reveal."""
        return [f"{c.name}: {w}" for c in self.commitments for w in c.warnings]

    def ok(self, allow_rigged: bool = False, strict: bool = False) -> bool:
        """Every revealed commitment matches its presses, nothing is unaccounted for, and (unless allowed) none
        was rigged: a rigged secret was derived from a seed someone chose, so matching it proves nothing.
        ``strict``: no warnings either."""
        rigs = self.rigged or any(c.manual for c in self.commitments)
        return not self.mismatches and (allow_rigged or not rigs) and not (strict and self.warnings)

    def lines(self, allow_rigged: bool = False, strict: bool = False) -> list[str]:
        """What ``verify`` prints: each finding, then a summary."""
        out = list(self.mismatches) + [f"warning: {w}" for w in self.warnings]
        out += [f"note: {c.name}: {n}" for c in self.commitments for n in c.notes]
        for c in self.rigged:
            out.append(
                f"{c.name} is rigged: its secret was derived from a seed the table was given, so whoever chose the "
                "seed knew its outcomes" + (" (accepted: --allow-rigged)" if allow_rigged else "")
            )
        for c in self.commitments:
            if c.manual:
                out.append(
                    f"{c.name}: {len(c.manual)} hit(s) settled manually, by a card count someone sent, not by the "
                    f"launcher's plan ({', '.join(c.manual)})" + (" (accepted: --allow-rigged)" if allow_rigged else "")
                )
        presses = sum(c.presses for c in self.revealed)
        rounds = len(self.revealed)
        if self.ok(allow_rigged, strict):
            out.append(f"verified {rounds} commitment(s), {presses} press(es): every outcome matches its commitment")
        else:
            bad = len({id(c) for c in self.revealed if c.mismatches or ((c.rigged or c.manual) and not allow_rigged)})
            out.append(
                f"NOT verified: {len(self.mismatches)} mismatch(es); {bad} of {rounds} commitment(s) fail"
                + (f"; {len(self.warnings)} warning(s) (--strict)" if strict and self.warnings else "")
            )
        if self.open:
            out.append(f"{len(self.open)} commitment(s) still open (their secrets are revealed when they end)")
        if self.unchecked:
            out.append(f"{self.unchecked} event(s) of a commitment opened before the log begins: not checked")
        return out


def audit(events: Iterable[tuple[str, dict[str, Any]]]) -> AuditReport:
    """Check every revealed commitment in ``events``: (where, event) pairs in order, ``where`` naming the line or
    ``seq`` for the messages."""
    commitments: dict[str, Commitment] = {}
    previous: Commitment | str | None = None  # the game's last commitment, "game" at its start, None: unknown
    problems: list[str] = []
    unchecked = 0
    last_seq: int | None = None
    for where, event in events:
        seq = event.get("seq")
        if type(seq) is int:
            if last_seq is not None and seq != last_seq + 1:
                problems.append(f"{where}: seq {seq} follows seq {last_seq} (an event is missing, repeated or moved)")
            last_seq = seq
        kind = event.get("type")
        key = event.get("commitment")
        if kind == "round_started" and key is None:
            continue  # a round from before launcher commitments (or a third party's log without them)
        if kind == "game_started":
            previous = "game"
        if kind in ("round_started", "ejection_commit"):
            if not isinstance(key, str) or key in commitments:
                problems.append(f"{where}: commitment {key!r} is malformed or opened twice")
                continue
            for earlier in commitments.values():  # the daemon reveals a commitment before it opens the next one
                if earlier.secret is None and not earlier.superseded:
                    earlier.superseded = True
                    problems.append(f"{where}: {earlier.name} was never revealed, yet a later commitment was opened "
                                    "(a reveal is missing)")  # fmt: skip
            commitments[key] = Commitment(
                commitment=key,
                opened_at=where,
                reason="round" if kind == "round_started" else str(event.get("reason")),
                round=event.get("round") if type(event.get("round")) is int else None,
                preset=str(event.get("preset", "classic")),
                custom=event.get("custom"),
                ms_per_card=event.get("ms_per_card"),
                rigged=event.get("rigged") is True,
            )
            _check_start(commitments[key], where, event, previous)
            previous = commitments[key]
            if isinstance(event.get("_journal_rig"), str) and event.get("rigged") is not True:
                # verify --state-dir read the command behind it: a rigged round whose flag is gone (an edited journal)
                commitments[key].rigged = True
                commitments[key].mismatches.append(
                    f"{where}: its command rigged the round ({event['_journal_rig']}), but the event is not marked "
                    "rigged"
                )
        elif kind == "hit" and event.get("manual") is True:
            found = commitments.get(key) if isinstance(key, str) else None
            if found is None:
                problems.append(f"{where}: a hit settled manually, under no commitment the log opened")
            else:
                found.manual.append(where)
        elif kind in _WINDOW and isinstance(key, str) and key in commitments:
            _window_event(commitments[key], where, event)
        elif kind in _OPERATIONS or (kind in _REVEALS and key is not None):
            found = commitments.get(key) if isinstance(key, str) else None
            if found is None and not commitments and kind in _REVEALS:
                unchecked += 1  # the log begins after this commitment was opened: nothing to check it against
            elif found is None and not commitments:
                problems.append(f"{where}: {kind} of a commitment the log does not open (its opening lines are "
                                "missing: a truncated export?)")  # fmt: skip
            elif found is None:
                problems.append(f"{where}: {kind} under commitment {key!r}, which no event opened")
            elif found.secret is not None:
                problems.append(f"{where}: {kind} under {found.name}, after its secret was revealed")
            elif kind in _OPERATIONS:
                found.operations.append((where, event))
            else:
                found.secret = event.get("secret") if isinstance(event.get("secret"), str) else ""
                found.revealed_presses = event.get("presses")
                found.revealed_at = where
    for commitment in commitments.values():
        if commitment.secret is not None:
            _check(commitment)
    return AuditReport(list(commitments.values()), problems, unchecked)


def _check(c: Commitment) -> None:
    """Recompute one revealed commitment's presses (docs/ejection.md, "How one press is decided")."""
    secret = c.secret or ""
    if SECRET_PATTERN.fullmatch(secret) is None and not c.rigged:
        c.mismatches.append(f"{c.revealed_at}: the revealed secret is not 64 hexadecimal characters")
    if hashlib.sha256(secret.encode()).hexdigest() != c.commitment:
        c.mismatches.append(f"{c.revealed_at}: the revealed secret does not hash to the commitment")
        return
    try:
        model = EjectionModel(c.preset, c.custom, c.ms_per_card)
    except EjectionConfigError as exc:
        c.mismatches.append(f"{c.opened_at}: the ejection preset cannot be used ({exc})")
        return
    state = {**model.start(secret), "run": c.start[0], "since_lid": c.start[1]}
    recorded_presses: dict[Any, tuple[Any, Any, Any]] = {}  # index -> (player, plan, draw) as recorded
    carried: dict[Any, str] = {}  # index -> why its plan is owed again (an aborted run, an undo)
    for where, op in c.operations:
        kind, due = op["type"], state["press"]
        if kind == "ejection_carry":
            index, reason = op.get("index"), str(op.get("reason"))
            if index not in recorded_presses:
                c.mismatches.append(f"{where}: a carried press {index!r} that was never made")
            carried[index] = reason
            c.notes.append(f"press {index} {'undone' if reason == 'undone' else f'aborted ({reason})'}: its plan "
                           "stays owed, the player's next press fires it again")  # fmt: skip
            continue
        if kind == "press" and op.get("retry") is True:
            index = op.get("index")
            again = (op.get("player"), op.get("plan"), op.get("draw"))
            if carried.pop(index, None) is None or recorded_presses.get(index) != again:
                c.mismatches.append(f"{where}: press {index!r} repeated, but not the plan an aborted or undone "
                                    "press left owed")  # fmt: skip
            c.presses += 1  # checked: the same plan again
            continue
        if kind == "press":
            if isinstance(op.get("index"), int):
                recorded_presses[op["index"]] = (op.get("player"), op.get("plan"), op.get("draw"))
            index = op.get("index")
            if index != due:
                c.mismatches.append(f"{where}: press index {index!r} where press {due} was due (a press is missing, "
                                    "repeated or moved)")  # fmt: skip
            player = op.get("player")
            player = player if isinstance(player, str) else None
            if op.get("draw") != press_draw(state["key"], due, player or ""):
                c.mismatches.append(f"{where}: press {due}: its draw does not match the key, number and player")
            plan, state = model.plan(state, player)
            recorded = op.get("plan")
            wanted = plan.to_json()
            if not isinstance(recorded, dict):
                c.mismatches.append(f"{where}: press {due} has no plan")
            else:
                diffs = [
                    f"{name} {recorded.get(name)!r} (expected {wanted[name]!r})"
                    for name in PLAN_FIELDS
                    if recorded.get(name) != wanted[name] or type(recorded.get(name)) is not type(wanted[name])
                ]
                if diffs:
                    c.mismatches.append(f"{where}: press {due}: " + ", ".join(diffs))
            c.presses += 1
            continue
        if op.get("press") != due:
            c.mismatches.append(f"{where}: {kind} at press {op.get('press')!r} where press {due} was due")
        if kind == "ejection_lid":
            state = model.lid_opened(state)
        else:
            entropy = op.get("entropy")
            _check_committed(c, where, op, due)
            if not isinstance(entropy, str) or ENTROPY_PATTERN.fullmatch(entropy) is None:
                c.mismatches.append(f"{where}: entropy {entropy!r} is not 16-128 characters of hex or base64 text")
                entropy = str(entropy)
            state = model.with_entropy(state, entropy)
    if c.revealed_presses != state["press"]:
        c.mismatches.append(
            f"{c.revealed_at}: the reveal counts {c.revealed_presses!r} press(es), the events hold {state['press']}"
        )


def _check_start(c: Commitment, where: str, event: dict[str, Any], previous: Commitment | str | None) -> None:
    """The streak a commitment opens with must go on from the game's previous commitment (docs/ejection.md): a
    restart would let a run of dry presses outlast the preset's bound across a round boundary."""
    run, since_lid = event.get("run"), event.get("since_lid")
    if run is None and since_lid is None:
        c.warnings.append(f"{where}: opened without its starting streak (a journal from before streaks ran through "
                          "the game): recomputed from no streak")  # fmt: skip
        return
    if type(run) is not int or type(since_lid) is not int or since_lid < 0:
        c.mismatches.append(f"{where}: its starting streak (run {run!r}, since_lid {since_lid!r}) is malformed")
        return
    c.start = (run, since_lid)
    expected = (0, 0) if previous == "game" else streak_after(previous) if isinstance(previous, Commitment) else None
    if expected is not None and expected != c.start:
        c.mismatches.append(f"{where}: it starts at run {run}, since_lid {since_lid}, but the game's previous "
                            f"commitment left run {expected[0]}, since_lid {expected[1]} (the dry-press streak "
                            "must not restart)")  # fmt: skip


def streak_after(c: Commitment) -> tuple[int, int]:
    """(run, since_lid) after a commitment's recorded presses and lid openings: public, no secret needed (a retried
    press fires a carried plan and does not move the streak)."""
    run, since_lid = c.start
    for _, op in c.operations:
        kind = op.get("type")
        if kind == "press" and op.get("retry") is not True:
            fired = isinstance(op.get("plan"), dict) and op["plan"].get("fire") is True
            run, since_lid = (max(run, 0) + 1 if fired else min(run, 0) - 1), since_lid + 1
        elif kind == "ejection_lid":
            since_lid = 0
    return run, since_lid


def _window_event(c: Commitment, where: str, event: dict[str, Any]) -> None:
    """A players' entropy commitment or a withheld one (rules/ejection_entropy.py)."""
    digest, client = event.get("hash"), str(event.get("client"))
    if event.get("type") == "ejection_entropy_commit":
        if any(op.get("type") == "press" for _, op in c.operations):
            c.mismatches.append(f"{where}: an entropy commitment after the first press (the window closes before it)")
        if isinstance(digest, str):
            c.commits[digest] = client
        return
    if not isinstance(digest, str) or digest not in c.commits:
        c.mismatches.append(f"{where}: withheld entropy {digest!r} was never committed")
    c.warnings.append(f"entropy withheld by client {client} ({where}): committed, not revealed before the first "
                      "press, so its contributor chose to leave it out (or the table dropped it)")  # fmt: skip


def _check_committed(c: Commitment, where: str, op: dict[str, Any], due: int) -> None:
    """Entropy in the key must have been committed before any was revealed, and mixed in at the first press."""
    digest = op.get("hash")
    if digest is None:
        c.warnings.append(f"{where}: entropy mixed in without commit-then-reveal (whoever knew the secret could have "
                          "chosen it)")  # fmt: skip
        return
    entropy = op.get("entropy")
    if (
        not isinstance(digest, str)
        or digest not in c.commits
        or not isinstance(entropy, str)
        or (sha256_hex(entropy) != digest)
    ):
        c.mismatches.append(f"{where}: entropy that does not match any commitment of the round")
    elif due != 0:
        c.mismatches.append(f"{where}: committed entropy mixed in at press {due}, not at the first press")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
