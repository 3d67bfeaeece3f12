"""What the phone's banner says while a house rule keeps something open (its entry in the state's ``house`` dict):
each rule declares it with :meth:`~unolauncher.rules.house_rules.HouseRule.banner`, as message templates, and the
daemon's retained rule catalogue carries them (``banners``: house entry name -> templates, ``daemon/catalogue.py``).
The page renders any rule's banner the same way (``views.js``), so a new rule adds its words to the language
catalogues (``js/lang/*.js``) and changes no page code. Templates, not a rendered sentence in the state: the public
state, the journal's snapshots and the golden replays keep their bytes.

A template names a message key, which field of the entry fills each of the message's placeholders, which of them
hold a card face (the phone shows the face's name in its language), the field an entry must have for the template to
apply (the first that applies wins) and the banner's tone (``turn``: someone answers; ``hit``: someone owes hits).

Example::

    >>> draw = Banner("banner.stack_draw", {"player": "player", "card": "kind", "count": "cards"}, faces=("card",))
    >>> draw.fill({"kind": "draw-2", "player": "cy", "cards": 4})
    {'player': 'cy', 'card': 'draw-2', 'count': 4}
    >>> Banner("banner.stack_hits", {"player": "player"}, when="hits").fill({"player": "cy", "cards": 4}) is None
    True
    >>> Banner("banner.x", {"player": "player"}, tone="loud")
    Traceback (most recent call last):
    ValueError: A banner's tone is 'turn' or 'hit', not 'loud'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TONES = ("turn", "hit")  # the banner's classes on the page (app.css): whose turn it is, who owes hits


@dataclass(frozen=True)
class Banner:
    """One way of wording a house rule's open entry (see the module docstring).

    Example::

        >>> Banner("banner.must_hit", {"player": "who", "count": "left"}, tone="hit").to_json()["params"]
        {'player': 'who', 'count': 'left'}
    """

    key: str
    params: Mapping[str, str] = field(default_factory=dict)  # placeholder -> the entry's field
    faces: tuple[str, ...] = ()  # placeholders whose field is a card face ("draw-2", "wild draw-4")
    when: str = ""  # the entry's field this template needs ("": any entry)
    tone: str = "turn"

    def __post_init__(self) -> None:
        if not self.key.startswith("banner."):
            raise ValueError(f"A banner's message key starts with 'banner.', not {self.key!r}.")
        if self.tone not in TONES:
            raise ValueError(f"A banner's tone is 'turn' or 'hit', not {self.tone!r}.")
        if "player" not in self.params:
            raise ValueError(f"Banner {self.key!r} names nobody: its 'player' placeholder has no field.")
        stray = [name for name in self.faces if name not in self.params]
        if stray:
            raise ValueError(f"Banner {self.key!r} shows a face in {stray[0]!r}, which has no field.")

    def fill(self, entry: Mapping[str, Any]) -> dict[str, Any] | None:
        """The message's parameters from ``entry`` (faces as the entry names them), or ``None`` if it does not
        apply (the ``when`` field or a named field absent)."""
        if self.when and self.when not in entry:
            return None
        if any(name not in entry for name in self.params.values()):
            return None
        return {placeholder: entry[name] for placeholder, name in self.params.items()}

    def to_json(self) -> dict[str, Any]:
        """As the rule catalogue sends it (``views.js``'s ``houseBanner`` reads these keys)."""
        return {"key": self.key, "params": dict(self.params), "faces": list(self.faces), "when": self.when,
                "tone": self.tone}  # fmt: skip


def choose(banners: Sequence[Banner], entry: Mapping[str, Any]) -> tuple[Banner, dict[str, Any]] | None:
    """The first of ``banners`` that applies to ``entry``, with its parameters (what the page shows), or ``None``."""
    for banner in banners:
        params = banner.fill(entry)
        if params is not None:
            return banner, params
    return None
