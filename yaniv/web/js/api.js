// The HTTP API (docs/web-protocol.md): JSON in, JSON out; errors carry {"error": words}.

export class ApiError extends Error {}

async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
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

export const api = {
  levels: () => call("GET", "/api/levels"),
  newGame: (name, opponents, rules) => call("POST", "/api/games", { name, opponents, rules }),
  newRoom: (name, rules) => call("POST", "/api/rooms", { name, rules }),
  join: (code, name) => call("POST", `${room(code)}/join`, { name }),
  room: (code) => call("GET", room(code)),
  settings: (code, token, changes) => call("POST", `${room(code)}/settings`,
    { token, ...changes }),
  start: (code, token) => call("POST", `${room(code)}/start`, { token }),
};
