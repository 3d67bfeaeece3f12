"""The phone says whether its own entropy is in the round's mix (docs/fairness.md): real Chromium runs fairness.js's
Fairness class on the events and replies a table sends. A refused contribution (``too_much_entropy``: a flood) and
one left out (the first press came before its reveal, or a box dropped it) are shown as NOT in the mix, with why;
``entropy_too_early`` is sent again, not shown."""

from __future__ import annotations

from typing import Any

from .conftest import PhoneFactory

PHONE = """async ([replies, more]) => {
  const m = await import('./js/fairness.js');
  const sent = [];
  const f = new m.Fairness((command) => { sent.push(command); return `id${sent.length}`; });
  f.mine.clear();  // a fresh phone, whatever this page's session stored
  const key = "c".repeat(64);
  f.observeEvent({ type: "round_started", round: 1, commitment: key, preset: "classic", seq: 1 });
  for (const reply of replies) f.takeReply(reply);
  for (const event of more(sent)) f.observeEvent(event);
  const node = document.createElement("div");
  f.render(node);
  return { sent, text: node.textContent, status: f.mine.get(key)?.status };
}"""


def run(page: Any, replies: list[dict[str, Any]], events_js: str) -> dict[str, Any]:
    script = PHONE.replace("more(sent)", f"({events_js})(sent)").replace("[replies, more]", "[replies]")
    result: dict[str, Any] = page.evaluate(script, [replies])
    return result


def test_the_phone_shows_its_refused_or_left_out_entropy(phones: PhoneFactory, dashboard_url: str) -> None:
    page = phones.open(dashboard_url)
    refused = run(page, [{"id": "id1", "ok": False, "code": "too_much_entropy", "message": "64 already."}], "() => []")
    assert refused["sent"][0]["hash"] and "entropy" not in refused["sent"][0]  # it commits first, reveals later
    assert refused["status"] == "refused", refused
    assert "NOT in the mix (refused: too_much_entropy" in refused["text"], refused
    # Committed, then the round's first press came with no ejection_entropy for this phone: left out.
    left_out = run(
        page,
        [],
        """(sent) => [
      { type: "ejection_entropy_commit", commitment: "c".repeat(64), hash: sent[0].hash, client: sent[0].client,
        reveal_after_ms: 60000, seq: 2 },
      { type: "press", index: 0, player: "ann", commitment: "c".repeat(64), plan: {}, draw: "", seq: 3 }]""",
    )
    assert left_out["status"] == "left out" and "NOT in the mix (left out" in left_out["text"], left_out
    # In the mix: the seal's ejection_entropy carries this phone's hash.
    mixed = run(
        page,
        [],
        """(sent) => [
      { type: "ejection_entropy_commit", commitment: "c".repeat(64), hash: sent[0].hash, client: sent[0].client,
        reveal_after_ms: 60000, seq: 2 },
      { type: "ejection_entropy", commitment: "c".repeat(64), hash: sent[0].hash, entropy: "x", press: 0, seq: 3 }]""",
    )
    assert mixed["status"] == "in the mix" and "in the mix ✓" in mixed["text"], mixed
