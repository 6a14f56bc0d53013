// The game's websocket: /ws/CODE?token=...&deltas=1 (no token for a spectator); reconnects
// with backoff, answers nothing itself: every message goes to onMessage, state down. The
// server sends a first whole state, then what changed (deltas.js): onMessage is given whole
// states, each a copy of its own.

import { applyDelta } from "./deltas.js";

const CLOSE_NO_ROOM = 4404;
const CLOSE_FORBIDDEN = 4403;
let counter = 0;

/** A client move id, unique per tab. */
export function moveId() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  counter += 1;
  return `m${Date.now().toString(36)}-${counter}`;
}

export class GameSocket {
  constructor(code, token, { onMessage, onStatus }) {
    this.code = code;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.queue = [];
    this.delay = 500;
    this.closed = false;
    this.ws = null;
    this.timer = null;
    this.pinger = null;
    this.last = null; // the last state, as the server numbered it (stream, seq)
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const token = this.token ? `token=${encodeURIComponent(this.token)}&` : "";
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}?${token}deltas=1`;
  }

  connect() {
    if (this.closed) return;
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      this.onStatus("open");
      for (const message of this.queue.splice(0)) ws.send(JSON.stringify(message));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message && typeof message === "object") this.receive(message);
    };
    ws.onclose = (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      if (event.code === CLOSE_NO_ROOM || event.code === CLOSE_FORBIDDEN) {
        this.closed = true;
        this.onStatus(event.code === CLOSE_NO_ROOM ? "no_room" : "forbidden");
        return;
      }
      this.retry();
    };
  }

  /** A message from the server: a delta made whole, a stale one dropped. */
  receive(message) {
    if (message.type === "state" && typeof message.stream === "string") {
      this.last = message;
    } else if (message.type === "delta") {
      const last = this.last;
      if (!last || message.stream !== last.stream) return; // from before a reconnect
      if (message.base !== last.seq) {
        this.send({ type: "resync" }); // one was missed: the whole state again
        return;
      }
      this.last = applyDelta(last, message);
    } else {
      this.onMessage(message);
      return;
    }
    // The table keeps (and marks) what it is given: a copy, so the next delta's base stays.
    this.onMessage(structuredClone(this.last));
  }

  retry() {
    this.onStatus("reconnecting");
    const wait = this.delay * (0.75 + Math.random() / 2);
    this.delay = Math.min(this.delay * 2, 15000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  /** Send a message now, or as soon as the connection is back. */
  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
    } else if (message.type !== "ping") {
      this.queue.push(message);
    }
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }
}
