"""Live standings of many tables, built from what the tables publish on MQTT — pure, no I/O.

The league view (``unolauncher league``), the many-table benchmark and the bridge test all feed the messages
they receive into a :class:`Standings`; it keeps one :class:`TableView` per table and a :class:`SeqTracker`
per table that counts gaps, duplicates and late (reordered) events in the gap-free ``seq`` of PROTOCOL.md.
Anything arriving from the wire that is not what the protocol says is counted as invalid and otherwise ignored.

Example::

    >>> league = Standings(base="unolauncher")
    >>> league.feed("unolauncher/t1/status", b"online")
    >>> league.feed("unolauncher/t1/state", b'{"players": ["ann", "bob"], "scores": {"ann": 0, "bob": 50}, "round": 2}')
    >>> league.feed("unolauncher/t1/events", b'{"type": "play", "seq": 7}')
    >>> snap = league.snapshot()
    >>> assert snap["tables"][0]["leader"] == "bob" and snap["tables"][0]["last_seq"] == 7
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from unolauncher.errors import UnolauncherError

#: Payloads larger than this are refused before parsing (a public state of 10 players is a few kB).
MAX_PAYLOAD_BYTES = 256 * 1024
#: Missing sequence numbers remembered per table so a late arrival can be told from a duplicate.
MAX_REMEMBERED_MISSING = 10_000
#: Table ids longer than this are refused (they would only be someone filling the view with junk).
MAX_TABLE_ID = 128
#: Distinct tables kept; further ones are counted as invalid (a flood of made-up table ids must not eat memory).
MAX_TABLES = 10_000

KINDS = ("state", "events", "status")


class InvalidMessage(UnolauncherError, ValueError):
    """A message from the wire that does not follow PROTOCOL.md; the text says what was wrong."""


class SeqTracker:
    """Checks that a stream of ``seq`` numbers is gap-free, duplicate-free and in order.

    The first number seen is the baseline (an observer may join mid-game). A number above ``last + 1`` opens a
    gap; if a missing number arrives later it counts as *reordered* and closes its gap; a number seen before
    counts as a *duplicate*.

    Example::

        >>> t = SeqTracker()
        >>> for s in (1, 2, 4, 3, 3):
        ...     _ = t.add(s)  # 'ok', 'ok', 'gap', 'reordered', 'duplicate'
        >>> assert (t.gaps, t.reordered, t.duplicates) == (0, 1, 1)
    """

    __slots__ = ("count", "duplicates", "first", "last", "missing", "reordered")

    def __init__(self) -> None:
        self.first: int | None = None
        self.last: int | None = None
        self.count = 0
        self.duplicates = 0
        self.reordered = 0
        self.missing: set[int] = set()

    @property
    def gaps(self) -> int:
        """Sequence numbers skipped and not (yet) received."""
        return len(self.missing)

    def add(self, seq: int) -> str:
        """Record one number; returns ``"ok"``, ``"gap"``, ``"reordered"`` or ``"duplicate"``."""
        self.count += 1
        if self.last is None:
            self.first = self.last = seq
            return "ok"
        if seq == self.last + 1:
            self.last = seq
            return "ok"
        if seq > self.last:
            # Remember at most MAX_REMEMBERED_MISSING numbers; beyond that a huge jump (a hostile seq) would
            # otherwise allocate without bound. Numbers not remembered are not counted as gaps.
            room = MAX_REMEMBERED_MISSING - len(self.missing)
            self.missing.update(range(self.last + 1, min(seq, self.last + 1 + max(0, room))))
            self.last = seq
            return "gap"
        if seq in self.missing:
            self.missing.discard(seq)
            self.reordered += 1
            return "reordered"
        self.duplicates += 1
        return "duplicate"

    def to_json(self) -> dict[str, Any]:
        return {
            "first_seq": self.first,
            "last_seq": self.last,
            "events": self.count,
            "gaps": self.gaps,
            "duplicates": self.duplicates,
            "reordered": self.reordered,
        }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def parse_json_object(payload: bytes, what: str) -> dict[str, Any]:
    """Decode a payload that must be one JSON object (raises :class:`InvalidMessage` with the reason)."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise InvalidMessage(f"{what} payload of {len(payload)} bytes is larger than {MAX_PAYLOAD_BYTES}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidMessage(f"{what} payload is not UTF-8 text ({exc.reason})") from None
    except (ValueError, RecursionError) as exc:  # ValueError covers JSONDecodeError and over-long integers
        raise InvalidMessage(f"{what} payload is not valid JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise InvalidMessage(f"{what} payload must be a JSON object, not {type(data).__name__}")
    return data


def parse_state(payload: bytes) -> dict[str, Any]:
    """Validate the fields of a public state the league shows; returns them normalised."""
    data = parse_json_object(payload, "state")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players) or len(players) > 64:
        raise InvalidMessage("state field 'players' must be a list of names")
    scores = data.get("scores", {})
    if not isinstance(scores, dict) or not all(isinstance(k, str) and _is_number(v) for k, v in scores.items()):
        raise InvalidMessage("state field 'scores' must map names to numbers")
    rnd = data.get("round")
    if rnd is not None and not _is_int(rnd):
        raise InvalidMessage("state field 'round' must be an integer")
    for key in ("winner", "current", "ruleset", "mode"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise InvalidMessage(f"state field '{key}' must be a string or null")
    hands = data.get("hands", {})
    if not isinstance(hands, dict) or not all(_is_int(v) for v in hands.values()):
        raise InvalidMessage("state field 'hands' must map names to card counts")
    return {
        "players": list(players),
        "scores": dict(scores),
        "round": rnd,
        "winner": data.get("winner"),
        "current": data.get("current"),
        "ruleset": data.get("ruleset"),
        "hands": dict(hands),
    }


def _no_state() -> dict[str, Any]:
    """What :func:`parse_state` returns for a table without a state (its retained state was cleared)."""
    return {"players": [], "scores": {}, "round": None, "winner": None, "current": None, "ruleset": None, "hands": {}}


def parse_event(payload: bytes) -> dict[str, Any]:
    """Validate an event: a JSON object with a string ``type`` and a non-negative integer ``seq``."""
    data = parse_json_object(payload, "event")
    if not isinstance(data.get("type"), str):
        raise InvalidMessage("event field 'type' must be a string")
    seq = data.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise InvalidMessage("event field 'seq' must be a non-negative integer")
    return data


def parse_status(payload: bytes) -> str:
    """``online`` or ``offline`` (plain text; a JSON string or ``{"status": ...}`` object is accepted too)."""
    if len(payload) > 1024:
        raise InvalidMessage("status payload is too long")
    text = payload.decode("utf-8", errors="replace").strip()
    if text.startswith(("{", '"')):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
        text = value.get("status") if isinstance(value, dict) else value  # type: ignore[assignment]
    if text not in ("online", "offline"):
        raise InvalidMessage("status payload must be 'online' or 'offline'")
    return str(text)


@dataclass
class TableView:
    """What the league knows about one table.

    Example::

        >>> view = TableView("t1")
        >>> view.scores = {"ann": 120, "bob": 300}
        >>> assert view.leader() == "bob"
    """

    table: str
    status: str = "unknown"
    ruleset: str | None = None
    round: int | None = None
    players: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    hands: dict[str, int] = field(default_factory=dict)
    current: str | None = None
    winner: str | None = None
    last_event: str | None = None
    invalid: int = 0
    last_error: str | None = None
    seq: SeqTracker = field(default_factory=SeqTracker)

    def leader(self) -> str | None:
        """The player with the most points (ties: seating order), or ``None`` before anyone scored."""
        if not self.scores or max(self.scores.values()) <= 0:
            return None
        order = {p: i for i, p in enumerate(self.players)}
        return min(self.scores, key=lambda p: (-self.scores[p], order.get(p, len(order)), p))

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "status": self.status,
            "ruleset": self.ruleset,
            "round": self.round,
            "players": self.players,
            "scores": self.scores,
            "hands": self.hands,
            "current": self.current,
            "leader": self.leader(),
            "winner": self.winner,
            "last_event": self.last_event,
            **self.seq.to_json(),
            "invalid": self.invalid,
            "last_error": self.last_error,
        }


class Standings:
    """Every table seen under ``<base>/+/{state,events,status}`` plus a player ranking across tables.

    ``base`` may hold ``+`` levels (one league over several venues' bridged topic trees); ``#`` is not allowed.

    Not thread-safe by itself: the caller serialises :meth:`feed` and :meth:`snapshot` (one lock is enough).
    """

    def __init__(self, base: str = "unolauncher") -> None:
        self.base = base.rstrip("/")
        self._base_levels = self.base.split("/")
        self.tables: dict[str, TableView] = {}
        self.invalid = 0  # messages that could not even be attributed to a table
        self.last_error: str | None = None

    def _table(self, table_id: str) -> TableView:
        view = self.tables.get(table_id)
        if view is None:
            if len(self.tables) >= MAX_TABLES:
                raise InvalidMessage(f"more than {MAX_TABLES} tables; table '{table_id[:40]}' ignored")
            view = self.tables[table_id] = TableView(table_id)
        return view

    def split_topic(self, topic: str) -> tuple[str, str]:
        """``<base>/<table>/<kind>`` → (table, kind), or :class:`InvalidMessage`.

        A ``+`` level in the base (``venues/+/unolauncher``, a league across bridged venues) becomes part of the
        table's name: ``venues/paris/unolauncher/t1/state`` → (``paris/t1``, ``state``).
        """
        levels = topic.split("/")
        if len(levels) != len(self._base_levels) + 2 or levels[-1] not in KINDS:
            raise InvalidMessage(f"topic '{topic[:80]}' is not {self.base}/<table>/(state|events|status)")
        named: list[str] = []
        for pattern, level in zip(self._base_levels, levels):
            if pattern == "+":
                if not level:
                    raise InvalidMessage(f"topic '{topic[:80]}' has an empty level where the base has '+'")
                named.append(level)
            elif pattern != level:
                raise InvalidMessage(f"topic '{topic[:80]}' is not under '{self.base}/'")
        table_id = "/".join([*named, levels[-2]])
        if not levels[-2] or len(table_id) > MAX_TABLE_ID:
            raise InvalidMessage(f"topic '{topic[:80]}' has an empty or over-long table id")
        return table_id, levels[-1]

    def feed(self, topic: str, payload: bytes) -> str | None:
        """Apply one message. Returns ``None`` if it was used, else the one-sentence reason it was ignored."""
        try:
            table_id, kind = self.split_topic(topic)
            view = self._table(table_id)
        except InvalidMessage as exc:
            self.invalid += 1
            self.last_error = str(exc)
            return str(exc)
        try:
            if kind == "status":
                view.status = parse_status(payload)
            elif kind == "state":
                # An empty retained payload clears the retained state: the table was removed.
                st = parse_state(payload) if payload else _no_state()
                view.players, view.scores, view.hands = st["players"], st["scores"], st["hands"]
                view.round, view.winner, view.current, view.ruleset = (
                    st["round"],
                    st["winner"],
                    st["current"],
                    st["ruleset"],
                )
            else:
                event = parse_event(payload)
                view.seq.add(event["seq"])
                view.last_event = event["type"]
        except InvalidMessage as exc:
            view.invalid += 1
            view.last_error = str(exc)
            return str(exc)
        return None

    def ranking(self) -> list[dict[str, Any]]:
        """Players across all tables: games won, then points, then name."""
        rows: dict[str, dict[str, Any]] = {}
        for view in self.tables.values():
            for player in view.players:
                row = rows.setdefault(player, {"player": player, "tables": 0, "wins": 0, "points": 0})
                row["tables"] += 1
                row["points"] += view.scores.get(player, 0)
                if view.winner == player:
                    row["wins"] += 1
        return sorted(rows.values(), key=lambda r: (-r["wins"], -r["points"], r["player"]))

    def totals(self) -> dict[str, int]:
        seqs = [v.seq for v in self.tables.values()]
        return {
            "tables": len(self.tables),
            "online": sum(1 for v in self.tables.values() if v.status == "online"),
            "events": sum(s.count for s in seqs),
            "gaps": sum(s.gaps for s in seqs),
            "duplicates": sum(s.duplicates for s in seqs),
            "reordered": sum(s.reordered for s in seqs),
            "invalid": self.invalid + sum(v.invalid for v in self.tables.values()),
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything as one JSON-serialisable object (the ``--json`` line)."""
        return {
            "base": self.base,
            "totals": self.totals(),
            "tables": [self.tables[t].to_json() for t in sorted(self.tables)],
            "ranking": self.ranking(),
            "unattributed_invalid": self.invalid,
        }


def render_text(snapshot: dict[str, Any], width: int = 120, max_rows: int | None = None) -> str:
    """A plain-text standings table (what the terminal view redraws)."""
    totals = snapshot["totals"]
    lines = [
        f"UNO league on '{snapshot['base']}': {totals['tables']} tables, {totals['online']} online, "
        f"{totals['events']} events, gaps {totals['gaps']}, duplicates {totals['duplicates']}, "
        f"reordered {totals['reordered']}, invalid {totals['invalid']}",
        "",
        f"{'TABLE':<16} {'STATUS':<8} {'ROUND':>5} {'SEQ':>7} {'GAPS':>4}  {'WINNER':<12} SCORES",
    ]
    tables = snapshot["tables"]
    shown = tables if max_rows is None else tables[:max_rows]
    for t in shown:
        order = sorted(t["scores"].items(), key=lambda kv: (-kv[1], kv[0]))
        scores = " ".join(f"{p}:{_fmt(s)}" for p, s in order) or "-"
        seq = "-" if t["last_seq"] is None else str(t["last_seq"])
        rnd = "-" if t["round"] is None else str(t["round"])
        row = (
            f"{t['table'][:16]:<16} {t['status']:<8} {rnd:>5} {seq:>7} {t['gaps']:>4}  "
            f"{(t['winner'] or '-')[:12]:<12} {scores}"
        )
        lines.append(row[:width])
    if len(shown) < len(tables):
        lines.append(f"... {len(tables) - len(shown)} more tables")
    if snapshot["ranking"]:
        lines += ["", f"{'PLAYER':<16} {'TABLES':>6} {'WINS':>4} {'POINTS':>7}"]
        ranking = snapshot["ranking"] if max_rows is None else snapshot["ranking"][:max_rows]
        for r in ranking:
            lines.append(f"{r['player'][:16]:<16} {r['tables']:>6} {r['wins']:>4} {_fmt(r['points']):>7}")
    return "\n".join(lines)


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
