"""Issue #25 item 7: a flood of entropy commitments under invented client ids cannot lock the honest phone out on the
embedded broker (docs/fairness.md). The broker caps commitments per connection and per source address
(``bus/broker_entropy.py``); on Linux all of 127.0.0.0/8 is on ``lo``, so the cheater connects from 127.0.0.2 and the
honest phone from 127.0.0.3: two hosts, one real broker and daemon, over TCP and over WebSocket (the phones' one)."""

from __future__ import annotations

import json
import re
import secrets
from contextlib import ExitStack
from pathlib import Path

import pytest

from daemon.test_fairness_attacks import HONEST, events_of, reveal, sha, start_round, verify
from support.daemon import DaemonProcess, TableClient
from support.net import wait_until
from unolauncher.bus.broker_entropy import PER_ADDRESS
from unolauncher.rules.ejection_entropy import MAX_COMMITS, MAX_PER_CLIENT

CONNECTIONS = 8  # the cheater's connections from one address
IDS_PER_CONNECTION = 4  # 32 invented client ids in all, each committing its 2: the round's 64


@pytest.mark.parametrize("transport", ["tcp", "websockets"])
def test_invented_client_ids_from_one_address_cannot_lock_the_honest_phone_out(tmp_path: Path, transport: str) -> None:
    assert CONNECTIONS * IDS_PER_CONNECTION * MAX_PER_CLIENT == MAX_COMMITS  # the flood is exactly the round's room
    with ExitStack() as stack:
        daemon = stack.enter_context(DaemonProcess(tmp_path, overrides=HONEST))
        table = stack.enter_context(TableClient(daemon.mqtt_host, daemon.mqtt_port, daemon.table, name="table"))
        port = daemon.mqtt_port
        if transport == "websockets":
            port = int(re.search(r":(\d+)/mqtt$", daemon.endpoints["ws_url"]).group(1))  # type: ignore[union-attr]

        def connect(name: str, address: str) -> TableClient:
            client = TableClient("127.0.0.1", port, daemon.table, transport=transport, name=name, bind_address=address)
            return stack.enter_context(client)

        cheater = [connect(f"cheater{i}", "127.0.0.2") for i in range(CONNECTIONS)]
        honest_phone = connect("honest", "127.0.0.3")
        commitment = start_round(table)
        # The flood: every connection commits 2 under each of its invented ids, back to back, all at round_started.
        sent: list[tuple[TableClient, str]] = []
        for i, client in enumerate(cheater):
            for n in range(IDS_PER_CONNECTION * MAX_PER_CLIENT):
                command_id = f"flood-{i}-{n}"
                invented = f"phone{i}x{n // MAX_PER_CLIENT}"
                client.send(json.dumps({"type": "entropy", "hash": sha(secrets.token_hex(16)), "client": invented,
                                        "commitment": commitment, "id": command_id}))  # fmt: skip
                sent.append((client, command_id))
        # The honest phone commits from its own address just after the flood, within the round's commit window (it
        # commits at round_started, as the cheater does; waiting for the flood's answers first could outlast the
        # 500 ms window on a slow machine).
        honest = secrets.token_hex(16)
        honest_phone.send(json.dumps({"type": "entropy", "hash": sha(honest), "client": "honest",
                                      "commitment": commitment, "id": "honest-commit"}))  # fmt: skip
        # Then one reveal per cheating connection, answered by the table after everything that connection sent before
        # it (one connection's messages stay in order): once all are answered, the flood is in, or dropped.
        markers = []
        for i, client in enumerate(cheater):
            client.send(json.dumps({"type": "entropy", "entropy": secrets.token_hex(16), "commitment": commitment,
                                    "id": f"marker-{i}"}))  # fmt: skip
            markers.append((client, f"marker-{i}"))
        assert wait_until(lambda: all(mid in c.replies for c, mid in markers), 30), (
            "the flood's markers went unanswered"
        )
        assert len(sent) == MAX_COMMITS
        reached = [c.replies[mid] for c, mid in sent if mid in c.replies]
        assert len(reached) <= PER_ADDRESS, f"{len(reached)} of the flood's commitments reached the table"
        assert wait_until(lambda: "honest-commit" in honest_phone.replies, 10)
        reply = honest_phone.replies["honest-commit"]
        assert reply["ok"], reply  # its commitment is taken
        assert reveal(honest_phone, honest, commitment)["ok"]
        pressed = table.command({"type": "press"})  # the first press seals the window: the honest entropy is mixed in
        assert pressed["ok"], pressed
        assert wait_until(lambda: events_of(table, "press", commitment), 10)
        mixed = events_of(table, "ejection_entropy", commitment)
        assert [e["entropy"] for e in mixed] == [honest], mixed  # the cheater revealed nothing: the phone's alone
        start_round(table)  # the round ends: its secret comes out, verify checks it with the honest contribution
        code, out = verify("--state-dir", str(daemon.state_dir))
        assert code == 0, out
        assert "FAIL" not in out, out
