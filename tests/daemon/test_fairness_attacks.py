"""docs/fairness.md, attacked: each line of the threat model performed against a real daemon (``unolauncher run``
with its embedded broker), by a client with ``cmd`` access and by someone who reads the Pi's files.

Players' entropy is commit-then-reveal (rules/ejection_entropy.py): someone who knows the round's secret (read from
the journal) cannot add a contribution after seeing the others, cannot re-mix an old-style plain one, and can only
withhold a committed one, which the journal, ``verify`` and ``verify --strict`` show. One client cannot use up a
round's room, and the state directory is the daemon's user's alone.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.bus.broker_entropy import PER_CONNECTION
from unolauncher.rules.ejection import EjectionModel
from unolauncher.rules.ejection_entropy import COMMIT_WINDOW_MS, MAX_PER_CLIENT

PLAYERS = ["ann", "bob", "cy"]
DEAL = {"dealer": "cy", "starter": "red 5", "hands": {"ann": 7, "bob": 7, "cy": 7}}
NEW_GAME = {"type": "new_game", "ruleset": "attack", "players": PLAYERS, "mode": "table", "deal": DEAL}
HONEST = {"launcher": {"allow_rigged": False}, "homeassistant": {"enabled": False}}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[DaemonProcess, TableClient]]:
    with (
        DaemonProcess(tmp_path, overrides=HONEST) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="attacker") as client,
    ):
        yield daemon, client


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def events_of(client: TableClient, kind: str, commitment: str) -> list[dict[str, Any]]:
    with client.lock:
        found = [e for _, e in sorted(client.events.items()) if e.get("type") == kind]
    return [e for e in found if e.get("commitment") == commitment]


def start_round(client: TableClient) -> str:
    reply = client.command(NEW_GAME)
    assert reply["ok"], reply
    assert client.wait_for_seq(reply["seq"])
    with client.lock:
        started = [e for s, e in client.events.items() if e.get("type") == "round_started" and s <= reply["seq"]]
    return str(max(started, key=lambda e: e["seq"])["commitment"])


def send_all(client: TableClient, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Publish ``commands`` back to back, then wait for every reply: the table stamps them within milliseconds of
    each other however slow this machine is (one round trip each could outlast the 500 ms commit window)."""
    ids = [f"batch-{secrets.token_hex(4)}-{i}" for i in range(len(commands))]
    for command_id, command in zip(ids, commands, strict=True):
        client.send(json.dumps({**command, "id": command_id}))
    assert wait_until(lambda: all(i in client.replies for i in ids), 30), "the table did not answer every command"
    with client.lock:
        return [client.replies[i] for i in ids]


def reveal(client: TableClient, entropy: str, commitment: str) -> dict[str, Any]:
    """Reveal after the commit window, as the phone does (again when the table says it is too early)."""
    for _ in range(20):
        reply = client.command({"type": "entropy", "entropy": entropy, "commitment": commitment})
        if reply.get("code") != "entropy_too_early":
            return reply
        time.sleep(0.1)  # poll: the table says when its window has closed (the phone retries the same way)
    raise AssertionError("the commit window never closed")


def secret_from_files(daemon: DaemonProcess, commitment: str) -> str:
    """What someone who can read the state directory learns: the open round's secret (the journal's commands)."""
    db = sqlite3.connect(f"file:{daemon.state_dir / 'journal.sqlite3'}?mode=ro", uri=True)
    try:
        bodies = [json.loads(b) for (b,) in db.execute("SELECT body FROM journal WHERE kind = 'command'")]
    finally:
        db.close()
    found = [b["secret"] for b in bodies if isinstance(b, dict) and sha(str(b.get("secret"))) == commitment]
    assert found, "the secret is not in the journal: this test's premise (a file reader knows it) is gone"
    return str(found[0])


def verify(*args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "unolauncher", "verify", *args], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def first_press_cards(secret: str, contributions: list[str], player: str) -> int:
    """The first press's card count for a key mixed from ``contributions`` in this order (docs/ejection.md)."""
    model = EjectionModel("classic")
    state = model.start(secret)
    for entropy in contributions:
        state = model.with_entropy(state, entropy)
    plan = model.plan(state, player)[0]
    return plan.cards if plan.fire else 0


def test_the_state_directory_is_the_daemons_users_alone(table: tuple[DaemonProcess, TableClient]) -> None:
    daemon, client = table
    start_round(client)  # something in the journal
    assert stat.S_IMODE(daemon.state_dir.stat().st_mode) == 0o700
    files = [p for p in daemon.state_dir.iterdir() if p.name.startswith("journal.sqlite3")]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files), [
        (p.name, oct(p.stat().st_mode)) for p in files
    ]


def test_a_file_reader_who_knows_the_secret_cannot_choose_by_entropy(table: tuple[DaemonProcess, TableClient]) -> None:
    daemon, client = table
    commitment = start_round(client)
    honest = secrets.token_hex(16)
    # The honest phone commits at once; the cheater commits two candidates in the same window.
    candidates = [secrets.token_hex(16), secrets.token_hex(16)]
    commits = [{"type": "entropy", "hash": sha(honest), "client": "honest", "commitment": commitment}] + [
        {"type": "entropy", "hash": sha(c), "client": "mallory", "commitment": commitment} for c in candidates
    ]
    assert all(reply["ok"] for reply in send_all(client, commits)), commits
    secret = secret_from_files(daemon, commitment)
    assert reveal(client, honest, commitment)["ok"]
    # The cheater knows the secret and the honest contribution now: search for a contribution that gives ann a big
    # first hit, and try to add it after the others — as the last plain contribution, or as a late commitment.
    chosen = next(e for e in (secrets.token_hex(16) for _ in range(5000))
                  if first_press_cards(secret, [honest, e], "ann") >= 9)  # fmt: skip
    plain = client.command({"type": "entropy", "entropy": chosen, "commitment": commitment})
    assert (plain["ok"], plain.get("code")) == (False, "entropy_not_committed"), plain
    late = client.command({"type": "entropy", "hash": sha(chosen), "client": "mallory2", "commitment": commitment})
    assert (late["ok"], late.get("code")) == (False, "entropy_window_closed"), late
    # What is left: reveal or withhold each committed candidate. It reveals the first, withholds the second.
    assert reveal(client, candidates[0], commitment)["ok"]
    pressed = client.command({"type": "press"})  # ann hits the (virtual) launcher: the window is sealed
    assert pressed["ok"], pressed
    assert wait_until(lambda: events_of(client, "press", commitment), 10)
    mixed = [e["entropy"] for e in events_of(client, "ejection_entropy", commitment)]
    assert mixed == [honest, candidates[0]]  # in the order they were committed, the honest one included
    withheld = events_of(client, "ejection_entropy_withheld", commitment)
    assert [(w["client"], w["hash"]) for w in withheld] == [("mallory", sha(candidates[1]))]
    # The round ends (a new game replaces it: its secret comes out); verify shows the veto, --strict fails on it.
    start_round(client)
    code, out = verify("--state-dir", str(daemon.state_dir))
    assert code == 0 and "entropy withheld by client mallory" in out, out
    code, out = verify("--state-dir", str(daemon.state_dir), "--strict")
    assert code == 1 and "entropy withheld by client mallory" in out, out


def test_one_client_cannot_use_up_a_rounds_entropy(table: tuple[DaemonProcess, TableClient]) -> None:
    # One connection passes at most PER_CONNECTION commitments through the embedded broker (test_entropy_flood.py):
    # the flood here stays within it, so what refuses its excess is the table's room per client id.
    _, client = table
    commitment = start_round(client)
    extra = PER_CONNECTION - 1 - MAX_PER_CLIENT
    flood = [{"type": "entropy", "hash": sha(secrets.token_hex(16)), "client": "flood", "commitment": commitment}
             for _ in range(MAX_PER_CLIENT + extra)]  # fmt: skip
    honest = secrets.token_hex(16)
    replies = send_all(client, [*flood, {"type": "entropy", "hash": sha(honest), "client": "honest",
                                         "commitment": commitment}])  # fmt: skip
    assert extra >= 1 and [r["ok"] for r in replies[:-1]] == [True] * MAX_PER_CLIENT + [False] * extra, replies
    assert {r.get("code") for r in replies[MAX_PER_CLIENT:-1]} == {"too_much_entropy"}, replies
    assert replies[-1]["ok"], replies[-1]  # the honest phone still gets in
    assert reveal(client, honest, commitment)["ok"]


def test_a_commitment_after_the_window_is_refused(table: tuple[DaemonProcess, TableClient]) -> None:
    """The window is timed by the table from its first commitment; a sender's own ``at`` is overwritten."""
    _, client = table
    commitment = start_round(client)
    first = secrets.token_hex(16)
    assert client.command({"type": "entropy", "hash": sha(first), "client": "a", "commitment": commitment})["ok"]
    time.sleep(COMMIT_WINDOW_MS / 1000 + 0.1)  # pacing: past the window, a time the table keeps itself
    late = {"type": "entropy", "hash": sha(secrets.token_hex(16)), "client": "b", "commitment": commitment, "at": 1}
    reply = client.command(late)
    assert (reply["ok"], reply.get("code")) == (False, "entropy_window_closed"), reply


def current_player(client: TableClient) -> str:
    """Whose turn it is, from the retained state once it shows the last event."""
    assert wait_until(lambda: client.state is not None and client.state.get("seq", 0) >= client.last_seq(), 10)
    assert client.state is not None
    return str(client.state["current"])


def test_a_hit_with_a_count_is_refused_at_an_honest_table(table: tuple[DaemonProcess, TableClient]) -> None:
    """Issue #25 item 2: a client settling its own hit with ``cards: 0``, no press, no plan."""
    _, client = table
    start_round(client)
    player = current_player(client)
    reply = client.command({"type": "hit", "player": player, "cards": 0})
    assert (reply["ok"], reply.get("code")) == (False, "manual_hit_not_allowed"), reply
    reply = client.command({"type": "hit", "player": player, "manual": False})
    assert (reply["ok"], reply.get("code")) == (False, "not_allowed"), reply
    assert current_player(client) == player  # nothing changed: the hit is still to be taken


def test_a_manual_hit_at_a_rigged_table_is_on_the_record(tmp_path: Path) -> None:
    """With ``allow_rigged`` (tests, demos) the count is accepted, marked ``manual`` under the open commitment, and
    ``verify`` fails the round unless ``--allow-rigged``, from the journal and from an export."""
    with (
        DaemonProcess(tmp_path, overrides={"homeassistant": {"enabled": False}}) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as client,
    ):
        commitment = start_round(client)
        reply = client.command({"type": "hit", "player": current_player(client), "cards": 0})
        assert reply["ok"], reply
        assert wait_until(lambda: any(e.get("manual") is True for e in events_of(client, "hit", commitment)), 10)
        start_round(client)  # the round's secret comes out
        code, out = verify("--state-dir", str(daemon.state_dir))
        assert code == 1 and "1 hit(s) settled manually" in out, out
        code, out = verify("--state-dir", str(daemon.state_dir), "--allow-rigged")
        assert code == 0 and "settled manually" in out, out
        exported = tmp_path / "game1.jsonl"
        done = subprocess.run([sys.executable, "-m", "unolauncher", "export", "--state-dir", str(daemon.state_dir),
                               "--game", "1", "--output", str(exported)], capture_output=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        code, out = verify("--events", str(exported))
        assert code == 1 and "settled manually" in out, out


ALWAYS_FIRES = {"ejection_preset": "custom", "ejection_custom": {
    "miss_hazard": [1.0], "hit_repeat": [1.0], "cards": {"3": 1}, "suspense_chance": 1.0, "suspense_ms": [5000, 5000],
}}  # fmt: skip


def pressed(client: TableClient, commitment: str, count: int) -> dict[str, Any]:
    """Press the (virtual) launcher once; the round's ``count``-th press event (1-based) once it is out. One press
    gets one answer: the ``press`` event, or (a failure here) ``ignored_press``/``lockout``/``press_refused``."""
    start = client.last_seq()
    reply = client.command({"type": "press"})
    assert reply["ok"], reply

    def answered() -> list[dict[str, Any]]:
        with client.lock:
            return [e for s, e in sorted(client.events.items()) if s > start and e.get("type") in
                    ("press", "ignored_press", "lockout", "press_refused")]  # fmt: skip

    assert wait_until(answered, 10), "the press got no answer at all"
    assert len(events_of(client, "press", commitment)) >= count, answered()
    return events_of(client, "press", commitment)[count - 1]


def test_an_undone_press_is_not_drawn_again(table: tuple[DaemonProcess, TableClient]) -> None:
    """Issue #25 item 3: undo a hit whose outcome you did not like, press again: the same plan, not a fresh draw."""
    daemon, client = table
    commitment = start_round(client)
    player = current_player(client)
    first = pressed(client, commitment, 1)
    assert wait_until(lambda: any(e.get("type") == "hit" and e.get("player") == player
                                  for e in list(client.events.values())), 10)  # fmt: skip
    reply = client.command({"type": "undo"})
    assert reply["ok"], reply
    assert wait_until(lambda: events_of(client, "ejection_carry", commitment), 10), "the undo carried nothing"
    assert current_player(client) == player  # the hit is owed again
    again = pressed(client, commitment, 2)
    same = ("index", "player", "plan", "draw")
    assert again.get("retry") is True and [again[k] for k in same] == [first[k] for k in same], (first, again)
    start_round(client)
    code, out = verify("--state-dir", str(daemon.state_dir), "--strict")
    assert code == 0 and "press 0 undone" in out, out


def test_a_vetoed_fire_fires_the_same_plan_at_the_next_press(tmp_path: Path) -> None:
    """Issue #25 item 4: see the plan in the ``press`` event, ``disable`` during the suspense so the fire fails
    (``hit_failed``, the hit still owed), ``enable``, press again: the same plan comes out."""
    with (
        DaemonProcess(tmp_path, overrides=HONEST) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as client,
    ):
        reply = client.command({**NEW_GAME, "options": ALWAYS_FIRES})
        assert reply["ok"], reply
        assert client.wait_for_seq(reply["seq"])
        commitment = next(e["commitment"] for e in client.events.values() if e.get("type") == "round_started")
        player = current_player(client)
        # The attacker reads the plan in the press event, then vetoes inside the suspense (the longest a table may
        # set, 5 s: the attack's own window, which a loaded test machine needs; a disable sent with the press would
        # overtake it, the daemon acting on a disable at once).
        first = pressed(client, commitment, 1)
        assert first["plan"]["fire"] and first["plan"]["suspense_ms"] == 5000
        assert client.command({"type": "disable"})["ok"]
        assert wait_until(lambda: [e for e in client.events.values() if e.get("type") == "hit_failed"], 10)
        failed = next(e for e in client.events.values() if e.get("type") == "hit_failed")
        assert failed["player"] == player and failed.get("carried") == 0, failed
        assert events_of(client, "ejection_carry", commitment)[0]["index"] == 0
        assert client.command({"type": "enable"})["ok"]
        again = pressed(client, commitment, 2)
        assert again.get("retry") is True and again["player"] == player  # the hit was still owed: the same player
        assert (again["index"], again["plan"], again["draw"]) == (first["index"], first["plan"], first["draw"])
        assert wait_until(lambda: [e for e in client.events.values() if e.get("type") == "hit"
                                   and e.get("player") == player and e.get("cards") == 3], 15)  # fmt: skip
        start_round(client)
        code, out = verify("--state-dir", str(daemon.state_dir), "--strict")
        assert code == 0 and "press 0 aborted" in out, out


@pytest.mark.parametrize(
    ("cards", "named"),
    [({"1": 1, "4": 1, "04": 2}, "'04'"), ({"1": 1, "٤": 1}, "'٤'"), ({"1": 1, "+4": 1}, "'+4'")],
    ids=["leading-zero", "arabic-indic-digit", "sign"],
)
def test_a_custom_table_with_a_second_spelling_of_a_count_is_refused(
    table: tuple[DaemonProcess, TableClient], cards: dict[str, int], named: str
) -> None:
    """Issue #25 item 5: keys that Python's int() reads but the journal, verify and the phones read otherwise."""
    _, client = table
    options = {"ejection_preset": "custom", "ejection_custom": {"miss_hazard": [0.5, 1.0], "cards": cards}}
    reply = client.command({**NEW_GAME, "options": options})
    assert (reply["ok"], reply.get("code")) == (False, "bad_option"), reply
    assert named in reply["message"] and "without a leading zero" in reply["message"], reply


def test_a_chosen_deal_is_rigged_and_a_deleted_flag_is_found(tmp_path: Path) -> None:
    """Issue #25 item 6: with ``allow_rigged`` a full-mode ``deal`` (the sender chose every card) is marked
    ``rigged``; a journal whose flag was deleted afterwards fails ``verify --state-dir`` all the same."""
    from rules.rigs import rig  # the tests' full-mode deal builder

    with (
        DaemonProcess(tmp_path, overrides={"homeassistant": {"enabled": False}}) as daemon,
        TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table) as client,
    ):
        command = rig("attack", {"ann": ["red 1", "blue 2"], "bob": ["blue 7"], "cy": ["yellow 3"]}, "red 5")
        del command["seed"]  # the daemon draws the shuffle and the launcher's secret: only the cards are chosen
        reply = client.command(command)
        assert reply["ok"], reply
        assert client.wait_for_seq(reply["seq"])
        started = next(e for e in client.events.values() if e.get("type") == "round_started")
        assert started.get("rigged") is True, started
        assert client.command({**NEW_GAME, "mode": "table"})["ok"]  # its secret comes out
        code, out = verify("--state-dir", str(daemon.state_dir))
        assert code == 1 and "is rigged" in out, out
    journal = sqlite3.connect(daemon.state_dir / "journal.sqlite3")  # the daemon is gone: edit its journal
    body = journal.execute("SELECT body FROM journal WHERE seq = ?", (started["seq"],)).fetchone()[0]
    edited = {k: v for k, v in json.loads(body).items() if k != "rigged"}
    journal.execute("UPDATE journal SET body = ? WHERE seq = ?", (json.dumps(edited), started["seq"]))
    journal.commit()
    journal.close()
    code, out = verify("--state-dir", str(daemon.state_dir))
    assert code == 1 and "but the event is not marked rigged" in out, out
    code, out = verify("--state-dir", str(daemon.state_dir), "--allow-rigged")
    assert code == 1, out  # an edited journal is a mismatch, not a rig one may accept


def test_verify_reports_a_hidden_reveal_and_a_truncated_export(table: tuple[DaemonProcess, TableClient]) -> None:
    """Issue #25 item 8: a reveal replaced by a harmless event (``seq`` still unbroken) leaves a round "open" although
    the next one was dealt; an export whose opening lines were cut leaves presses of a commitment it never opens.
    Both are reported and fail, not passed as "open" or "unchecked"."""
    daemon, client = table
    commitment = start_round(client)
    pressed(client, commitment, 1)
    start_round(client)  # a new game replaces the round: ejection_reveal
    code, out = verify("--state-dir", str(daemon.state_dir), "--strict")
    assert code == 0, out
    reveal = events_of(client, "ejection_reveal", commitment)[0]
    copy = daemon.workdir / "edited"
    copy.mkdir()
    source, target = sqlite3.connect(daemon.state_dir / "journal.sqlite3"), sqlite3.connect(copy / "journal.sqlite3")
    source.backup(target)
    source.close()
    harmless = json.dumps({"type": "turn", "player": "ann", "seq": reveal["seq"]})
    target.execute("UPDATE journal SET body = ? WHERE seq = ?", (harmless, reveal["seq"]))
    target.commit()
    target.close()
    code, out = verify("--state-dir", str(copy))
    assert code == 1 and "was never revealed, yet a later commitment was opened" in out, out
    exported = daemon.workdir / "game1.jsonl"
    done = subprocess.run([sys.executable, "-m", "unolauncher", "export", "--state-dir", str(daemon.state_dir),
                           "--game", "1", "--output", str(exported)], capture_output=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = exported.read_text().splitlines()
    opening = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "round_started")
    exported.write_text("\n".join(lines[opening + 1 :]) + "\n")
    code, out = verify("--events", str(exported))
    assert code == 1 and "its opening lines are missing" in out, out
