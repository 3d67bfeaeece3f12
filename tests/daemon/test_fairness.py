"""Issue 11's findings, each replayed against a real daemon: the audit must pass on honest tables, nobody may choose
the launcher's outcomes over MQTT, every round's secret comes out, and a run that failed is not a hit.

Each test plays honest sessions (``allow_rigged = false``: the daemon draws every secret) on the virtual launcher,
or the serial backend on the firmware simulator, and checks the journal with ``unolauncher verify --state-dir``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from firmware.fwsim import SimDevice

from support.daemon import DaemonProcess, TableClient, running_daemon
from support.net import wait_until

from .honest import HONEST, cli, command, events, press, public, refill, settle

PLAYERS = ["ann", "bob", "cy"]
TABLE_GAME: dict[str, Any] = {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table",
                              "deal": {"dealer": "cy", "starter": "red 5"}}  # fmt: skip
ALWAYS_FIVE = {"miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"5": 1}}
CLICK_FIRST = {"miss_hazard": [0.0, 1.0], "hit_repeat": [1.0], "cards": {"2": 1}}  # no fire, then always fire


def honest(launcher: dict[str, Any] | None = None, table: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    return {**HONEST, "launcher": {**HONEST["launcher"], **(launcher or {})}, "table": table or {}}


def custom_game(table: dict[str, Any]) -> dict[str, Any]:
    return {**TABLE_GAME, "options": {"ejection_preset": "custom", "ejection_custom": table}}


def verify(tmp_path: Path) -> tuple[int, str]:
    return cli("verify", "--state-dir", str(tmp_path / "state"))


def test_the_sequence_preset_with_a_lid_refill_verifies(tmp_path: Path) -> None:
    """It failed ("press 8: fire True (expected False)"): the press handler restarted the count on the lid, the
    referee never saw the lid, and the daemon copied the referee's state over the press handler's."""
    with running_daemon(tmp_path, "seq", overrides=honest({"preset": "sequence"})) as daemon:
        assert command(daemon, TABLE_GAME)
        for i in range(12):
            if i == 5:
                refill(daemon)  # the sequence count restarts
            press(daemon)
        presses = [e for e in events(daemon) if e["type"] == "press"]
        assert [e["plan"]["fire"] for e in presses[5:7]] == [False, True]  # presses 1 and 2 of the sequence again
        assert [e["type"] for e in events(daemon)].count("ejection_lid") == 1
        assert command(daemon, TABLE_GAME)  # a new game reveals the round's secret
    code, out = verify(tmp_path)
    assert code == 0, out
    assert "verified 1 commitment(s), 12 press(es)" in out


def test_without_lockout_unattributed_presses_use_up_the_same_plans(tmp_path: Path) -> None:
    """With lockout off an unattributed press advanced the press handler's model but not the referee's; the next
    command rewound it (indices 0,1,2,0,1: outcomes repeated, and watchers could predict them)."""
    with running_daemon(tmp_path, "free", overrides=honest(table={"lockout": False})) as daemon:
        press(daemon)  # no game yet: free play, committed like a round
        assert command(daemon, TABLE_GAME)
        assert command(daemon, {"type": "play", "player": "ann", "card": "red skip"})  # ATK-08: nobody may hit
        assert public(daemon)["chain"] is True
        for _ in range(3):
            press(daemon)
        assert command(daemon, {"type": "pass", "player": "ann"})
        press(daemon)  # cy's hit
        assert command(daemon, TABLE_GAME)
        kinds = [e["type"] for e in events(daemon)]
        assert kinds.count("unattributed_hit") == 4
        round_presses = [e for e in events(daemon) if e["type"] == "press" and e["commitment"] != events(daemon)[0]
                         ["commitment"]]  # fmt: skip
        assert [e["index"] for e in round_presses] == [0, 1, 2, 3]
        assert [e["player"] for e in round_presses] == [None, None, None, "cy"]
    code, out = verify(tmp_path)
    assert code == 0, out
    assert "verified 2 commitment(s), 5 press(es)" in out  # the free play and the round


RIGS: list[tuple[dict[str, Any], str]] = [
    ({"seed": 7}, "seed"),
    ({"launcher": {"seed": 7}}, "launcher.seed"),
    ({"launcher": {"script": [5, 5, 5]}}, "launcher.script"),
    ({"mode": "full", "deal": {"dealer": "cy"}}, "deal"),
]


def test_a_rigged_new_game_over_mqtt_is_refused_unless_the_table_allows_rigs(tmp_path: Path) -> None:
    """Any new_game over MQTT could carry a seed or a script; the daemon only filled in a seed when none was
    given, and verify claimed the table could not have chosen the outcomes."""
    start = {"type": "new_game", "ruleset": "attack", "players": PLAYERS}
    with DaemonProcess(tmp_path / "honest", overrides=honest()) as daemon, TableClient(
        daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="phone"
    ) as phone:  # fmt: skip
        for rig, field in RIGS:
            reply = phone.command({**start, **rig})
            assert reply["code"] == "rigged_not_allowed" and field in reply["message"], reply
        reply = phone.command({**start, "secret": "ab" * 32})
        assert reply["code"] == "rigged_not_allowed", reply
        assert phone.command({"type": "pressed", "player": "ann"})["code"] == "not_allowed"
        assert phone.command({**start, "mode": "table", "deal": {"dealer": "cy", "starter": "red 5"}})["ok"]
        reply = phone.command({"type": "next_round", "deal": {"starter": "blue 2"}})
        assert reply["code"] == "round_in_progress", reply  # a table-mode deal reports the real table: no rig
        assert phone.command(start)["ok"]
        started = [e for e in phone.ordered_events() if e["type"] == "round_started"]
        assert len(started) == 2 and not any(e.get("rigged") for e in started)
    with DaemonProcess(tmp_path / "demo", overrides=honest({"allow_rigged": True})) as daemon, TableClient(
        daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="demo"
    ) as phone:  # fmt: skip
        for rig, _ in RIGS:
            assert phone.command({**start, **rig})["ok"]
        started = [e for e in phone.ordered_events() if e["type"] == "round_started"]
        assert [e.get("rigged") for e in started] == [True, True, True, None]  # a deal rigs cards, not the launcher
    code, out = cli("verify", "--state-dir", str(tmp_path / "demo" / "state"))
    assert code == 1 and "is rigged" in out, out
    assert cli("verify", "--state-dir", str(tmp_path / "demo" / "state"), "--allow-rigged")[0] == 0


def test_every_round_is_revealed_when_it_ends_is_replaced_or_is_undone(tmp_path: Path) -> None:
    """The seed used to come out only at game_over: an abandoned or replaced game could never be audited."""
    one_card = {**TABLE_GAME, "deal": {"dealer": "cy", "starter": "red 5", "hands": {"ann": 1, "bob": 7, "cy": 7}}}
    with running_daemon(tmp_path, "reveal", overrides=honest()) as daemon:
        assert command(daemon, one_card)
        assert command(daemon, {"type": "play", "player": "ann", "card": "red 7"})  # ann goes out
        assert command(daemon, {"type": "score", "hands": {"bob": 30, "cy": 40}})  # round_ended: the secret
        assert command(daemon, {"type": "next_round", "deal": {"starter": "blue 2"}})
        press(daemon)
        assert command(daemon, TABLE_GAME)  # replaces the game mid-round: round 2's secret comes out
        assert command(daemon, {"type": "undo"})  # the new game's round is undone; round 2 reopens, committed anew
        press(daemon)
        assert command(daemon, TABLE_GAME)
        reveals = [e for e in events(daemon) if e["type"] in ("round_ended", "ejection_reveal")]
        assert [e.get("reason") for e in reveals] == [None, "replaced", "undone", "replaced"]
        assert [e["type"] for e in events(daemon)].count("ejection_commit") == 1  # the undo's fresh commitment
        assert all(len(e["secret"]) == 64 for e in reveals)
    code, out = verify(tmp_path)
    assert code == 0, out
    assert "verified 4 commitment(s), 2 press(es)" in out and "1 commitment(s) still open" in out


def test_a_planned_click_is_a_hit_and_a_failed_run_is_not(tmp_path: Path) -> None:
    """With the co-processor unplugged a planned 5-card fire became a 0-card hit and the turn passed."""
    with running_daemon(tmp_path, "faults", overrides=honest()) as daemon:
        virtual = daemon.virtual
        assert virtual is not None
        assert command(daemon, custom_game(CLICK_FIRST))
        press(daemon)  # a planned click: a legal 0-card hit, the turn passes
        assert [e["type"] for e in events(daemon)][-2:] == ["hit", "turn"]
        assert public(daemon)["current"] == "bob"
        virtual.empty()
        press(daemon)  # planned to fire, but nothing came out: the hit stays owed
        failed = [e for e in events(daemon) if e["type"] == "hit_failed"]
        assert len(failed) == 1 and failed[0]["player"] == "bob" and failed[0]["reason"] in ("jam", "empty")
        assert public(daemon)["current"] == "bob" and public(daemon)["hands"]["bob"] == 7
        refill(daemon, 40)
        press(daemon)  # the next plan fires too: bob takes his cards now
        assert public(daemon)["current"] == "cy" and public(daemon)["hands"]["bob"] == 9
        assert command(daemon, TABLE_GAME)
    code, out = verify(tmp_path)
    assert code == 0, out


def test_a_lid_opened_during_the_suspense_aborts_the_run_and_the_hit_stays_owed(tmp_path: Path) -> None:
    suspense = {**ALWAYS_FIVE, "suspense_chance": 1.0, "suspense_ms": [300, 300]}
    with running_daemon(tmp_path, "abort", overrides=honest()) as daemon:
        virtual, launcher = daemon.virtual, daemon.launcher
        assert virtual is not None and launcher is not None
        assert command(daemon, custom_game(suspense))
        time.sleep(0.04)  # pacing: past the button's 30 ms debounce
        virtual.press_button()
        assert wait_until(lambda: launcher.status().running, 2)
        virtual.open_lid()
        assert wait_until(lambda: launcher.status().lid_open, 5)  # the lid line is debounced
        settle(daemon)
        failed = [e for e in events(daemon) if e["type"] == "hit_failed"]
        assert len(failed) == 1 and failed[0]["player"] == "ann", [e["type"] for e in events(daemon)]
        assert public(daemon)["current"] == "ann" and virtual.cards_out == 0
        assert [e["type"] for e in events(daemon)].count("ejection_lid") == 1
        virtual.close_lid()
        assert wait_until(lambda: not launcher.status().lid_open, 5)
        press(daemon)
        assert public(daemon)["hands"]["ann"] == 12 and public(daemon)["current"] == "bob"


def test_cards_the_sensor_counted_still_count_when_the_run_jams(tmp_path: Path) -> None:
    slow = {"virtual": {"cards_per_s": 10.0, "spin_up_ms": 5, "press_ms": 5, "pulse_ms": 2.0}}
    with running_daemon(tmp_path, "jam", overrides=honest(slow)) as daemon:
        virtual = daemon.virtual
        assert virtual is not None
        assert command(daemon, custom_game(ALWAYS_FIVE))
        time.sleep(0.04)  # pacing: past the button's 30 ms debounce
        virtual.press_button()
        assert wait_until(lambda: virtual.cards_out >= 2, 3)
        virtual.jam()
        settle(daemon)
        fired = [e for e in events(daemon) if e["type"] == "fired"][-1]
        hit = [e for e in events(daemon) if e["type"] == "hit"][-1]
        assert fired["outcome"] == "jam" and 2 <= hit["cards"] < 5 and hit["cards"] == fired["cards"]
        assert "hit_failed" not in [e["type"] for e in events(daemon)]


@pytest.mark.timeout(120)
def test_unplugging_the_co_processor_mid_run_is_a_failed_hit(tmp_path: Path) -> None:
    device = SimDevice(tmp_path / "ttyPico", magazine=500, cards_per_s=3.0, spinup_ms=5)
    serial = {"backend": "serial", "serial_port": str(device.link), "jam_timeout_s": 5.0, "max_run_s": 6.0}
    try:
        with running_daemon(tmp_path, "serial", overrides=honest(serial)) as daemon:
            launcher = daemon.launcher
            assert launcher is not None
            assert wait_until(lambda: launcher.status().extra.get("connected"), 10)
            assert command(daemon, custom_game({**ALWAYS_FIVE, "cards": {"20": 1}}))
            device.press(hold_ms=30)
            assert wait_until(device.motor_on, 5)
            device.unplug()
            settle(daemon)
            failed = [e for e in events(daemon) if e["type"] == "hit_failed"]
            assert len(failed) == 1 and failed[0]["reason"] == "fault" and failed[0]["player"] == "ann"
            assert public(daemon)["current"] == "ann"  # the hit is still owed
            device.plug(cards_per_s=150.0)
            assert wait_until(lambda: launcher.status().extra.get("connected"), 10)
            press(daemon, lambda: device.press(hold_ms=30))
            assert public(daemon)["current"] == "bob"
            assert public(daemon)["hands"]["ann"] == 27
            assert command(daemon, TABLE_GAME)
        code, out = verify(tmp_path)
        assert code == 0, out
        assert "verified 1 commitment(s), 2 press(es)" in out
    finally:
        device.close()
