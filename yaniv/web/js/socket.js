// The game's websocket: /ws/CODE?token=... (none for a spectator); reconnects with backoff,
// answers nothing itself: every message goes to onMessage, state down.

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
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}${query}`;
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
      if (message && typeof message === "object") this.onMessage(message);
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
