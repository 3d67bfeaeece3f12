"""Every event type the daemon can publish on ``unolauncher/<table>/events``, in one place.

Home Assistant's event entity declares :data:`EVENT_TYPES` as its ``event_types`` (HA drops, with a warning, an
event whose type is not declared) and passes each event's :attr:`EventType.attributes` on to automations. A test
(``tests/bus/test_event_types.py``) fails when the package can emit a type missing here: it scans the source for
event literals and plays real games through a daemon. Add a new event here, with its fields, when you add it.

Example::

    EVENTS["hit"].attributes  # ("player", "cards", "owed_left")
    "round_ended" in EVENT_TYPES  # True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EventType:
    """One event type: who emits it, what it means, the fields an automation may use."""

    source: str  # "referee" (rules), "launcher" (press handler or a launcher backend) or "daemon" (the table)
    meaning: str
    attributes: tuple[str, ...] = ()


def _e(source: str, meaning: str, *attributes: str) -> EventType:
    return EventType(source, meaning, attributes)


EVENTS: dict[str, EventType] = {
    # -- referee (docs/protocol.md "Events") ------------------------------------------------------------------------
    "game_started": _e("referee", "a new game", "ruleset", "mode", "players", "ejection_commitment"),
    "dealer_chosen": _e("referee", "the first dealer was drawn (MK-02)", "dealer"),
    "round_started": _e("referee", "a round was dealt", "round", "dealer", "starter", "hands"),
    "turn": _e("referee", "a player's turn starts", "player", "again"),
    "played": _e("referee", "a card was played", "player", "card", "color", "target"),
    "went_out": _e("referee", "a player's hand is empty", "player"),
    "chain": _e("referee", "the player may keep playing after a Skip/Reverse (ATK-08)", "player"),
    "direction": _e("referee", "the direction of play changed", "direction"),
    "skipped": _e("referee", "a player loses their turn", "player"),
    "owed": _e("referee", "hits were queued for a player", "player", "hits", "until_card"),
    "hit": _e("referee", "a launcher press was applied", "player", "cards", "owed_left"),
    "traded": _e("referee", "Trade Hands, or a 7 under the seven_zero house rule", "player", "target"),
    "rotated": _e("referee", "a 0 under the seven_zero house rule: every hand moved along the direction", "direction"),
    "item": _e("referee", "a Wild Item Box turned an item (MK-07)", "player", "card", "item", "color"),
    "pending": _e("referee", "the referee waits for an answer", "player", "kind", "reason"),
    "color_chosen": _e("referee", "a pending colour was chosen", "player", "color"),
    "target_chosen": _e("referee", "a Green Shell target was chosen", "player", "target"),
    "dispense": _e("referee", "a stock draw the launcher may serve", "player", "count"),
    "drew": _e("referee", "cards drawn from the stock", "player", "count"),
    "reshuffled": _e("referee", "the discard pile became the stock (MK-18)", "cards"),
    "reload_request": _e("referee", "the launcher is empty (ATK-21)", "discard"),
    "reloaded": _e("referee", "the launcher was reloaded (ATK-21)", "cards"),
    "passed": _e("referee", "a player passed", "player"),
    "accepted": _e("referee", "a Wild Draw Four was accepted", "player"),
    "challenged": _e("referee", "a Wild Draw Four was challenged", "player", "target", "guilty"),
    "uno_called": _e("referee", "a player called UNO", "player"),
    "caught": _e("referee", "a player was caught without UNO", "player", "target"),
    "penalty": _e("referee", "a penalty (hits queued or cards drawn)", "player", "reason", "hits", "cards"),
    "round_ended": _e("referee", "a round was scored", "round", "winner", "points", "scores"),
    "game_over": _e("referee", "a player reached the target score", "winner", "scores"),
    "undone": _e("referee", "the last command was taken back"),
    # the launcher's record, kept by the referee (docs/ejection.md "Rounds, commitments and reveals")
    "press": _e("referee", "a press used a plan of the launcher's record", "player", "index", "commitment"),
    "ejection_commit": _e("referee", "the launcher committed to a new secret", "reason", "round", "commitment"),
    "ejection_reveal": _e("referee", "the launcher's secret behind a commitment revealed", "reason", "commitment"),
    "ejection_entropy": _e("referee", "a phone added randomness to the launcher", "commitment"),
    "ejection_entropy_commit": _e("referee", "a phone committed to randomness (its sha256)", "commitment", "client"),
    "ejection_entropy_revealed": _e("referee", "a phone revealed its committed randomness", "commitment", "client"),
    "ejection_entropy_withheld": _e(
        "referee", "a committed randomness was not revealed by the first press", "commitment", "client"
    ),
    "ejection_carry": _e(
        "referee", "an aborted or undone press's plan is owed: the player's next press fires it", "index", "reason"
    ),
    "ejection_lid": _e("referee", "the lid was opened: the launcher's press count restarts", "commitment"),
    # -- launcher (docs/protocol-mqtt.md "events") ------------------------------------------------------------------
    "fired": _e("launcher", "a launcher run ended", "player", "cards", "outcome"),
    "ignored_press": _e(
        "launcher",
        "a press while the motor runs, before the previous press's hit was counted, or at the instant the "
        "table replaced its next plan",
    ),
    "lockout": _e("launcher", "a press while nobody may hit", "message"),
    "press_refused": _e("launcher", "a press refused: lid open, launcher disabled", "reason", "message"),
    "lid_open": _e("launcher", "the lid was opened"),
    "lid_closed": _e("launcher", "the lid was closed"),
    "jam": _e("launcher", "cards jammed in the launcher", "cards_out", "expected", "message"),
    "magazine_empty": _e("launcher", "no card came out: the launcher is empty", "cards_out", "message"),
    "max_run": _e("launcher", "the motor reached its maximum run time", "limit_s", "cards_out"),
    "fault": _e("launcher", "a launcher fault", "reason", "message"),
    "launcher_connected": _e("launcher", "the launcher's co-processor answered", "port", "firmware"),
    "uno_button": _e("launcher", "the UNO button while nobody is exposed"),
    # -- daemon (daemon/table.py) -----------------------------------------------------------------------------------
    "unattributed_hit": _e("daemon", "the launcher fired with nobody to hit (lockout off)", "cards"),
    "hit_refused": _e("daemon", "cards came out but the referee refused the hit", "player", "cards", "code", "message"),
    "hit_failed": _e("daemon", "a planned fire brought no card out: the hit stays owed", "player", "reason", "message"),
    "dispensed": _e("daemon", "the launcher dealt a stock draw", "player", "cards", "wanted", "outcome"),
    "dispense_skipped": _e("daemon", "the launcher was busy or disabled: draw by hand", "player", "wanted", "message"),
    "launcher_disabled": _e("daemon", "the emergency stop: the motor is off and every press refused", "by"),
    "launcher_enabled": _e("daemon", "the emergency stop was lifted", "by"),
    "event_too_large": _e(
        "daemon",
        "published in place of a journalled event too large for the brokers (store/limits.py)",
        "original_type",
        "bytes",
        "message",
    ),
}

EVENT_TYPES: tuple[str, ...] = tuple(EVENTS)

# Every attribute any event carries, in a stable order: what Home Assistant's event entity passes on.
ATTRIBUTES: tuple[str, ...] = tuple(dict.fromkeys(name for event in EVENTS.values() for name in event.attributes))
