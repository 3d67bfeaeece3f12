"""The launcher's record inside the referee: one commitment per round, then every press, lid opening and player
entropy under it, until its secret is revealed. The only part of the referee that ``undo`` never rewinds.

Why it is apart from :class:`~unolauncher.rules.state.GameState`: a press physically happened, and everyone saw
what came out. If taking back a move also took back the press, the next press would repeat that outcome and
anyone could predict it. So the game (hands, turns, owed hits) is undone; the launcher's record only moves on.

An *epoch* is what one commitment covers: a round (opened by ``new_game``/``next_round``), a round reopened by an
undo after its secret was revealed (a fresh commitment, ``ejection_commit`` with reason ``undo``), or free play
between rounds with ``lockout = false`` (reason ``free``). Its secret comes from the command that opens it (the
daemon draws it); without one it is derived from the game's seed and marked ``rigged``.

State is a plain JSON dict that is never changed in place (every change builds a new one), so saving it before
a command and putting it back after a failure is a reference copy, and a reader may keep it as a snapshot.

Example::

    >>> stream = EjectionStream()
    >>> descriptor = stream.open(options={"ejection_preset": "classic", "ejection_custom": None}, secret="ab" * 32,
    ...                          seed=0, rigged_game=False, round_no=1)
    >>> plan, events = stream.press("ann")
    >>> event = events[-1]
    >>> event["type"], event["index"], event["plan"] == plan.to_json(), event["commitment"] == descriptor["commitment"]
    ('press', 0, True, True)
    >>> reveal = stream.close()
    >>> reveal["secret"] == "ab" * 32, reveal["presses"]
    (True, 1)
"""

from __future__ import annotations

from typing import Any

from unolauncher.rules.ejection import (
    ENTROPY_PATTERN,
    EjectionModel,
    FirePlan,
    commitment,
    derive_secret,
)
from unolauncher.rules.ejection_entropy import commit as commit_entropy
from unolauncher.rules.ejection_entropy import new_window, seal
from unolauncher.rules.ejection_entropy import reveal as reveal_entropy
from unolauncher.rules.ejection_models import model_for
from unolauncher.rules.refusal import Event, refuse

MAX_ENTROPY = 32  # legacy (unstamped) contributions per commitment, from journals older than commit-then-reveal


class EjectionStream:
    """The open epoch (if any), the script rig and the counters that name derived secrets. See the module doc."""

    # ``data``: the whole state (read it, never change it: it is shared, which is what makes saving it free).
    __slots__ = ("_ahead", "_link", "_model_of", "_sealed_of", "data")

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data: dict[str, Any] = (
            data
            if data is not None
            else {
                "epoch": None,
                "opened": 0,  # epochs opened since the last new_game: names a rigged (derived) secret
                "script": [],  # launcher.script: counts for hits that carry none (a rig)
                "script_pos": 0,
            }
        )
        # The next press, computed once per (epoch state, player): (epoch dict, player, plan, model state, draw).
        self._ahead: tuple[dict[str, Any], str | None, FirePlan, dict[str, Any], str] | None = None
        # The open epoch's model: (preset, custom table object, ms_per_card, model). Every version of an epoch shares
        # its custom table object, so an identity check finds it without building model_for's key (a JSON dump).
        self._model_of: tuple[str, Any, Any, EjectionModel] | None = None
        # The open epoch as its first press will see it (its entropy window sealed): (epoch, sealed epoch, events).
        self._sealed_of: tuple[dict[str, Any], dict[str, Any], list[Event]] | None = None
        # The press the last settle() linked to a hit (the referee keeps it with the hit, for an undo).
        self._link: dict[str, Any] | None = None

    # -- state ----------------------------------------------------------------------------------------------------
    def copy(self) -> EjectionStream:
        """An independent stream starting from this state (the referee's undo replays against one)."""
        return EjectionStream(self.data)

    def to_json(self) -> dict[str, Any]:
        return self.data

    @classmethod
    def from_json(cls, data: Any) -> EjectionStream:
        if not isinstance(data, dict) or not {"epoch", "opened", "script", "script_pos"} <= set(data):
            raise ValueError("not an ejection stream")
        return cls(data)

    @property
    def epoch(self) -> dict[str, Any] | None:
        """The open epoch: ``commitment``, ``secret``, ``round`` (``None``: free play), ``rigged``, ``preset``,
        ``custom``, ``model`` (the model state) and ``entropy`` (contributions so far); ``None`` when closed."""
        epoch: dict[str, Any] | None = self.data["epoch"]
        return epoch

    # -- game boundaries ------------------------------------------------------------------------------------------
    def new_game(self, script: list[int]) -> None:
        """A new game's launcher rig; the counters that name derived secrets start again (same seed, same
        secrets, whatever happened before: a mirror referee in a test agrees with the daemon's), and so does the
        streak (the game's first commitment starts at no streak)."""
        self.data = {**self.data, "opened": 0, "script": list(script), "script_pos": 0, "streak": [0, 0]}

    def open(
        self,
        options: dict[str, Any],
        secret: Any,
        seed: int,
        *,
        rigged_game: bool,
        round_no: int | None,
        chosen_deal: bool = False,
    ) -> dict[str, Any]:
        """Open an epoch (the caller closed any open one first); returns its public descriptor: ``commitment``,
        ``preset`` (``custom`` too for that preset, ``ms_per_card`` for a calibrated launcher) and ``rigged: true``
        when the secret is derived, or the round's cards were chosen by a command (``chosen_deal``: a full-mode
        ``deal``; the daemon's secret still keys it)."""
        opened = self.data["opened"]
        rigged = rigged_game or secret is None or bool(self.data["script"]) or chosen_deal
        if rigged_game or secret is None:
            secret = derive_secret(seed, f"{'free' if round_no is None else round_no}.{opened}")
        epoch = {
            "commitment": commitment(secret),
            "secret": secret,
            "round": round_no,
            "rigged": rigged,
            "preset": options["ejection_preset"],
            "custom": options["ejection_custom"],
            "ms_per_card": options.get("ejection_ms_per_card"),  # a calibrated launcher's (None: the default)
            "model": None,
            "entropy": 0,
            "window": new_window(),  # players' entropy, commit-then-reveal (rules/ejection_entropy.py)
        }
        # The streak goes on from the game's previous commitment (docs/ejection.md, "Streaks run through the game"):
        # a new round, an undo or free play never restarts "at most N dry presses in a row".
        run, since_lid = self.data.get("streak", [0, 0])
        epoch["model"] = {**self._model(epoch).start(secret), "run": run, "since_lid": since_lid}
        self.data = {**self.data, "epoch": epoch, "opened": opened + 1}
        return descriptor(epoch)

    def close(self) -> dict[str, Any] | None:
        """Close the open epoch; returns the reveal (``commitment``, ``secret``, ``presses``), or ``None``."""
        epoch = self.data["epoch"]
        if epoch is None:
            return None
        model = epoch["model"]
        self.data = {**self.data, "epoch": None, "streak": [model["run"], model["since_lid"]]}
        return {"commitment": epoch["commitment"], "secret": epoch["secret"], "presses": model["press"]}

    # -- what changes the open epoch ------------------------------------------------------------------------------
    def next_plan(self, player: str | None) -> FirePlan | None:
        """The plan the next press by ``player`` gets (a pure peek; ``None`` with no open epoch)."""
        epoch = self.data["epoch"]
        if epoch is None:
            return None
        carried = _carried(epoch, player)
        if carried is not None:
            return FirePlan.from_json(carried["plan"])
        return self._plan(self._sealed(epoch)[0], player)[0]

    def press(self, player: str | None) -> tuple[FirePlan, list[Event]]:
        """The next press of the open epoch (the caller opened one): its plan, and its events: the entropy window's
        seal at the epoch's first press (``ejection_entropy`` / ``ejection_entropy_withheld``), then ``press``."""
        epoch, sealed_events = self._sealed(self.data["epoch"])
        carried = _carried(epoch, player)
        if carried is not None:  # an aborted or undone press of this player's: its plan again, not a fresh draw
            record = {**carried, "commitment": epoch["commitment"]}
            rest = [c for c in epoch["carry"] if c is not carried]
            self._set_epoch({**epoch, "carry": rest, "last_press": record})
            event: Event = {"type": "press", **record, "retry": True}
            return FirePlan.from_json(carried["plan"]), [*sealed_events, event]
        plan, model_state, draw = self._plan(epoch, player)
        record = {"index": epoch["model"]["press"], "player": player, "plan": plan.to_json(), "draw": draw,
                  "commitment": epoch["commitment"]}  # fmt: skip
        self._set_epoch({**epoch, "model": model_state, "last_press": record})
        return plan, [*sealed_events, {"type": "press", **record}]

    # -- a plan drawn and not settled stays owed (docs/fairness.md, "Aborted and undone presses") ------------------
    def settle(self, player: str) -> int | None:
        """A hit by ``player`` settled the epoch's last press (if it was theirs and not settled yet): its index, or
        ``None``. The press is kept for :meth:`take_link` (an undo of this hit carries it)."""
        epoch = self.data["epoch"]
        last = None if epoch is None else epoch.get("last_press")
        self._link = None
        if last is None or last["player"] != player or last.get("settled"):
            return None
        self._set_epoch({**epoch, "last_press": {**last, "settled": True}})
        self._link = last
        return int(last["index"])

    def take_link(self) -> dict[str, Any] | None:
        link, self._link = self._link, None
        return link

    def fire_failed(self, player: Any, reason: str) -> Event | None:
        """The last press's run failed (no card came out): its plan is carried to ``player``'s next press."""
        epoch = self.data["epoch"]
        last = None if epoch is None else epoch.get("last_press")
        if player is None or last is None or last["player"] != player or last.get("settled"):
            return None
        self._set_epoch({**epoch, "last_press": {**last, "settled": True}})
        return self.carry(last, reason)

    def carry(self, press: dict[str, Any], reason: str) -> Event | None:
        """``press`` (a record of this epoch) is owed again: the next press by its player fires its plan."""
        epoch = self.data["epoch"]
        if epoch is None or press.get("commitment") != epoch["commitment"] or press.get("player") is None:
            return None
        kept = {k: press[k] for k in ("index", "player", "plan", "draw")}
        carry = [c for c in epoch.get("carry", []) if c["index"] != kept["index"]]
        self._set_epoch({**epoch, "carry": [*carry, kept]})
        return {"type": "ejection_carry", "commitment": epoch["commitment"], "index": kept["index"],
                "player": kept["player"], "reason": reason}  # fmt: skip

    def lid(self) -> Event | None:
        """The lid was opened: the sequence count restarts. ``None`` when no epoch is open (nothing to restart)."""
        epoch = self.data["epoch"]
        if epoch is None:
            return None
        self._set_epoch({**epoch, "model": self._model(epoch).lid_opened(epoch["model"])})
        return {"type": "ejection_lid", "commitment": epoch["commitment"], "press": epoch["model"]["press"]}

    def add_entropy(
        self, entropy: Any, for_commitment: Any = None, digest: Any = None, client: Any = None, at: Any = None
    ) -> Event:
        """A player's entropy for the open epoch: with ``digest`` a commitment (``ejection_entropy_commit``), else a
        reveal (``ejection_entropy_revealed``), both by the rules of :mod:`~unolauncher.rules.ejection_entropy`;
        ``at`` is the daemon's stamp. Refused without an open epoch, or when ``for_commitment`` — the commitment the
        sender saw — is not the open one. Without ``at`` (a journal from before commit-then-reveal): mixed in now."""
        epoch = self.data["epoch"]
        if epoch is None:
            refuse("no_commitment", "No launcher commitment is open right now; send entropy after round_started.")
        if for_commitment is not None and for_commitment != epoch["commitment"]:
            refuse("no_commitment", "That launcher commitment is not the open one any more.")
        window = epoch.get("window")
        if at is not None and window is not None:
            if type(at) is not int:
                refuse("bad_field", "at must be the table's time stamp in unix milliseconds.")
            if digest is not None:
                window, fields = commit_entropy(window, digest, client, at)
                kind = "ejection_entropy_commit"
            else:
                window, fields = reveal_entropy(window, entropy, at)
                kind = "ejection_entropy_revealed"
            self._set_epoch({**epoch, "window": window})
            return {"type": kind, "commitment": epoch["commitment"], **fields}
        return self._legacy_entropy(epoch, entropy)

    def _legacy_entropy(self, epoch: dict[str, Any], entropy: Any) -> Event:
        if type(entropy) is not str or ENTROPY_PATTERN.fullmatch(entropy) is None:
            refuse("bad_field", "entropy must be 16 to 128 characters of hex or base64 text.")
        if epoch["entropy"] >= MAX_ENTROPY:
            refuse("too_much_entropy", f"This round already has {MAX_ENTROPY} entropy contributions.")
        model_state = self._model(epoch).with_entropy(epoch["model"], entropy)
        self._set_epoch({**epoch, "model": model_state, "entropy": epoch["entropy"] + 1})
        return {
            "type": "ejection_entropy",
            "commitment": epoch["commitment"],
            "entropy": entropy,
            "press": epoch["model"]["press"],
        }

    def _sealed(self, epoch: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        """``epoch`` with its entropy window sealed (the revealed contributions mixed into the key in commit order),
        and the events that say so; ``epoch`` itself and no events when it is sealed already."""
        window = epoch.get("window")
        if window is None or window["sealed"]:
            return epoch, []
        cached = self._sealed_of
        if cached is not None and cached[0] is epoch:
            return cached[1], cached[2]
        window, used, fields = seal(window)
        model, state = self._model(epoch), epoch["model"]
        for entropy in used:
            state = model.with_entropy(state, entropy)
        sealed = {**epoch, "model": state, "window": window, "entropy": epoch["entropy"] + len(used)}
        events: list[Event] = [
            {**f, "commitment": epoch["commitment"], "press": epoch["model"]["press"]} for f in fields
        ]
        self._sealed_of = (epoch, sealed, events)
        return sealed, events

    def next_script(self) -> int | None:
        """The next ``launcher.script`` count (consumed), or ``None`` when the script is used up."""
        data = self.data
        pos = data["script_pos"]
        if pos >= len(data["script"]):
            return None
        self.data = {**data, "script_pos": pos + 1}
        count: int = data["script"][pos]
        return count

    # -- helpers --------------------------------------------------------------------------------------------------
    def _set_epoch(self, epoch: dict[str, Any]) -> None:
        self.data = {**self.data, "epoch": epoch}

    def _model(self, epoch: dict[str, Any]) -> EjectionModel:
        cached = self._model_of
        preset, custom, ms_per_card = epoch["preset"], epoch["custom"], epoch["ms_per_card"]
        if cached is not None and cached[0] == preset and cached[1] is custom and cached[2] == ms_per_card:
            return cached[3]
        model = model_for({"ejection_preset": preset, "ejection_custom": custom, "ejection_ms_per_card": ms_per_card})
        self._model_of = (preset, custom, ms_per_card, model)
        return model

    def _plan(self, epoch: dict[str, Any], player: str | None) -> tuple[FirePlan, dict[str, Any], str]:
        ahead = self._ahead
        if ahead is not None and ahead[0] is epoch and ahead[1] == player:
            return ahead[2], ahead[3], ahead[4]
        plan, model_state, draw = self._model(epoch).press(epoch["model"], player)
        self._ahead = (epoch, player, plan, model_state, draw)
        return plan, model_state, draw


def _carried(epoch: dict[str, Any], player: str | None) -> dict[str, Any] | None:
    """The first plan carried to ``player``'s next press, if any."""
    if player is None:
        return None
    return next((c for c in epoch.get("carry", ()) if c["player"] == player), None)


def descriptor(epoch: dict[str, Any]) -> dict[str, Any]:
    """What an epoch's opening event says about it: the commitment and how to recompute its presses, from the streak
    (``run``) and sequence count (``since_lid``) it goes on from (only ever called at its opening)."""
    model = epoch["model"]  # at its opening: the streak it goes on from
    public: dict[str, Any] = {"commitment": epoch["commitment"], "preset": epoch["preset"], "run": model["run"],
                              "since_lid": model["since_lid"]}  # fmt: skip
    if epoch["preset"] == "custom":
        public["custom"] = epoch["custom"]
    if epoch["ms_per_card"] is not None:
        public["ms_per_card"] = epoch["ms_per_card"]
    if epoch["rigged"]:
        public["rigged"] = True
    return public
