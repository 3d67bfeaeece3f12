// The café overview (cafe.html): every table on the broker, live — the league view's data (each table's retained
// state and status, as `unolauncher league` reads them), one card per table, a tap opens that table's dashboard.

const tables = new Map(); // table id -> {state, online}

function render() {
  const box = document.getElementById("cafe-tables");
  document.getElementById("cafe-empty").hidden = tables.size > 0;
  box.replaceChildren();
  for (const [id, { state, online }] of [...tables.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const card = document.createElement("a");
    card.className = "panel cafe-table";
    card.href = `./?table=${encodeURIComponent(id)}`;
    card.dataset.table = id;
    const players = state && Array.isArray(state.players) ? state.players : [];
    const scores = (state && state.scores) || {};
    const leader = [...players].sort((a, b) => (scores[b] || 0) - (scores[a] || 0))[0];
    const what = !players.length ? "no game"
      : state.winner ? `${state.winner} won`
        : state.phase === "playing" ? `round ${state.round} · ${state.current ? `${state.current} to play` : "playing"}`
          : `round ${state.round} · ${state.phase}`;
    const head = document.createElement("h3");
    head.textContent = id;
    const status = document.createElement("span");
    status.className = `cafe-status ${online === false ? "off" : "on"}`;
    status.textContent = online === false ? "offline" : online ? "online" : "?";
    head.append(" ", status);
    const line = document.createElement("p");
    line.className = "cafe-line";
    line.textContent = what;
    const who = document.createElement("p");
    who.className = "muted small";
    who.textContent = players.map((p) => `${p} ${scores[p] || 0}`).join(" · ") + (leader && scores[leader] ? ` — ${leader} leads` : "");
    card.append(head, line, who);
    box.append(card);
  }
}

async function main() {
  let config = {};
  try {
    config = await (await fetch("config.json")).json();
  } catch {
    // no config: nothing to connect to
  }
  const base = String(config.base || `unolauncher/${config.table || "default"}/`).split("/").slice(0, -2).join("/") || "unolauncher";
  const pill = document.getElementById("cafe-conn");
  if (typeof mqtt === "undefined" || !config.mqtt_url) {
    pill.textContent = "error";
    pill.dataset.state = "error";
    return;
  }
  const client = mqtt.connect(config.mqtt_url, { protocolVersion: 4, clean: true, reconnectPeriod: 1000 });
  client.on("connect", () => {
    pill.textContent = "live";
    pill.dataset.state = "online";
    client.subscribe([`${base}/+/state`, `${base}/+/status`], { qos: 1 });
  });
  client.on("offline", () => {
    pill.textContent = "reconnecting…";
    pill.dataset.state = "reconnecting";
  });
  client.on("message", (topic, payload) => {
    const parts = topic.split("/");
    const kind = parts.pop();
    const id = parts.pop();
    const text = payload.toString();
    const entry = tables.get(id) || { state: null, online: null };
    if (!text) {
      tables.delete(id); // a retained message cleared: the table is gone
    } else if (kind === "status") {
      entry.online = text.trim() === "online";
      tables.set(id, entry);
    } else {
      try {
        const state = JSON.parse(text);
        if (state && typeof state === "object" && !Array.isArray(state)) entry.state = state;
        tables.set(id, entry);
      } catch {
        return; // not a table state: ignored, as the league view does
      }
    }
    render();
  });
  window.unoCafe = { tables, client };
}

main();
