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
  /** The rounds of a room's game seen in this browser, for the story after a reload: a list
   * of {round, seat, names, rules: {draw_first}, events} (the view holds its round only). */
  rounds: (code, seat) => read(`yaniv.story.${code}.${seat ?? "watch"}`, []),
  setRounds: (code, seat, rounds) => {
    const key = `yaniv.story.${code}.${seat ?? "watch"}`;
    write(key, rounds);
    // keep the stories of the last few rooms only
    const keys = read("yaniv.stories", []).filter((k) => k !== key);
    keys.push(key);
    for (const old of keys.splice(0, Math.max(0, keys.length - 6))) {
      try {
        localStorage.removeItem(old);
      } catch {
        // as write
      }
    }
    write("yaniv.stories", keys);
  },
};
