// The page: routes (#/ home, #/room/CODE, #/watch/CODE, #/history, #/history/ID), the home
// forms, a room's lobby.
import { h, replace } from "./dom.js";
import { t, num, setLanguage, preferredLanguage, language, LANGUAGES } from "./i18n.js";
import { api } from "./api.js";
import { timerControl } from "./roomoptions.js";
import { store } from "./store.js";
import { TableScreen } from "./table.js";
import { levelName, presetName } from "./names.js";
import { listenForUnlock, setSound, soundOn } from "./sound.js";
import { GameSocket } from "./socket.js";
import { historyPage, ReplayScreen } from "./history.js";
import { scoresHome, sheetPage } from "./scorekeeper.js";
import { tutorialPage } from "./tutorial.js";
import { passSetup, PassPlay } from "./passplay.js";
import { profilePage, leaderboardPage } from "./profile.js";
import { quickPanel, QuickWait } from "./quickmatch.js";

const shell = document.getElementById("main");
// Each route draws into a container of its own, put in the page when the route begins: a page
// whose data comes after the person has gone elsewhere draws into a container no longer shown
// (a home page's late answer never covers the table the person opened meanwhile).
let main = shell;
const CODE = /^[A-Z0-9]{4,12}$/;
let screen = null; // the table, while one is shown
let screenRoute = "";
let lobbySocket = null; // the waiting room's websocket: its `room` messages redraw the lobby
let levelsCache = null;

function stop() {
  if (lobbySocket) lobbySocket.close();
  lobbySocket = null;
  if (screen) screen.destroy();
  screen = null;
  screenRoute = "";
}

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

async function levels() {
  if (!levelsCache) levelsCache = await api.levels();
  return levelsCache;
}

function errorLine() {
  return h("p", { class: "error", role: "alert", hidden: true });
}

function showError(el, err) {
  el.textContent = err && err.message ? err.message : String(err);
  el.hidden = false;
}

// ------------------------------------------------------------------ the rules form

/** A rule option in the page's language (an option the catalogue does not know, by name). */
function optionName(name) {
  const key = `opt.${name}`;
  const text = t(key);
  return text === key ? name : text;
}

/** A choice of an option in words ("yes", "the round's winner"); a number as it is. */
function choiceName(choice) {
  if (typeof choice === "number") return num(choice);
  const key = `choice.${choice}`;
  const text = t(key);
  return text === key ? String(choice) : text;
}

/** A fieldset for a preset and its options; .rules() gives {"preset", changed options}. */
function rulesForm(data, initial) {
  const presets = Object.keys(data.presets);
  const preset = h("select", { id: "preset", name: "preset" },
    presets.map((name) => h("option", { value: name, text: presetName(name) })));
  preset.value = initial && presets.includes(initial.preset) ? initial.preset
    : presets.includes("standard") ? "standard" : presets[0];
  const controls = {};
  const rows = Object.entries(data.options).map(([name, spec]) => {
    let control;
    if (spec.choices) {
      control = h("select", { id: `opt-${name}` }, spec.choices.map((choice) =>
        h("option", { value: JSON.stringify(choice), text: choiceName(choice) })));
    } else if (spec.list) {
      control = h("input", { id: `opt-${name}`, type: "text", inputmode: "numeric",
        pattern: "[0-9, ]*" });
    } else {
      control = h("input", { id: `opt-${name}`, type: "number", min: spec.min, max: spec.max,
        step: 1 });
    }
    controls[name] = { control, spec };
    // the option in words, and its name on the command line (an identifier, kept as it is)
    return h("div", { class: "option" },
      h("label", { for: `opt-${name}` }, optionName(name), " ",
        h("code", { class: "opt-name", lang: "en", dir: "ltr", text: name })), control);
  });
  const valueOf = (name) => {
    const { control, spec } = controls[name];
    if (spec.choices) return JSON.parse(control.value);
    if (spec.list) {
      return control.value.split(/[\s,]+/).filter(Boolean).map(Number);
    }
    return control.value === "" ? null : Number(control.value);
  };
  const show = (values) => {
    for (const [name, { control, spec }] of Object.entries(controls)) {
      const value = values[name];
      if (spec.choices) control.value = JSON.stringify(value);
      else if (spec.list) control.value = Array.isArray(value) ? value.join(", ") : "";
      else control.value = value ?? "";
    }
  };
  show({ ...data.presets[preset.value], ...((initial && initial.options) || {}) });
  preset.addEventListener("change", () => show(data.presets[preset.value]));
  const changed = () => {
    const base = data.presets[preset.value];
    const out = {};
    for (const name of Object.keys(controls)) {
      const value = valueOf(name);
      if (JSON.stringify(value) !== JSON.stringify(base[name])) out[name] = value;
    }
    return out;
  };
  const element = h("fieldset", { class: "rules" },
    h("legend", { text: t("home.rules") }),
    h("div", { class: "option" }, h("label", { for: "preset", text: t("home.preset") }), preset),
    h("details", {}, h("summary", { text: t("home.options") }),
      h("p", { class: "note" }, t("home.options_note"), " ",
        h("code", { lang: "en", dir: "ltr", text: "yaniv play --option NAME=VALUE" })),
      h("div", { class: "options" }, rows)));
  return {
    element,
    rules: () => ({ preset: preset.value, ...changed() }),
    saved: () => ({ preset: preset.value, options: changed() }),
  };
}

function nameField(id) {
  const input = h("input", { id, type: "text", maxlength: 40, required: true,
    autocomplete: "nickname", value: store.name() || "" });
  return { input, element: h("div", { class: "option" },
    h("label", { for: id, text: t("home.name") }), input) };
}

function playerName(input) {
  const name = input.value.trim() || t("home.default_name");
  store.setName(name);
  return name.slice(0, 40);
}

// ------------------------------------------------------------------ home

async function home() {
  const root = main;
  replace(root, h("p", { text: t("common.loading") }));
  let data;
  try {
    data = await levels();
  } catch (err) {
    if (root !== main) return; // the person has gone elsewhere meanwhile
    replace(root, h("p", { class: "error", role: "alert", text: t("error.server",
      { message: err.message }) }));
    return;
  }
  if (root !== main) return;
  const setup = store.setup() || {};
  const name = nameField("name");
  const rules = rulesForm(data, setup.rules);
  const count = h("select", { id: "count" },
    [1, 2, 3, 4, 5, 6, 7].map((n) => h("option", { value: n, text: String(n) })));
  count.value = String(setup.opponents ? setup.opponents.length : 1);
  const levelBox = h("div", { class: "levels" });
  const chosen = setup.opponents ? [...setup.opponents] : [];
  const fallback = data.levels.includes("medium") ? "medium" : data.levels[0];
  const drawLevels = () => {
    const n = Number(count.value);
    replace(levelBox, Array.from({ length: n }, (_, i) => {
      const select = h("select", { id: `level-${i}`, "aria-label": t("home.level_of", { n: i + 1 }),
        onchange: (e) => { chosen[i] = e.target.value; } },
      data.levels.map((level) => h("option", { value: level, text: levelName(level) })));
      select.value = data.levels.includes(chosen[i]) ? chosen[i] : fallback;
      chosen[i] = select.value;
      return h("div", { class: "option" },
        h("label", { for: `level-${i}`, text: t("home.opponent", { n: i + 1 }) }), select);
    }));
  };
  count.addEventListener("change", drawLevels);
  drawLevels();

  const playError = errorLine();
  const play = async (event) => {
    event.preventDefault();
    const opponents = chosen.slice(0, Number(count.value));
    const chosenRules = rules.rules();
    store.setSetup({ opponents, rules: rules.saved() });
    try {
      const answer = await api.newGame(playerName(name.input), opponents, chosenRules);
      store.setSeat(answer.room, { token: answer.token, seat: answer.seat, host: true,
        setup: { kind: "computer", opponents, rules: chosenRules } });
      go(`#/room/${answer.room}`);
    } catch (err) {
      showError(playError, err);
    }
  };
  const roomError = errorLine();
  const create = async () => {
    const chosenRules = rules.rules();
    store.setSetup({ opponents: chosen.slice(0, Number(count.value)), rules: rules.saved() });
    try {
      const answer = await api.newRoom(playerName(name.input), chosenRules);
      store.setSeat(answer.room, { token: answer.token, seat: answer.seat, host: true,
        setup: { kind: "room", rules: chosenRules } });
      go(`#/room/${answer.room}`);
    } catch (err) {
      showError(roomError, err);
    }
  };
  const joinCode = h("input", { id: "join-code", type: "text", maxlength: 12,
    autocapitalize: "characters", autocomplete: "off", spellcheck: "false" });
  const join = (event) => {
    event.preventDefault();
    const code = joinCode.value.trim().toUpperCase();
    if (!CODE.test(code)) {
      showError(roomError, new Error(t("error.bad_code")));
      return;
    }
    playerName(name.input);
    go(`#/room/${code}`);
  };
  const watchCode = h("input", { id: "watch-code", type: "text", maxlength: 12,
    autocapitalize: "characters", autocomplete: "off", spellcheck: "false" });
  const watchError = errorLine();
  const watch = (event) => {
    event.preventDefault();
    const code = watchCode.value.trim().toUpperCase();
    if (!CODE.test(code)) {
      showError(watchError, new Error(t("error.bad_code")));
      return;
    }
    go(`#/watch/${code}`);
  };

  replace(root, h("div", { class: "home" },
    h("p", { class: "tagline", text: t("home.tagline") }),
    name.element,
    quickPanel({ go, name: () => playerName(name.input) }),
    h("form", { class: "panel", onsubmit: play, "aria-labelledby": "vs-title" },
      h("h2", { id: "vs-title", text: t("home.vs_computer") }),
      h("div", { class: "option" }, h("label", { for: "count", text: t("home.opponents") }), count),
      levelBox,
      rules.element,
      h("button", { class: "primary big", type: "submit", text: t("home.play") }),
      playError),
    h("section", { class: "panel", "aria-labelledby": "friends-title" },
      h("h2", { id: "friends-title", text: t("home.friends") }),
      h("p", { class: "note", text: t("home.friends_note") }),
      h("button", { class: "primary", type: "button", onclick: create, text: t("home.create") }),
      h("form", { class: "inline", onsubmit: join },
        h("label", { for: "join-code", text: t("home.code") }), joinCode,
        h("button", { type: "submit", text: t("home.join") })),
      roomError),
    h("section", { class: "panel", "aria-labelledby": "watch-title" },
      h("h2", { id: "watch-title", text: t("home.watch") }),
      h("form", { class: "inline", onsubmit: watch },
        h("label", { for: "watch-code", text: t("home.code") }), watchCode,
        h("button", { type: "submit", text: t("home.watch_button") })),
      watchError),
    h("section", { class: "panel", "aria-labelledby": "tutorial-title" },
      h("h2", { id: "tutorial-title", text: t("tut.title") }),
      h("p", { class: "note", text: t("tut.home_note") }),
      h("a", { class: "button-link", href: "#/tutorial", id: "tut-home-link", text: t("tut.link") })),
    h("section", { class: "panel", "aria-labelledby": "pass-title" },
      h("h2", { id: "pass-title", text: t("pp.title") }),
      h("p", { class: "note", text: t("pp.home_note") }),
      h("a", { class: "button-link", href: "#/pass", id: "pp-home-link", text: t("pp.link") })),
    h("section", { class: "panel", "aria-labelledby": "scores-title" },
      h("h2", { id: "scores-title", text: t("sk.title") }),
      h("p", { class: "note", text: t("sk.home_note") }),
      h("a", { class: "button-link", href: "#/scores", id: "sk-home-link", text: t("sk.link") })),
    h("section", { class: "panel", "aria-labelledby": "history-title" },
      h("h2", { id: "history-title", text: t("history.title") }),
      h("p", { class: "note", text: t("history.link_note") }),
      h("a", { class: "button-link", href: "#/history", text: t("history.link") })),
    h("section", { class: "panel", "aria-labelledby": "ratings-title" },
      h("h2", { id: "ratings-title", text: t("home.ratings") }),
      h("p", { class: "note", text: t("home.ratings_note") }),
      h("div", { class: "inline" },
        h("a", { class: "button-link", href: "#/profile", text: t("profile.link") }),
        h("a", { class: "button-link", href: "#/leaderboard", text: t("board.link") }))),
    h("section", { class: "panel keys", "aria-labelledby": "keys-title" },
      h("h2", { id: "keys-title", text: t("keys.title") }),
      h("ul", {}, ["keys.arrows", "keys.space", "keys.enter", "keys.stock", "keys.pile",
        "keys.yaniv", "keys.pass"].map((key) => h("li", { text: t(key) }))))));
}

// ------------------------------------------------------------------ a room

/** The room's rules as a guest sees them: the rule set, its main figures, and the options
 * changed from it (by the names of the Options form). */
function rulesSummary(data, rules) {
  if (!rules || !Object.keys(rules).length) return null;
  const presets = (data && data.presets) || {};
  const differences = (base) => Object.keys(base).filter((key) => key in rules
    && JSON.stringify(rules[key]) !== JSON.stringify(base[key]));
  // the rule set it is, or the one it differs least from
  const names = Object.keys(presets);
  const base = rules.preset && presets[rules.preset] ? rules.preset
    : names.reduce((best, name) => (best === null
      || differences(presets[name]).length < differences(presets[best]).length ? name : best), null);
  const changed = base ? differences(presets[base]) : [];
  return h("section", { class: "panel room-rules", "aria-labelledby": "room-rules-title" },
    h("h2", { id: "room-rules-title", text: t("room.rules_title") }),
    base ? h("p", { text: t("room.rules_preset", { preset: presetName(base) }) }) : null,
    h("p", { text: t("table.rules_line", { limit: rules.yaniv_threshold,
      penalty: rules.assaf_penalty, end: rules.score_limit }) }),
    changed.length ? h("p", { class: "note", text: t("room.rules_changed", { options:
      changed.map((key) => `${optionName(key)}: ${Array.isArray(rules[key])
        ? rules[key].map((x) => num(x)).join(", ") : choiceName(rules[key])}`)
        .join(t("list.separator")) }) })
      : null);
}

function shareLink(code) {
  return `${location.origin}${location.pathname}#/room/${code}`;
}

async function joinForm(code) {
  const name = nameField("join-name");
  const error = errorLine();
  const submit = async (event) => {
    event.preventDefault();
    try {
      const answer = await api.join(code, playerName(name.input));
      store.setSeat(code, { token: answer.token, seat: answer.seat, host: false });
      route();
    } catch (err) {
      showError(error, err);
    }
  };
  replace(main, h("div", { class: "home" },
    h("form", { class: "panel", onsubmit: submit },
      h("h2", { text: t("room.join_title", { code }) }),
      name.element,
      h("button", { class: "primary big", type: "submit", text: t("home.join") }),
      h("button", { type: "button", onclick: () => go(`#/watch/${code}`),
        text: t("home.watch_button") }),
      error)));
}

async function lobby(code, seat, room) {
  const root = main;
  const data = await levels().catch(() => null);
  if (root !== main) return; // gone elsewhere meanwhile: no socket for a lobby not shown
  const error = errorLine();
  const link = shareLink(code);
  // What the host is choosing outlives a redraw (someone joined): the bot level picked, and
  // the rules form with its unsaved edits while the room's rules are the ones it was made of.
  let levelChoice = data && data.levels.includes("medium") ? "medium" : null;
  let kept = null;
  const draw = (info) => {
    room = info;
    const host = seat && seat.host;
    const bots = [];
    const level = h("select", { id: "bot-level", "aria-label": t("room.bot_level"),
      onchange: (e) => { levelChoice = e.target.value; } },
    ((data && data.levels) || []).map((l) => h("option", { value: l, text: levelName(l) })));
    if (levelChoice) level.value = levelChoice;
    const current = info.rules || {};
    const key = JSON.stringify(current);
    if (host && data && !(kept && kept.key === key)) {
      kept = { key, form: rulesForm(data, { preset: current.preset || "standard",
        options: current }) };
    }
    const rules = host && data ? kept.form : null;
    const addBot = async () => {
      try {
        const seats = info.seats.length;
        bots.push({ seat: seats, level: level.value });
        draw(await api.settings(code, seat.token, { bots: [{ seat: seats, level: level.value }] }));
      } catch (err) {
        showError(error, err);
      }
    };
    const saveRules = async () => {
      try {
        draw(await api.settings(code, seat.token, { rules: rules.rules() }));
      } catch (err) {
        showError(error, err);
      }
    };
    const start = async () => {
      try {
        await api.start(code, seat.token);
        route();
      } catch (err) {
        showError(error, err);
      }
    };
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        error.hidden = true;
        status.textContent = t("room.copied");
      } catch {
        status.textContent = link;
      }
    };
    const status = h("p", { role: "status" });
    const max = info.max_players || 8;
    replace(main, h("div", { class: "home lobby" },
      h("section", { class: "panel" },
        h("h2", { text: t("room.title") }),
        h("p", { class: "code", "aria-label": t("room.code_label", { code: code.split("").join(" ") }),
          text: code }),
        h("div", { class: "inline" },
          h("input", { type: "text", readonly: true, value: link, "aria-label": t("room.link") }),
          h("button", { type: "button", onclick: copy, text: t("room.copy") })),
        status,
        h("h3", { text: t("room.seats", { count: info.seats.length, max }) }),
        h("ol", { class: "seats" }, info.seats.map((s) => h("li", {},
          h("span", { class: "seat-name", text: s.name }),
          " ",
          s.kind === "bot" ? h("span", { class: "note", text: t("seat.bot",
            { level: levelName(s.level) }) })
            : null))),
        host ? h("div", { class: "inline" }, level,
          h("button", { type: "button", onclick: addBot, disabled: info.seats.length >= max,
            text: t("room.add_bot") })) : null,
        timerControl(info, host, async (seconds) => {
          try {
            draw(await api.settings(code, seat.token, { turn_timer: seconds }));
          } catch (err) {
            showError(error, err);
          }
        }),
        host ? h("button", { class: "primary big", type: "button", onclick: start,
          disabled: info.seats.length < 2, text: t("room.start") })
          : h("p", { text: t("room.wait_host") }),
        error),
      rules ? h("section", { class: "panel" }, rules.element,
        h("button", { type: "button", onclick: saveRules, text: t("room.save_rules") }))
        : rulesSummary(data, current)));
  };
  draw(room);
  // The server pushes the waiting room (a `room` message) whenever it changes, and once more
  // at the start; redraw only when who sits where changed, so a form being edited is kept.
  const seated = (info) => JSON.stringify([info.turn_timer, (info.seats || []).map((s) =>
    s && [s.name, s.kind, s.level || null])]);
  const socket = new GameSocket(code, seat.token, {
    onMessage: (message) => {
      if (message.type !== "room" || lobbySocket !== socket) return;
      if (message.status !== "waiting") {
        route();
        return;
      }
      if (seated(message) !== seated(room)) {
        room = message;
        draw(message);
      }
    },
    onStatus: () => {},
  });
  lobbySocket = socket;
}

async function rematch(code, view) {
  const seat = store.seat(code) || {};
  const setup = seat.setup || {};
  if (seat.token && setup.kind !== "computer") {
    // A room of friends: the same seats play again in the same room; the table's socket
    // brings the new game's state (if another player asked first, there is nothing to do).
    try {
      const info = await api.room(code);
      if (info.status === "over") await api.rematch(code, seat.token, info.game);
    } catch (err) {
      const live = document.getElementById("announce");
      if (live) live.textContent = t("rematch.failed", { message: err.message });
      alert(t("rematch.failed", { message: err.message }));
    }
    return;
  }
  const rules = setup.rules || { preset: "standard", ...view.rules };
  const name = store.name() || (view.seat !== null ? view.names[view.seat] : t("home.default_name"));
  try {
    let answer;
    if (setup.kind === "computer") {
      answer = await api.newGame(name, setup.opponents, rules);
    } else {
      answer = await api.newRoom(name, rules);
    }
    store.setSeat(answer.room, { token: answer.token, seat: answer.seat, host: true, setup });
    go(`#/room/${answer.room}`);
  } catch (err) {
    const live = document.getElementById("announce");
    if (live) live.textContent = err.message;
    alert(err.message);
  }
}

function table(code, token, hash) {
  screenRoute = hash;
  const root = h("div", { class: "table-root" });
  replace(main, root);
  screen = new TableScreen(root, {
    code, token,
    onHome: () => go("#/"),
    onRematch: (view) => rematch(code, view),
  });
}

async function room(code, hash) {
  const root = main;
  const seat = store.seat(code);
  let info;
  try {
    info = await api.room(code);
  } catch (err) {
    if (root !== main) return;
    replace(root, h("div", { class: "home" }, h("p", { class: "error", role: "alert",
      text: err.status === 404 ? t("error.no_room", { code }) : err.message }),
    h("button", { onclick: () => go("#/"), text: t("nav.home") })));
    return;
  }
  if (root !== main) return; // gone elsewhere meanwhile: no table, no socket for this room
  if (seat && seat.token) {
    if (info.status === "waiting") lobby(code, seat, info);
    else table(code, seat.token, hash);
  } else if (info.status === "waiting") {
    joinForm(code);
  } else {
    table(code, null, hash);
  }
}

// ------------------------------------------------------------------ routes and chrome

async function route() {
  const hash = location.hash || "#/";
  if (screen && hash === screenRoute) {
    screen.render();
    return;
  }
  stop();
  main = h("div", { class: "route" });
  replace(shell, main);
  document.title = t("app.title");
  const match = hash.match(/^#\/(room|watch)\/([A-Za-z0-9]+)/);
  const past = hash.match(/^#\/history(?:\/([0-9]{1,12}))?$/);
  const sheet = hash.match(/^#\/scores(?:\/([A-Za-z0-9_-]+))?$/);
  const pass = hash.match(/^#\/pass(?:\/([A-Za-z0-9]+))?$/);
  if (pass && pass[1]) {
    screenRoute = hash;
    screen = new PassPlay(main, pass[1].toUpperCase(), { go });
  } else if (pass) {
    await passSetup(main, { go, rulesForm, levels });
  } else if (hash === "#/tutorial") {
    tutorialPage(main, { go });
  } else if (sheet && sheet[1]) {
    sheetPage(main, sheet[1], { go });
  } else if (sheet) {
    await scoresHome(main, { go, rulesForm, levels });
  } else if (past && past[1]) {
    screenRoute = hash;
    screen = new ReplayScreen(main, past[1], { go });
  } else if (hash === "#/profile" || hash.startsWith("#/player/")) {
    const id = hash.startsWith("#/player/") ? decodeURIComponent(hash.slice(9)) : null;
    await profilePage(main, { go, id });
  } else if (hash === "#/quick") {
    screenRoute = hash;
    screen = new QuickWait(main, { go });
  } else if (hash === "#/leaderboard") {
    await leaderboardPage(main, { go });
  } else if (past) {
    await historyPage(main, { go });
  } else if (match) {
    const code = match[2].toUpperCase();
    if (match[1] === "watch") table(code, null, hash);
    else await room(code, hash);
  } else {
    await home();
  }
}

function chrome() {
  const prefs = store.prefs();
  document.body.classList.toggle("four", Boolean(prefs.fourColour));
  const lang = h("select", { id: "lang", "aria-label": t("nav.language"), onchange: async (e) => {
    await setLanguage(e.target.value);
    chrome();
    if (screen) screen.render();
    else route();
  } }, Object.entries(LANGUAGES).map(([code, name]) =>
    h("option", { value: code, lang: code, text: name })));
  lang.value = language();
  const four = h("input", { type: "checkbox", checked: Boolean(prefs.fourColour),
    onchange: (e) => {
      store.setPrefs({ ...store.prefs(), fourColour: e.target.checked });
      document.body.classList.toggle("four", e.target.checked);
    } });
  const sound = h("input", { type: "checkbox", id: "sound", checked: soundOn(),
    title: t("nav.sound_label"), onchange: (e) => setSound(e.target.checked) });
  replace(document.getElementById("top"),
    h("h1", { class: "brand-title" }, h("a", { class: "brand", href: "#/", text: t("app.title") })),
    h("div", { class: "prefs" },
      h("label", { class: "switch" }, four, t("nav.four_colour")),
      h("label", { class: "switch" }, sound, t("nav.sound")),
      lang));
  replace(document.getElementById("skip"), t("nav.skip"));
}

async function start() {
  listenForUnlock();
  await setLanguage(preferredLanguage());
  chrome();
  document.getElementById("skip").addEventListener("click", (event) => {
    event.preventDefault(); // the hash is the route: focus the game instead of following it
    shell.focus();
  });
  window.addEventListener("hashchange", route);
  await route();
}

start();
