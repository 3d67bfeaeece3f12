"""The daemon: wires the button, the referee, the launcher, the journal and MQTT into one table
(``app.py`` starts and stops the parts; ``table.py`` is the worker that applies every command in order and journals
it; ``handlers.py``/``commands.py`` answer the daemon's own commands and queries; ``catalogue.py`` publishes the rule
catalogue; ``config.py`` reads the TOML configuration; its commands are in ``cli/``).
"""
