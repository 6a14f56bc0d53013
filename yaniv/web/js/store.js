// What the browser keeps: the player's name, a token per room, preferences.

function read(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key));
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // private mode or full: the page still works for this visit
  }
}

export const store = {
  name: () => read("yaniv.name", ""),
  setName: (name) => write("yaniv.name", name),
  /** {token, seat, host, setup} for a room, or null. */
  seat: (code) => read(`yaniv.room.${code}`, null),
  setSeat: (code, value) => write(`yaniv.room.${code}`, value),
  prefs: () => read("yaniv.prefs", { fourColour: false, coach: false, sort: true }),
  setPrefs: (prefs) => write("yaniv.prefs", prefs),
  setup: () => read("yaniv.setup", null),
  setSetup: (setup) => write("yaniv.setup", setup),
};
