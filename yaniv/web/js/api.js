// The HTTP API (docs/web-protocol.md): JSON in, JSON out; errors carry {"error": words}.

export class ApiError extends Error {}

export async function call(method, path, body, headers) {
  const init = { method, headers: { Accept: "application/json", ...(headers || {}) } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(String(err.message || err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const words = data && typeof data.error === "string" ? data.error : `HTTP ${response.status}`;
    const err = new ApiError(words);
    err.status = response.status;
    throw err;
  }
  return data;
}

const room = (code) => `/api/rooms/${encodeURIComponent(code)}`;

const KEY_STORE = "yaniv.player_key";
const KEY_FORM = /^[A-Za-z0-9_-]{32,100}$/;

/** The browser's player key: 32 random bytes in base64url, made once and kept in
 * localStorage, sent with the games it creates or joins; the history is found by it. Null
 * where the browser keeps nothing (then no history is kept). */
export function playerKey() {
  try {
    let key = localStorage.getItem(KEY_STORE);
    if (!key || !KEY_FORM.test(key)) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
        .replace(/=+$/, "");
      localStorage.setItem(KEY_STORE, key);
    }
    return key;
  } catch {
    return null;
  }
}

/** A body with the player key added, when there is one. */
function keyed(body) {
  const key = playerKey();
  return key ? { ...body, player_key: key } : body;
}

export function keyHeader() {
  const key = playerKey();
  return key ? { "X-Player-Key": key } : {};
}

export const api = {
  levels: () => call("GET", "/api/levels"),
  newGame: (name, opponents, rules) => call("POST", "/api/games",
    keyed({ name, opponents, rules })),
  newRoom: (name, rules) => call("POST", "/api/rooms", keyed({ name, rules })),
  join: (code, name) => call("POST", `${room(code)}/join`, keyed({ name })),
  room: (code) => call("GET", room(code)),
  settings: (code, token, changes) => call("POST", `${room(code)}/settings`,
    { token, ...changes }),
  start: (code, token) => call("POST", `${room(code)}/start`, { token }),
  /** A new game in the room with the same seats; game: the number of the game seen to end. */
  rematch: (code, token, game) => call("POST", `${room(code)}/rematch`,
    game ? { token, game } : { token }),
  /** The player's games (newest first) and statistics. */
  history: (limit = 50, offset = 0) => call("GET",
    `/api/history?limit=${encodeURIComponent(limit)}&offset=${encodeURIComponent(offset)}`,
    undefined, keyHeader()),
  /** A finished game of the player's, with its replay steps. */
  historyGame: (id) => call("GET", `/api/history/${encodeURIComponent(id)}`, undefined,
    keyHeader()),
};
