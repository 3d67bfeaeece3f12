"""The pure core: cards, decks and rule sets, the referee (``referee.py`` and one mixin per concern), its registries
(``options.py``: game options; ``actions.py``: what each card action asks of a play; ``checks.py``/``schema.py``:
command shapes), the house rules (``house_rules/``), ``legal_moves``, the bots, scoring and the seeded ejection model
(``ejection*.py``). No I/O, no clock, no global randomness (an import-linter contract keeps the shell out).

Its command-line front ends (``replay``, ``simulate``) are in ``unolauncher/cli/``.
"""
