"""`unolauncher selftest --calibrate` and the measured ms_per_card on its way to the ejection model: fitted from
real runs through the beam (virtual launcher), written into the configuration without disturbing the rest of it,
recorded with each game and used again by `verify`."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from rules.rigs import of, ok, refused

from unolauncher.cli import main
from unolauncher.daemon.app import Daemon
from unolauncher.daemon.config import load_config
from unolauncher.launcher.calibrate import CalibrationError, fit, with_ms_per_card
from unolauncher.rules.ejection import MS_PER_CARD, SPIN_UP_MS, EjectionConfigError, EjectionModel
from unolauncher.rules.ejection_audit import audit
from unolauncher.rules.ejection_models import model_for
from unolauncher.rules.referee import Referee

NEW_GAME = {"type": "new_game", "ruleset": "attack", "players": ["a", "b"]}

CONFIG = """# kitchen table
[table]
id = "kitchen"

[launcher]
backend = "virtual"   # no hardware here
magazine = 40

[dashboard]
port = 8080
"""


# ---- the fit and the file --------------------------------------------------------------------------------------------


def test_fit_is_the_least_squares_line() -> None:
    result = fit([(2, 372), (4, 596), (6, 820), (2, 370), (4, 598), (6, 822)])
    assert (result.ms_per_card, result.offset_ms) == (112, 146)
    assert result.cards_per_s == pytest.approx(8.93, abs=0.01)


def test_fit_refuses_what_cannot_be_a_launcher() -> None:
    with pytest.raises(CalibrationError, match="two different card counts"):
        fit([(3, 400), (3, 410)])
    with pytest.raises(CalibrationError, match="outside 20-1000"):
        fit([(2, 100), (4, 102)])  # 1 ms per card: the beam counts something else


def test_the_value_goes_into_the_launcher_table_and_nothing_else_changes() -> None:
    updated = with_ms_per_card(CONFIG, 118)
    assert tomllib.loads(updated) == {
        **tomllib.loads(CONFIG),
        "launcher": {**tomllib.loads(CONFIG)["launcher"], "ms_per_card": 118},
    }
    assert "# kitchen table" in updated and 'backend = "virtual"   # no hardware here' in updated
    again = with_ms_per_card(updated, 120)  # a second calibration replaces the line
    assert again.count("ms_per_card") == 1 and tomllib.loads(again)["launcher"]["ms_per_card"] == 120
    fresh = with_ms_per_card('[table]\nid = "t"', 99)  # no [launcher] table yet, no final newline
    assert tomllib.loads(fresh) == {"table": {"id": "t"}, "launcher": {"ms_per_card": 99}}


def test_a_layout_it_cannot_edit_safely_is_refused() -> None:
    with pytest.raises(CalibrationError, match="by hand"):
        with_ms_per_card("launcher.magazine = 40\n", 110)  # a dotted key: appending [launcher] would break it


# ---- the command on the virtual launcher -----------------------------------------------------------------------------


def test_calibrate_measures_the_virtual_toy_and_writes_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    assert main(["selftest", "--calibrate", "--virtual", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out.count("run of ") == 6
    measured = load_config(config).launcher.ms_per_card
    assert measured is not None and abs(measured - 1000 / 9.0) <= 3  # VirtualParams: 9 cards/s at full power
    assert f"ms_per_card = {measured}" in out
    assert (tmp_path / "config.toml.bak").read_text() == CONFIG
    # What the daemon does with that file: every new game records the value, and its model plans with it.
    options = Daemon(load_config(config), say=lambda text: None).prepare_command(dict(NEW_GAME))["options"]
    assert options == {"ejection_ms_per_card": measured} and model_for(options).ms_per_card == measured


def test_calibrate_without_a_beam_or_with_too_few_cards_fails_and_leaves_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.replace("magazine = 40", "magazine = 40\npins = { sensor = -1 }"))
    before = config.read_text()
    assert main(["selftest", "--calibrate", "--virtual", "--config", str(config)]) == 1
    assert "has none" in capsys.readouterr().err
    config.write_text(CONFIG.replace("magazine = 40", "magazine = 5"))
    before = config.read_text()
    assert main(["selftest", "--calibrate", "--virtual", "--config", str(config)]) == 1
    assert "load at least 24 cards" in capsys.readouterr().err
    assert config.read_text() == before and not (tmp_path / "config.toml.bak").exists()
    assert main(["selftest", "--calibrate", "--virtual", "--config", str(tmp_path / "missing.toml")]) == 2


# ---- from the configuration to the plans, the journal and verify -----------------------------------------------------


def test_the_model_uses_the_measured_value_and_refuses_nonsense() -> None:
    model = EjectionModel("custom", {"miss_hazard": [1.0], "cards": {"3": 1}}, ms_per_card=150)
    plan, _ = model.plan(model.start("4" * 64))
    assert plan.run_ms == SPIN_UP_MS + 3 * 150
    for bad in (0, 5000, True, 110.5, "110"):
        with pytest.raises(EjectionConfigError, match="ms_per_card"):
            EjectionModel(ms_per_card=bad)  # type: ignore[arg-type]


def test_the_daemon_records_the_configured_value_with_each_new_game(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(with_ms_per_card(CONFIG, 130))
    daemon = Daemon(load_config(config), say=lambda text: None)
    command = daemon.prepare_command(dict(NEW_GAME))
    assert command["options"] == {"ejection_ms_per_card": 130}
    plain = Daemon(load_config(None), say=lambda text: None)
    assert "options" not in plain.prepare_command(dict(NEW_GAME))


def test_a_game_started_with_it_plans_and_verifies_with_it() -> None:
    ref = Referee()
    game = {
        "type": "new_game",
        "ruleset": "attack",
        "players": ["a", "b", "c"],
        "seed": 77,
        "secret": "7" * 64,
        "options": {"ejection_ms_per_card": 140},
    }
    events = ok(ref, game)
    assert of(events, "game_started")[0]["options"]["ejection_ms_per_card"] == 140
    assert of(events, "round_started")[0]["ms_per_card"] == 140  # each commitment says how its plans were made
    for _ in range(40):  # the referee's own plans, press after press
        events += ok(ref, {"type": "hit"})
    events += ok(ref, {**game, "options": {}, "secret": "8" * 64})  # a new game reveals the first one's round
    fired = [e["plan"] for e in of(events, "press") if e["plan"]["fire"]]
    assert fired and all(plan["run_ms"] == SPIN_UP_MS + plan["cards"] * 140 for plan in fired)
    assert audit((str(i), e) for i, e in enumerate(events)).ok()
    without = [{k: v for k, v in e.items() if k != "ms_per_card"} for e in events]  # a log that lost the value
    report = audit((str(i), e) for i, e in enumerate(without))
    assert len(report.mismatches) == len(fired) and all("run_ms" in m for m in report.mismatches)
    assert MS_PER_CARD != 140
    refused(Referee(), {**game, "options": {"ejection_ms_per_card": 5}}, "bad_option")
