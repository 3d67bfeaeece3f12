"""The randomized ejection model: what one press of the launcher does. Pure, keyed, auditable.

API contract (other parts rely on it)::

    model = EjectionModel(preset="classic")        # immutable configuration
    state = model.start(secret)                    # JSON-serialisable dict; the key starts as the round's secret
    plan, state = model.plan(state, player)        # pure: same state and player -> same plan and next state
    state = model.lid_opened(state)                # refill: restarts what the lid restarts (the sequence count)
    state = model.with_entropy(state, entropy)     # a player's entropy, mixed into the key (HMAC)
    commitment(secret) -> "sha256 hex"             # published before the first press, the secret after the last

How a press is decided (``docs/ejection.md`` says the same for an auditor re-implementing it; the dashboard's
``fairness.js`` does, with WebCrypto):

* A round's ``secret`` is 64 hexadecimal characters drawn by the daemon; its commitment is
  ``sha256(secret)`` (of the text). The key starts as the secret; each entropy contribution ``e`` replaces it
  with ``HMAC-SHA256(key, "entropy:" + e)`` in hex. Everything is UTF-8 text, so ``openssl dgst -sha256 -hmac``
  reproduces every step.
* Press *i* of the round (0-based, counted from the commitment, never rewound) by ``player`` (``""`` when nobody
  was attributed) takes ``d = HMAC-SHA256(key, f"press:{i}:{player}")`` and four uniform numbers
  ``u0..u3``, each a big-endian 8-byte slice of ``d`` divided by 2**64. Nothing else is random.
* ``run`` in the state is the current streak: ``-k`` after *k* presses in a row without firing, ``+s`` after *s*
  presses in a row that fired, ``0`` at start. The fire probability is ``miss_hazard[min(k, len-1)]`` after a
  miss streak (or at start) and ``hit_repeat[min(s, len) - 1]`` after a fire streak; the press fires if
  ``u0 < p``. A hazard of 1.0 makes the longest possible dry spell a hard guarantee.
* The ``sequence`` preset ignores ``u0``: it fires on fixed press numbers counted from the start of the game (the
  stream carries ``run`` and ``since_lid`` from commitment to commitment) or the last lid opening, every ``period``.
* Card count: the smallest *n* whose cumulative weight exceeds ``u1 * total``. Suspense: with probability
  ``suspense_chance`` (``u2``) the motor start waits ``suspense_ms_min + u3 * (max - min)`` ms.
* Motor plan: ``run_ms = spin_up_ms + cards * ms_per_card`` (capped), ``power`` full; without a card sensor
  (open loop) this is what the device runs; with one it is only the expected duration. ``ms_per_card`` is
  :data:`MS_PER_CARD` until ``unolauncher selftest --calibrate`` measured the real toy (``[launcher] ms_per_card``);
  a game records the value it was started with (game option ``ejection_ms_per_card``, and ``ms_per_card`` in each
  commitment's event when it is not the default), so an audit recomputes the same plans.

Example::

    >>> model = EjectionModel("classic")
    >>> state = model.start("ab" * 32)
    >>> plan, state = model.plan(state, "ann")
    >>> assert state["press"] == 1 and plan.cards <= 12
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unolauncher.errors import ConfigError

PRESETS = ("classic", "gentle", "brutal", "sequence", "custom")

# The original toy's reported firing sequence (1-based press numbers after power-on or lid opening).
ORIGINAL_SEQUENCE: tuple[int, ...] = (
    2, 6, 9, 13, 17, 21, 24, 26, 27, 29, 32, 36, 37, 41, 44, 47, 48, 51, 54, 57, 58,
    62, 66, 69, 72, 73, 77, 81, 84, 85, 88, 92, 93, 96,
)  # fmt: skip

SPIN_UP_MS = 150  # motor from rest to ejecting speed
MS_PER_CARD = 110  # about 9 cards/s at full power: the default until selftest --calibrate measured the toy
MS_PER_CARD_RANGE = (20, 1000)  # 50 down to 1 card per second
MAX_PLAN_RUN_MS = 4000

SECRET_PATTERN = re.compile(r"[0-9a-f]{64}")
CARD_KEY = re.compile(r"[1-9][0-9]?")  # a custom table's card count: canonical ASCII digits (the range is checked)
# What a player's entropy may look like: hex or base64 text, long enough to carry real randomness.
ENTROPY_PATTERN = re.compile(r"[A-Za-z0-9+/=_-]{16,128}")
_SCALE = 2.0**-64
_FOUR_U64 = struct.Struct(">4Q").unpack


class EjectionConfigError(ConfigError):
    """A preset name or custom table that cannot be used; the message is one sentence naming the problem."""


@dataclass(frozen=True)
class FirePlan:
    """What one press should do.

    ``cards`` is the target count for a launcher with a card-exit sensor (closed loop); ``run_ms`` and
    ``power`` drive a launcher without one (open loop). ``suspense_ms`` delays the motor start for drama.
    A plan with ``fire=False`` ejects nothing (the toy's "click").

    Example::

        >>> FirePlan(fire=True, cards=4, run_ms=590, power=1.0)
        FirePlan(fire=True, cards=4, run_ms=590, power=1.0, suspense_ms=0)
        >>> FirePlan(fire=False)
        FirePlan(fire=False, cards=0, run_ms=0, power=1.0, suspense_ms=0)
        >>> FirePlan.from_json(FirePlan(fire=False).to_json()) == FirePlan(fire=False)
        True
    """

    fire: bool
    cards: int = 0
    run_ms: int = 0
    power: float = 1.0
    suspense_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "fire": self.fire,
            "cards": self.cards,
            "run_ms": self.run_ms,
            "power": self.power,
            "suspense_ms": self.suspense_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FirePlan:
        return cls(
            fire=bool(data["fire"]),
            cards=int(data.get("cards", 0)),
            run_ms=int(data.get("run_ms", 0)),
            power=float(data.get("power", 1.0)),
            suspense_ms=int(data.get("suspense_ms", 0)),
        )


NO_FIRE = FirePlan(fire=False)


def commitment(secret: str) -> str:
    """The public commitment to a round's secret: sha256 of its text.

    Example::

        >>> assert commitment("ab" * 32) == hashlib.sha256(("ab" * 32).encode()).hexdigest()
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def derive_secret(seed: int, label: str) -> str:
    """A *rigged* round secret: derived from a seed someone chose (tests, demos, ``replay``), so anyone who knows
    the seed knows the outcomes. The referee marks every round keyed this way ``rigged``."""
    return hashlib.sha256(f"unolauncher-rigged:{seed}:{label}".encode()).hexdigest()


def mix_entropy(key: str, entropy: str) -> str:
    """The key after a player's entropy: ``HMAC-SHA256(key, "entropy:" + entropy)`` as hex text."""
    return hmac.new(key.encode(), f"entropy:{entropy}".encode(), hashlib.sha256).hexdigest()


def press_digest(key: str, index: int, player: str = "") -> bytes:
    """``HMAC-SHA256(key, f"press:{index}:{player}")``: everything random about press ``index`` by ``player``."""
    return hmac.digest(key.encode(), f"press:{index}:{player}".encode(), hashlib.sha256)  # a constructor: faster


def press_draw(key: str, index: int, player: str = "") -> str:
    """The press's digest as published in its ``press`` event (hex of its first 8 bytes): it ties the event's
    commitment, number and player to the key, so an audit notices a change to any of them, even when the plan
    would come out the same. It reveals nothing about the key or about other presses (HMAC is a PRF)."""
    return press_digest(key, index, player)[:8].hex()


def press_uniforms(key: str, index: int, player: str = "") -> tuple[float, float, float, float]:
    """The four uniform numbers in [0, 1) that decide press ``index`` (by ``player``) under ``key``."""
    return _uniforms(press_digest(key, index, player))


def _uniforms(digest: bytes) -> tuple[float, float, float, float]:
    """Each big-endian 8-byte slice of the digest divided by 2**64 (exact: an int below 2**64 to the nearest float,
    times a power of two)."""
    a, b, c, d = _FOUR_U64(digest)
    return a * _SCALE, b * _SCALE, c * _SCALE, d * _SCALE


@dataclass(frozen=True)
class PresetParams:
    """The numbers behind one preset (see the module docstring for how they are used).

    Example::

        >>> PresetParams(miss_hazard=(0.5, 1.0), hit_repeat=(0.1,), card_weights={1: 1.0, 2: 1.0}).suspense_chance
        0.0
    """

    miss_hazard: tuple[float, ...]
    hit_repeat: tuple[float, ...]
    card_weights: Mapping[int, float]
    suspense_chance: float = 0.0
    suspense_ms: tuple[int, int] = (0, 0)
    sequence: tuple[int, ...] = ()
    period: int = 0

    def __post_init__(self) -> None:
        _check_probabilities("miss_hazard", self.miss_hazard)
        _check_probabilities("hit_repeat", self.hit_repeat)
        if not self.sequence and self.miss_hazard[-1] <= 0.0:
            raise EjectionConfigError("the last miss_hazard entry must be above 0, or the launcher may never fire")
        if not self.card_weights:
            raise EjectionConfigError("cards must give a weight to at least one card count")
        for count, weight in self.card_weights.items():
            if not isinstance(count, int) or not 1 <= count <= 30:
                raise EjectionConfigError(f"card count {count!r} must be a whole number from 1 to 30")
            if not isinstance(weight, int | float) or not math.isfinite(weight) or weight < 0:
                raise EjectionConfigError(f"the weight of {count} cards must be a number >= 0, got {weight!r}")
        if sum(self.card_weights.values()) <= 0:
            raise EjectionConfigError("the card weights must not all be zero")
        if not 0.0 <= self.suspense_chance <= 1.0:
            raise EjectionConfigError("suspense_chance must be between 0 and 1")
        low, high = self.suspense_ms
        if not 0 <= low <= high <= 5000:
            raise EjectionConfigError("suspense_ms must be [min, max] with 0 <= min <= max <= 5000")
        if self.sequence and (self.period < 1 or any(not 1 <= n <= self.period for n in self.sequence)):
            raise EjectionConfigError("sequence press numbers must lie between 1 and the period")

    def card_table(self) -> tuple[tuple[int, ...], tuple[float, ...]]:
        """Card counts in ascending order and their cumulative weights (for the inverse-CDF draw)."""
        counts = tuple(sorted(n for n, w in self.card_weights.items() if w > 0))
        cumulative: list[float] = []
        total = 0.0
        for n in counts:
            total += float(self.card_weights[n])
            cumulative.append(total)
        return counts, tuple(cumulative)


def _check_probabilities(name: str, values: Sequence[float]) -> None:
    if not values:
        raise EjectionConfigError(f"{name} must list at least one probability")
    for value in values:
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0.0 <= value <= 1.0:
            raise EjectionConfigError(f"{name} entries must be probabilities between 0 and 1, got {value!r}")


_CLASSIC_CARDS = {1: 2, 2: 4, 3: 10, 4: 14, 5: 16, 6: 15, 7: 12, 8: 9, 9: 6, 10: 5, 11: 4, 12: 3}

BUILTIN_PRESETS: dict[str, PresetParams] = {
    # About one press in three fires; at most 4 dry presses in a row; two fires in a row sometimes, three rarely.
    "classic": PresetParams(
        miss_hazard=(0.30, 0.27, 0.32, 0.50, 1.0),
        hit_repeat=(0.20, 0.06, 0.02),
        card_weights=_CLASSIC_CARDS,
        suspense_chance=0.15,
        suspense_ms=(300, 1200),
    ),
    # Younger players: fewer and smaller sprays, no suspense, at most 6 dry presses in a row.
    "gentle": PresetParams(
        miss_hazard=(0.22, 0.20, 0.22, 0.25, 0.30, 0.45, 1.0),
        hit_repeat=(0.10, 0.02),
        card_weights={1: 30, 2: 30, 3: 20, 4: 12, 5: 6, 6: 2},
    ),
    # Half the presses fire, big sprays, at most 3 dry presses in a row, frequent suspense.
    "brutal": PresetParams(
        miss_hazard=(0.45, 0.45, 0.60, 1.0),
        hit_repeat=(0.45, 0.30, 0.15),
        card_weights={3: 4, 4: 7, 5: 9, 6: 11, 7: 12, 8: 12, 9: 11, 10: 10, 11: 8, 12: 7, 13: 5, 14: 3, 15: 2},
        suspense_chance=0.25,
        suspense_ms=(400, 1500),
    ),
    # The original toy's fixed sequence; card counts as in classic.
    "sequence": PresetParams(
        miss_hazard=(0.0,),
        hit_repeat=(0.0,),
        card_weights=_CLASSIC_CARDS,
        sequence=ORIGINAL_SEQUENCE,
        period=96,
    ),
}


def params_from_table(table: Mapping[str, Any]) -> PresetParams:
    """Build the ``custom`` preset from a configuration table.

    Keys: ``miss_hazard`` (list), ``hit_repeat`` (list, default ``[0.2]``), ``cards`` ({"count": weight}),
    ``suspense_chance`` (default 0), ``suspense_ms`` ([min, max]), or ``sequence`` (press numbers) with
    ``period``. Raises :class:`EjectionConfigError` naming the first bad entry.

    Example::

        >>> params = params_from_table({"miss_hazard": [0.4, 1.0], "cards": {"1": 1, "4": 3}})
        >>> params.miss_hazard, params.hit_repeat, params.card_weights
        ((0.4, 1.0), (0.2,), {1: 1, 4: 3})
        >>> params_from_table({"miss_hazard": [0.4, 0.0], "cards": {"1": 1}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        unolauncher.rules.ejection.EjectionConfigError: the last miss_hazard entry must be above 0, ...
    """
    if not isinstance(table, Mapping):
        raise EjectionConfigError("the custom ejection table must be a table of settings")
    known = {"miss_hazard", "hit_repeat", "cards", "suspense_chance", "suspense_ms", "sequence", "period"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise EjectionConfigError(f"unknown custom ejection key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    if "cards" not in table:
        raise EjectionConfigError("the custom ejection table needs 'cards' (card count -> weight)")
    raw_cards = table["cards"]
    if not isinstance(raw_cards, Mapping):
        raise EjectionConfigError("custom 'cards' must be a table of card count -> weight")
    cards: dict[int, float] = {}
    for key, weight in raw_cards.items():
        if type(key) is int or (isinstance(key, str) and CARD_KEY.fullmatch(key)):  # one spelling (ejection.md)
            count = int(key)
        else:
            raise EjectionConfigError(
                f'custom card count {key!r} must be written in ASCII digits without a leading zero, e.g. "4"'
            )
        if count in cards:
            raise EjectionConfigError(f"custom card count {count} is given twice")
        cards[count] = weight
    sequence = table.get("sequence", ())
    if not isinstance(sequence, list | tuple) or not all(isinstance(n, int) for n in sequence):
        raise EjectionConfigError("custom 'sequence' must be a list of press numbers")
    period = table.get("period", max(sequence) if sequence else 0)
    if not isinstance(period, int):
        raise EjectionConfigError("custom 'period' must be a whole number")
    miss = table.get("miss_hazard", [0.0] if sequence else None)
    if miss is None:
        raise EjectionConfigError("the custom ejection table needs 'miss_hazard' (or a 'sequence')")
    suspense = table.get("suspense_ms", [0, 0])
    if not isinstance(suspense, list | tuple) or len(suspense) != 2:
        raise EjectionConfigError("custom 'suspense_ms' must be [min, max]")
    for name, value in (("miss_hazard", miss), ("hit_repeat", table.get("hit_repeat", [0.2]))):
        if not isinstance(value, list | tuple):
            raise EjectionConfigError(f"custom '{name}' must be a list of probabilities")
    return PresetParams(
        miss_hazard=tuple(miss),
        hit_repeat=tuple(table.get("hit_repeat", [0.2])),
        card_weights=cards,
        suspense_chance=table.get("suspense_chance", 0.0),
        suspense_ms=(int(suspense[0]), int(suspense[1])),
        sequence=tuple(sequence),
        period=period,
    )


class EjectionModel:
    """Decides each press: fire or not, how many cards, motor run time and power, suspense delay.

    Immutable; all progress lives in the JSON ``state`` dict, which the referee keeps (one per round) and an
    auditor recomputes.

    Example::

        >>> model = EjectionModel("sequence")
        >>> state = model.start("0" * 64)
        >>> fired = []
        >>> for _ in range(6):
        ...     plan, state = model.plan(state, "ann")
        ...     fired.append(plan.fire)
        >>> assert fired == [False, True, False, False, False, True]
    """

    def __init__(self, preset: str = "classic", custom: Any = None, ms_per_card: int | None = None) -> None:
        if ms_per_card is None:
            ms_per_card = MS_PER_CARD
        low, high = MS_PER_CARD_RANGE
        if isinstance(ms_per_card, bool) or not isinstance(ms_per_card, int) or not low <= ms_per_card <= high:
            raise EjectionConfigError(
                f"ms_per_card must be a whole number of milliseconds from {low} to {high}, got {ms_per_card!r}"
            )
        self.ms_per_card = ms_per_card
        if preset not in PRESETS:
            raise EjectionConfigError(f"unknown ejection preset {preset!r} (known: {', '.join(PRESETS)})")
        if preset == "custom":
            if custom is None:
                raise EjectionConfigError("the custom ejection preset needs a table ([launcher.custom])")
            self.params = custom if isinstance(custom, PresetParams) else params_from_table(custom)
        else:
            self.params = BUILTIN_PRESETS[preset]
        self.preset = preset
        self.custom = custom
        self._counts, self._cumulative = self.params.card_table()
        self._sequence = frozenset(self.params.sequence)

    def start(self, key: str) -> dict[str, Any]:
        """Fresh state for a round keyed by ``key`` (its secret): press 0, no streak, the sequence count at 0."""
        if not isinstance(key, str) or not key:
            raise EjectionConfigError(f"the ejection key must be a non-empty text, got {key!r}")
        return {"key": key, "press": 0, "run": 0, "since_lid": 0}

    def plan(self, state: dict[str, Any], player: str | None = None) -> tuple[FirePlan, dict[str, Any]]:
        """The plan for the next press by ``player`` (``None``: nobody) and the state after it. Pure: ``state`` is
        not modified."""
        plan, new_state, _ = self.press(state, player)
        return plan, new_state

    def press(self, state: dict[str, Any], player: str | None = None) -> tuple[FirePlan, dict[str, Any], str]:
        """:meth:`plan`, plus the press's ``draw`` (see :func:`press_draw`) from the same digest."""
        index = state["press"]
        digest = press_digest(state["key"], index, player or "")
        draw = digest[:8].hex()
        u_fire, u_cards, u_suspense, u_delay = _uniforms(digest)
        run = state["run"]
        params = self.params
        since_lid = state["since_lid"] + 1
        if self._sequence:
            fire = ((since_lid - 1) % params.period) + 1 in self._sequence
        else:
            if run > 0:
                p = params.hit_repeat[min(run, len(params.hit_repeat)) - 1]
            else:
                p = params.miss_hazard[min(-run, len(params.miss_hazard) - 1)]
            fire = u_fire < p
        new_state = dict(state)
        new_state["press"] = index + 1
        new_state["since_lid"] = since_lid
        if not fire:
            new_state["run"] = min(run, 0) - 1
            return NO_FIRE, new_state, draw
        new_state["run"] = max(run, 0) + 1
        cards = self._draw_cards(u_cards)
        suspense = 0
        if u_suspense < params.suspense_chance:
            low, high = params.suspense_ms
            suspense = int(low + u_delay * (high - low))
        run_ms = min(MAX_PLAN_RUN_MS, SPIN_UP_MS + cards * self.ms_per_card)
        return FirePlan(fire=True, cards=cards, run_ms=run_ms, power=1.0, suspense_ms=suspense), new_state, draw

    def _draw_cards(self, u: float) -> int:
        target = u * self._cumulative[-1]
        for count, cumulative in zip(self._counts, self._cumulative):
            if target < cumulative:
                return count
        return self._counts[-1]

    def lid_opened(self, state: dict[str, Any]) -> dict[str, Any]:
        """The lid was opened (refill): the sequence count restarts; random presets keep their streaks."""
        return {**state, "since_lid": 0}

    def with_entropy(self, state: dict[str, Any], entropy: str) -> dict[str, Any]:
        """A player's entropy arrived: every later press is keyed by ``mix_entropy(key, entropy)``."""
        return {**state, "key": mix_entropy(state["key"], entropy)}

    def expected(self) -> dict[str, float]:
        """Long-run statistics of this preset, computed exactly (no sampling).

        Keys: ``fire_rate`` (fraction of presses that fire), ``mean_cards`` (per firing press),
        ``cards_per_press``, ``p_cards_3_8``, ``max_cards``, ``max_dry_run`` (longest run of presses without a
        fire that can happen), ``p_three_fires`` (probability that a fire streak reaches 3, random presets).
        """
        params = self.params
        total = float(sum(params.card_weights.values()))
        mean_cards = sum(n * w for n, w in params.card_weights.items()) / total
        p_3_8 = sum(w for n, w in params.card_weights.items() if 3 <= n <= 8) / total
        max_cards = float(max(n for n, w in params.card_weights.items() if w > 0))
        if self._sequence:
            fire_rate = len(self._sequence) / params.period
            marks = sorted(self._sequence)
            gaps = [b - a - 1 for a, b in itertools.pairwise(marks)]
            gaps.append(marks[0] - 1 + params.period - marks[-1])
            gaps.append(marks[0] - 1)
            max_dry = float(max(gaps))
            p_three = 0.0
        else:
            fire_rate = _stationary_fire_rate(params)
            max_dry = _max_dry_run(params)
            p_three = params.hit_repeat[0] * params.hit_repeat[min(2, len(params.hit_repeat)) - 1]
        return {
            "fire_rate": fire_rate,
            "mean_cards": mean_cards,
            "cards_per_press": fire_rate * mean_cards,
            "p_cards_3_8": p_3_8,
            "max_cards": max_cards,
            "max_dry_run": max_dry,
            "p_three_fires": p_three,
        }


def _max_dry_run(params: PresetParams) -> float:
    for k, p in enumerate(params.miss_hazard):
        if p >= 1.0:
            return float(k)
    return math.inf


def _stationary_fire_rate(params: PresetParams, iterations: int = 2000) -> float:
    """Long-run fire fraction of the streak Markov chain (power iteration over capped streak states)."""
    misses = len(params.miss_hazard)  # states -0 .. -(misses-1) (capped)
    hits = len(params.hit_repeat)  # states +1 .. +hits (capped)
    size = misses + hits

    def fire_p(i: int) -> float:
        return params.miss_hazard[i] if i < misses else params.hit_repeat[i - misses]

    def after_fire(i: int) -> int:
        return misses + (0 if i < misses else min(i - misses + 1, hits - 1))

    def after_miss(i: int) -> int:
        return min(i + 1, misses - 1) if i < misses else min(1, misses - 1)

    dist = [0.0] * size
    dist[0] = 1.0
    for _ in range(iterations):
        nxt = [0.0] * size
        for i, mass in enumerate(dist):
            if mass:
                p = fire_p(i)
                nxt[after_fire(i)] += mass * p
                nxt[after_miss(i)] += mass * (1 - p)
        dist = nxt
    return sum(mass * fire_p(i) for i, mass in enumerate(dist))
