"""#33 item 9: names that look the same are one player, and a name must show something — on a real daemon."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.daemon import DaemonProcess, TableClient

pytestmark = pytest.mark.timeout(120)

LOOK_THE_SAME = [
    ("Jos\u00e9", "Jose\u0301"),  # composed, decomposed
    ("\ufb01ona", "fiona"),  # ligature
    ("\uff21nn", "Ann"),  # full-width
    ("ann", "a\u034fnn"),  # combining grapheme joiner
    ("ann", "ann\ufe0f"),  # variation selector 16
    ("ann", "ann\U000e0100"),  # variation selector 17
]
SHOW_NOTHING = ["\u3164", "\u2800", "\u115f", "\u0301"]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableClient]:
    with (
        DaemonProcess(tmp_path_factory.mktemp("names")) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port) as client,
    ):
        yield client


def new_game(table: TableClient, players: list[str]) -> dict[str, object]:
    return table.command({"type": "new_game", "ruleset": "classic", "players": players, "seed": 1})


@pytest.mark.parametrize(("first", "second"), LOOK_THE_SAME)
def test_names_that_look_the_same_are_refused(table: TableClient, first: str, second: str) -> None:
    seq = table.command({"type": "status"})["data"]["seq"]
    answer = new_game(table, [first, second, "bob"])
    assert (answer["ok"], answer["code"]) == (False, "bad_players"), answer
    assert "look the same" in str(answer["message"])
    assert table.command({"type": "status"})["data"]["seq"] == seq  # nothing changed


@pytest.mark.parametrize("invisible", SHOW_NOTHING)
def test_a_name_that_shows_nothing_is_refused(table: TableClient, invisible: str) -> None:
    answer = new_game(table, ["ann", invisible])
    assert (answer["ok"], answer["code"]) == (False, "bad_players"), answer
    assert "visible" in str(answer["message"])


def test_distinct_names_in_any_script_still_play(table: TableClient) -> None:
    assert new_game(table, ["Jos\u00e9", "\u00c5sa", "\u674e\u96f7", "Zo\u00eb \U0001f600"])["ok"]
