"""The pure core: cards, decks and rule sets, the referee (``referee.py`` and one mixin per concern), its registries
(``options.py``: game options; ``actions.py``: what each card action asks of a play; ``checks.py``/``schema.py``:
command shapes), the house rules (``house.py``), ``legal_moves``, the bots, scoring and the seeded ejection model
(``ejection*.py``). No I/O, no clock, no global randomness (an import-linter contract keeps the shell out).

Two command-line front ends still live here, ``replay_cli.py`` and ``simulate_cli.py``: they read files and print,
and are the exception to the rule above until they move to a ``cli`` package.
"""
