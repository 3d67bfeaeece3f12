"""The pure rules referee: cards, decks, rule sets, engine, scoring, bots. No I/O in here."""
