// The page's one MQTT connection (MQTT.js over WebSockets): topics in, commands out, replies matched by id.
/* global mqtt */

const AUTH_CODES = new Set([4, 5, 134, 135]); // MQTT 3.1.1 / 5 "bad credentials" / "not authorised"
// MQTT 5 (mosquitto): a command still waiting in the broker after this long is dropped there (docs/protocol.md,
// "Freshness"); the daemon's own rule (tapped_at older than 2 s: stale) holds on every broker.
const COMMAND_EXPIRY_S = 2;

/**
 * Connect to the table's topics.
 *
 *   const link = new TableLink({url, base, username, password}, handlers);
 *   link.send({type: "undo"});        // -> id; the reply arrives at handlers.reply(reply)
 *
 * handlers: status(kind, detail), state(obj), event(obj), reply(obj), launcher(obj), sensors(obj), alive(obj),
 * online(bool), dropped(count); every obj is a plain JSON object (anything else on the topics is dropped here, with a console
 * warning). status kinds: "connecting", "online", "reconnecting", "offline", "auth", "error".
 *
 * Only the table's own topics are subscribed (never `<base>#`: that would also bring every phone's commands).
 * A command is never sent late: one the broker has not acknowledged when the connection drops is discarded
 * (`dropped`), not re-sent after the reconnect — a launcher firing half a minute after the tap surprises the table.
 */
// The topics under the table's base the page reads.
export const TOPICS = ["status", "state", "events", "reply", "launcher", "sensors", "alive", "rules"];

/**
 * The WebSocket MQTT.js gets: one that writes nothing once it is closing or closed.
 *
 * A socket goes CLOSING the moment its close starts (the broker or the network ended it, or MQTT.js gave up on a
 * slow CONNACK), but MQTT.js hears of it only from the `close` event, a task later. Meanwhile it still writes (a
 * PUBACK, a PINGREQ, a command the page sent because the link still looked up), and Chromium discards each such
 * write with the console error "WebSocket is already in CLOSING or CLOSED state". Those bytes were lost either way;
 * a command among them is reported as not sent (`dropped`, on the `close` that follows).
 */
function openSocket(url, protocols) {
  const socket = new WebSocket(url, protocols);
  const send = socket.send.bind(socket);
  socket.send = (data) => {
    if (socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) return;
    send(data); // OPEN (MQTT.js queues its writes until then; CONNECTING would still throw, as it should)
  };
  return socket;
}

export class TableLink {
  constructor(options, handlers) {
    this.base = options.base.endsWith("/") ? options.base : options.base + "/";
    this.handlers = handlers;
    this.counter = 0;
    // A per-tab tag keeps command ids unique across phones without any coordination.
    this.tag = Math.random().toString(36).slice(2, 8);
    this.client = null;
    this.options = options;
    this.received = new Map(); // topic -> messages received (read by the browser tests)
    this.subscribed = false; // the broker has confirmed this connection's subscriptions ("online" comes before)
    this.connect();
  }

  connect() {
    const { url, username, password } = this.options;
    this.emitStatus("connecting");
    const opts = {
      clientId: `unodash-${this.tag}`,
      protocolVersion: this.options.mqtt5 ? 5 : 4, // MQTT 5 where the daemon uses it; amqtt speaks 3.1.1 only
      clean: true, // resync comes from the retained state; no broker-side session to go stale
      keepalive: 10, // a dead broker is noticed within ~15 s even if the socket does not close
      reconnectPeriod: 1000,
      connectTimeout: 4000,
      resubscribe: false, // we subscribe ourselves on every connect (and get the retained state again)
      queueQoSZero: false, // nothing waits for the connection to come back
    };
    opts.createWebsocket = openSocket; // never writes on a socket that is closing (see openSocket)
    if (username) opts.username = username;
    if (password) opts.password = password;
    let client;
    try {
      client = mqtt.connect(url, opts);
    } catch (err) {
      this.emitStatus("error", `Cannot connect to ${url}: ${err.message}`);
      return;
    }
    this.client = client;
    client.on("connect", () => {
      this.subscribed = false;
      client.subscribe(TOPICS.map((sub) => this.base + sub), { qos: 1 }, (err) => {
        if (err) this.emitStatus("error", `Subscription refused: ${err.message}`);
        else this.subscribed = true; // from here the broker delivers what is published (the browser tests wait for it)
      });
      this.emitStatus("online");
    });
    client.on("reconnect", () => this.emitStatus("reconnecting"));
    client.on("offline", () => {
      this.dropUnsent();
      this.emitStatus("reconnecting");
    });
    client.on("close", () => {
      this.subscribed = false;
      this.dropUnsent();
    });
    client.on("error", (err) => {
      if (AUTH_CODES.has(err && err.code)) {
        // Retrying with the same wrong password only floods the broker's log: stop and ask.
        client.end(true);
        this.emitStatus("auth", "The broker refused the user name or password.");
      } else {
        this.emitStatus("reconnecting", err && err.message);
      }
    });
    client.on("message", (topic, payload) => {
      this.received.set(topic, (this.received.get(topic) || 0) + 1);
      this.dispatch(topic, payload);
    });
  }

  /** Forget every command the broker has not acknowledged (MQTT.js would publish it again after a reconnect). */
  dropUnsent() {
    const client = this.client;
    if (!client || !client.outgoing) return;
    const ids = Object.keys(client.outgoing).filter((id) => client.outgoing[id].cmd === "publish");
    for (const id of ids) client.removeOutgoingMessage(Number(id));
    if (ids.length) this.handlers.dropped?.(ids.length);
  }

  emitStatus(kind, detail) {
    this.handlers.status(kind, detail || "");
  }

  dispatch(topic, payload) {
    if (!topic.startsWith(this.base)) return;
    const sub = topic.slice(this.base.length);
    const text = new TextDecoder().decode(payload);
    if (sub === "status") {
      const status = text.trim();
      if (status === "online" || status === "offline") this.handlers.online(status === "online");
      return;
    }
    if (text === "") return;
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      console.warn(`ignoring non-JSON message on ${topic}`);
      return;
    }
    if (!data || typeof data !== "object" || Array.isArray(data)) {
      console.warn(`ignoring a message on ${topic} that is not a JSON object`);
      return;
    }
    if (sub === "state") this.handlers.state(data);
    else if (sub === "events") this.handlers.event(data);
    else if (sub === "reply") this.handlers.reply(data);
    else if (sub === "launcher") this.handlers.launcher(data);
    else if (sub === "sensors") this.handlers.sensors?.(data);
    else if (sub === "alive") this.handlers.alive?.(data); // the daemon's heartbeat (freshness.js)
    else if (sub === "rules") this.handlers.rules?.(data); // the rule catalogue (catalogue.js)
  }

  /** Publish a command with a fresh id (QoS 1); returns the id. */
  send(command) {
    const id = `${this.tag}-${++this.counter}`;
    const message = { ...command, id };
    const options = this.options.mqtt5 ? { qos: 1, properties: { messageExpiryInterval: COMMAND_EXPIRY_S } } : { qos: 1 };
    this.client.publish(`${this.base}cmd`, JSON.stringify(message), options);
    return id;
  }

  get connected() {
    return Boolean(this.client && this.client.connected);
  }

  close() {
    if (this.client) this.client.end(true);
  }
}
