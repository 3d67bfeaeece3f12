"""Which events make which announcement, with the event's own fields as its parameters; and the agenda's rules."""

from __future__ import annotations

from typing import Any

from unolauncher.bus.event_types import EVENTS
from unolauncher.voice.agenda import Agenda
from unolauncher.voice.announce import EVENT_CODES, Announcement, announcements
from unolauncher.voice.catalogue import EN


def test_the_events_of_a_turn_are_announced_in_order_with_their_fields() -> None:
    events: list[dict[str, Any]] = [
        {"type": "played", "player": "ann", "card": "red hit-2"},
        {"type": "owed", "player": "bob", "hits": 2},
        {"type": "turn", "player": "bob"},
        {"type": "uno_called", "player": "ann"},
        {"type": "caught", "player": "cy", "target": "ann"},
        {"type": "round_ended", "round": 1, "winner": "ann", "points": 57, "scores": {}},
        {"type": "game_over", "winner": "ann", "scores": {}},
        {"type": "owed", "player": "cy", "hits": 1, "until_card": True},
        {"type": "turn", "player": "ann", "again": True},
        {"type": "reload_request", "discard": 40},
        {"type": "magazine_empty", "cards_out": 0},
        {"type": "jam", "cards_out": 1, "expected": 3},
    ]
    said = [(a.code, a.params) for a in announcements(events)]
    assert said == [
        ("must_hit", {"player": "bob", "hits": 2}),
        ("turn", {"player": "bob"}),
        ("uno_called", {"player": "ann"}),
        ("caught", {"player": "cy", "target": "ann"}),
        ("round_won", {"winner": "ann", "points": 57}),
        ("game_won", {"winner": "ann"}),
        ("must_hit_until_card", {"player": "cy"}),
        ("turn_again", {"player": "ann"}),
        ("launcher_empty", {}),
        ("launcher_empty", {}),
        ("jammed", {}),
    ]


def test_every_announcement_comes_from_a_known_event_and_its_parameters_are_the_events_attributes() -> None:
    assert {code for codes in EVENT_CODES.values() for code in codes} == set(EN)
    for event_type in EVENT_CODES:
        assert event_type in EVENTS, event_type
    # Home Assistant's event entity passes the declared attributes on: every field an announcement is made from
    # (its parameters, and the flags that choose its code) is among them, so an automation can say the same.
    reads = {
        "turn": {"player", "again"},
        "owed": {"player", "hits", "until_card"},
        "uno_called": {"player"},
        "caught": {"player", "target"},
        "round_ended": {"winner", "points"},
        "game_over": {"winner"},
    }
    for event_type, fields in reads.items():
        assert fields <= set(EVENTS[event_type].attributes), (event_type, EVENTS[event_type].attributes)


def test_an_event_with_unusable_fields_is_not_announced() -> None:
    bad: list[dict[str, Any]] = [
        {"type": "turn", "player": None},
        {"type": "owed", "player": "bob", "hits": -1},
        {"type": "owed", "player": "bob", "hits": True},
        {"type": "round_ended", "winner": "ann", "points": "57"},
    ]
    assert announcements(bad) == []


def a(code: str, at: float, **params: object) -> Announcement:
    return Announcement(code, dict(params), at)


def test_a_newer_turn_supersedes_a_waiting_one_and_interrupts_a_spoken_one() -> None:
    agenda = Agenda()
    assert not agenda.add(a("turn", 0.0, player="ann"), None)
    assert not agenda.add(a("turn_again", 0.1, player="bob"), None)
    assert [x.params["player"] for x in agenda.waiting()] == ["bob"]
    speaking = agenda.next(0.2)
    assert speaking is not None and speaking.code == "turn_again"
    assert agenda.add(a("turn", 0.3, player="cy"), speaking), "a newer turn makes the spoken one wrong"
    assert agenda.dropped == 1


def test_higher_priority_interrupts_and_is_said_first_equal_priority_waits_its_turn() -> None:
    agenda = Agenda()
    agenda.add(a("turn", 0.0, player="bob"), None)
    agenda.add(a("must_hit", 0.0, player="bob", hits=2), None)
    agenda.add(a("uno_called", 0.0, player="ann"), None)
    speaking = agenda.next(0.1)
    assert speaking is not None and speaking.code == "must_hit"
    assert not agenda.add(a("must_hit", 0.2, player="cy", hits=1), speaking), "equal priority does not interrupt"
    assert agenda.add(a("jammed", 0.3), speaking)
    order = []
    while (nxt := agenda.next(0.4)) is not None:
        order.append(nxt.code)
    assert order == ["jammed", "uno_called", "must_hit", "turn"]


def test_stale_news_is_dropped_and_the_agenda_is_bounded() -> None:
    agenda = Agenda(limit=3, stale_s=5.0)
    agenda.add(a("uno_called", 0.0, player="ann"), None)
    assert agenda.next(5.1) is None and agenda.dropped == 1
    for i in range(3):
        agenda.add(a("must_hit", 10.0 + i, player=f"p{i}", hits=1), None)
    agenda.add(a("game_won", 14.0, winner="ann"), None)
    assert len(agenda) == 3
    assert [x.params.get("player") for x in agenda.waiting()] == ["p1", "p2", None], "the oldest lowest went"
