// Ratings (yaniv/server/ratings.py): the player's own profile (#/profile), a named player's
// (#/player/ID), and the leaderboard (#/leaderboard). A name is always put in as text, never
// as markup: "<b>Dana</b>" reads as those characters.
import { h, s, replace } from "./dom.js";
import { t, num, language } from "./i18n.js";
import { call, keyHeader, playerKey } from "./api.js";
import { levelName } from "./names.js";

const ratingApi = {
  profile: () => call("GET", "/api/profile", undefined, keyHeader()),
  player: (id) => call("GET", `/api/players/${encodeURIComponent(id)}`),
  setName: (name) => call("PUT", "/api/profile/name", { name }, keyHeader()),
  leaderboard: (limit = 50) => call("GET", `/api/leaderboard?limit=${encodeURIComponent(limit)}`,
    undefined, keyHeader()),
};

/** A name isolated (U+2068 ... U+2069), so a Latin name keeps its order in a Hebrew line. */
function isolated(name) {
  return `\u2068${typeof name === "string" ? name : "?"}\u2069`;
}

function one(value) {
  return num(value, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

function when(iso) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat(language(), { dateStyle: "medium" }).format(date);
}

function back(go) {
  return h("div", { class: "inline page-nav" },
    h("button", { type: "button", class: "link", onclick: () => go("#/"), text: t("nav.home") }),
    h("a", { href: "#/leaderboard", text: t("board.link") }),
    h("a", { href: "#/profile", text: t("profile.link") }));
}

function failed(main, go, message) {
  replace(main, h("div", { class: "home" },
    h("p", { class: "error", role: "alert", text: message }), back(go)));
}

// ------------------------------------------------------------------ the plot

/** The rating after each rated game as a small SVG line, with the skill ± its uncertainty
 * as a band behind it; the first point is the starting rating. */
export function ratingPlot(history, start) {
  const first = { mu: start.mu, sigma: start.sigma, ordinal: start.mu - 3 * start.sigma };
  const points = [first, ...history];
  const width = 320;
  const height = 120;
  const pad = 8;
  const low = Math.min(...points.map((p) => Math.min(p.ordinal, p.mu - p.sigma)));
  const high = Math.max(...points.map((p) => Math.max(p.ordinal, p.mu + p.sigma)));
  const span = high - low || 1;
  const x = (i) => pad + (points.length > 1 ? (i * (width - 2 * pad)) / (points.length - 1) : 0);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / span;
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.ordinal).toFixed(1)}`).join(" ");
  const upper = points.map((p, i) => `${x(i).toFixed(1)},${y(p.mu + p.sigma).toFixed(1)}`);
  const lower = points.map((p, i) => `${x(i).toFixed(1)},${y(p.mu - p.sigma).toFixed(1)}`);
  const band = [...upper, ...lower.reverse()].join(" ");
  const last = points[points.length - 1];
  const label = t("profile.plot_label", { games: num(history.length), from: one(first.ordinal),
    to: one(last.ordinal) });
  return s("svg", { class: "rating-plot", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": label, dir: "ltr", preserveAspectRatio: "none" },
  s("title", { text: label }),
  s("polygon", { class: "band", points: band }),
  s("polyline", { class: "line", points: line }),
  points.map((p, i) => s("circle", { class: "dot", cx: x(i).toFixed(1), cy: y(p.ordinal).toFixed(1),
    r: points.length > 40 ? 1.5 : 2.5 })));
}

// ------------------------------------------------------------------ a profile

function figures(profile) {
  const stats = profile.stats || {};
  const none = t("profile.none");
  const rows = [
    ["profile.games", num(stats.games || 0)],
    ["profile.wins", num(stats.wins || 0)],
    ["profile.success_rate", stats.success_rate === null || stats.success_rate === undefined ? none
      : num(stats.success_rate, { style: "percent", maximumFractionDigits: 0 })],
    ["profile.assafs_suffered", num(stats.assafs_suffered || 0)],
    ["profile.average_call", stats.average_call_total === null
      || stats.average_call_total === undefined ? none : one(stats.average_call_total)],
    ["profile.rated_games", num(profile.rating ? profile.rating.games : 0)],
  ];
  return h("section", { class: "panel", "aria-labelledby": "figures-title" },
    h("h2", { id: "figures-title", text: t("profile.figures") }),
    h("dl", { class: "stats" }, rows.map(([key, value]) => h("div", { class: "stat", "data-stat": key },
      h("dt", { text: t(key) }), h("dd", { text: value })))));
}

function ratingPanel(profile) {
  const rating = profile.rating;
  const board = profile.leaderboard;
  let place = null;
  if (board && board.place !== null && profile.own) {
    place = h("p", { class: "board-place", text: board.listed
      ? t("profile.place", { place: num(board.place) })
      : t("profile.place_unlisted", { place: num(board.place) }) });
  } else if (board && board.needed > 0 && profile.own) {
    place = h("p", { class: "note", text: t("profile.needed", { count: num(board.needed) }) });
  }
  return h("section", { class: "panel", "aria-labelledby": "rating-title" },
    h("h2", { id: "rating-title", text: t("profile.rating_title") }),
    rating ? [
      h("p", { class: "rating-figure" },
        h("span", { class: "rating-value", text: one(rating.ordinal) }), " ",
        h("span", { class: "note", text: t("profile.skill", { mu: one(rating.mu),
          sigma: one(rating.sigma) }) })),
      h("p", { class: "note", text: t("profile.rating_note") }),
      ratingPlot(profile.history, profile.start),
      h("p", { class: "note", text: t("profile.plot_legend") }),
      place,
    ] : h("p", { class: "no-rating", text: t("profile.unrated") }));
}

function botPanel(profile) {
  const rows = profile.bots || [];
  return h("section", { class: "panel", "aria-labelledby": "bots-title" },
    h("h2", { id: "bots-title", text: t("profile.bots_title") }),
    h("p", { class: "note", text: t("profile.bots_note") }),
    rows.length ? h("table", { class: "history bots-table" },
      h("thead", {}, h("tr", {}, ["level", "won", "lost"].map((col) =>
        h("th", { scope: "col", text: t(`profile.col.${col}`) })))),
      h("tbody", {}, rows.map((row) => h("tr", { "data-level": row.level },
        h("td", { text: levelName(row.level) }), h("td", { text: num(row.won) }),
        h("td", { text: num(row.lost) })))))
      : h("p", { text: t("profile.bots_none") }));
}

function namePanel(profile, redraw) {
  const input = h("input", { id: "public-name", type: "text", maxlength: 24, minlength: 2,
    autocomplete: "nickname", value: profile.name || "" });
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const status = h("p", { role: "status" });
  const save = async (name) => {
    error.hidden = true;
    try {
      await ratingApi.setName(name);
      await redraw(name === null ? t("profile.name_removed") : t("profile.name_saved"));
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  return h("section", { class: "panel", "aria-labelledby": "name-title" },
    h("h2", { id: "name-title", text: t("profile.name_title") }),
    h("p", { class: "note", text: t("profile.name_note") }),
    profile.name ? h("p", { class: "public-name" }, t("profile.name_current", { name: "" }),
      h("strong", { class: "name-text", dir: "auto", text: profile.name })) : null,
    h("form", { class: "inline", onsubmit: (event) => {
      event.preventDefault();
      save(input.value);
    } },
    h("label", { for: "public-name", text: t("profile.name_label") }), input,
    h("button", { type: "submit", class: "primary", text: t("profile.name_save") })),
    profile.name ? h("button", { type: "button", id: "remove-name", onclick: () => save(null),
      text: t("profile.name_remove") }) : null,
    error, status);
}

/** The player's own profile (id null) or a named player's. */
export async function profilePage(main, { go, id = null, notice = "" }) {
  replace(main, h("p", { text: t("common.loading") }));
  if (!id && !playerKey()) {
    failed(main, go, t("history.no_key"));
    return;
  }
  let profile;
  try {
    profile = id ? await ratingApi.player(id) : await ratingApi.profile();
  } catch (err) {
    if (!id && err.status === 404) {
      replace(main, h("div", { class: "home profile-page" }, back(go),
        h("h1", { text: t("profile.title") }),
        h("p", { class: "no-games", text: t("profile.no_games") })));
      return;
    }
    failed(main, go, t("profile.error", { message: err.message }));
    return;
  }
  const redraw = (words) => profilePage(main, { go, id, notice: words });
  const title = profile.own ? t("profile.title")
    : t("profile.title_of", { name: isolated(profile.name) });
  replace(main, h("div", { class: "home profile-page" },
    back(go),
    h("h1", { class: "profile-title", text: title }),
    notice ? h("p", { role: "status", class: "notice", text: notice }) : null,
    ratingPanel(profile),
    figures(profile),
    botPanel(profile),
    profile.own ? namePanel(profile, redraw) : null));
}

// ------------------------------------------------------------------ the leaderboard

/** The top named players by rating, and the viewer's own place. */
export async function leaderboardPage(main, { go }) {
  replace(main, h("p", { text: t("common.loading") }));
  let board;
  try {
    board = await ratingApi.leaderboard();
  } catch (err) {
    failed(main, go, t("board.error", { message: err.message }));
    return;
  }
  const you = board.you;
  let mine;
  if (!you) mine = t("board.you_unrated");
  else if (you.place === null) mine = t("board.you_needed", { count: num(you.needed) });
  else if (you.listed) mine = t("board.you_place", { place: num(you.place) });
  else mine = t("board.you_unlisted", { place: num(you.place) });
  const rows = board.players.map((p) => h("tr", {
    class: you && you.id === p.id ? "you" : null, "data-place": p.place },
  h("td", { text: num(p.place) }),
  h("td", { class: "players-cell" }, h("a", { href: `#/player/${encodeURIComponent(p.id)}`,
    class: "name-text", dir: "auto", text: p.name }),
  you && you.id === p.id ? h("span", { class: "note", text: ` ${t("board.you_mark")}` }) : null),
  h("td", { text: one(p.ordinal) }),
  h("td", { text: num(p.games) }),
  h("td", { text: num(p.wins) })));
  replace(main, h("div", { class: "home board-page" },
    back(go),
    h("h1", { text: t("board.title") }),
    h("p", { class: "note", text: t("board.note", { count: num(board.min_games) }) }),
    h("p", { class: "your-place", role: "status", text: mine }),
    board.players.length ? h("div", { class: "history-scroll" },
      h("table", { class: "history leaderboard" },
        h("caption", { class: "visually-hidden", text: t("board.title") }),
        h("thead", {}, h("tr", {}, ["place", "name", "rating", "games", "wins"].map((col) =>
          h("th", { scope: "col", text: t(`board.col.${col}`) })))),
        h("tbody", {}, rows)))
      : h("p", { class: "board-empty", text: t("board.empty") })));
}
