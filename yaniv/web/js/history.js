// The player's history (#/history): the games this browser's player key took part in, the
// statistics, and a replay viewer (#/history/ID) that steps through a finished game move by
// move with every hand shown. Everything the server sent is put in as text, never markup.
import { h, replace } from "./dom.js";
import { t, tn, num, language } from "./i18n.js";
import { api, playerKey } from "./api.js";
import { cardFace, cardsName, cardName, cardShort, cardOrder, handValue } from "./cards.js";
import { store } from "./store.js";
import { presetName } from "./names.js";
import { sheetsPanel } from "./scorekeeper.js";

const PAGE = 50;

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" })
    .format(date);
}

function failure(err) {
  return h("p", { class: "error", role: "alert",
    text: t("history.error", { message: err && err.message ? err.message : String(err) }) });
}

function names(list) {
  return list.join(t("list.separator"));
}

/** A player's name, isolated (U+2068 ... U+2069) so that a name in one script keeps its
 * order in a line of the other (a Latin name in a Hebrew sentence, say). */
function playerName(player) {
  return `\u2068${player && typeof player.name === "string" ? player.name : "?"}\u2069`;
}

// ------------------------------------------------------------------ the list and statistics

function statistics(stats) {
  const none = t("history.none_yet");
  const rate = stats.success_rate === null ? none
    : num(stats.success_rate, { style: "percent", maximumFractionDigits: 0 });
  const average = stats.average_call_total === null ? none
    : num(stats.average_call_total, { maximumFractionDigits: 1 });
  const rows = [
    ["history.stat.games", num(stats.games)],
    ["history.stat.wins", num(stats.wins)],
    ["history.stat.yaniv_calls", num(stats.yaniv_calls)],
    ["history.stat.success_rate", rate],
    ["history.stat.assafs_suffered", num(stats.assafs_suffered)],
    ["history.stat.average_call_total", average],
    ["history.stat.assafs_made", num(stats.assafs_made)],
    ["history.stat.deliberate_calls", num(stats.deliberate_calls)],
  ];
  return h("section", { class: "panel", "aria-labelledby": "stats-title" },
    h("h2", { id: "stats-title", text: t("history.stats") }),
    h("dl", { class: "stats" }, rows.map(([key, value]) => h("div", { class: "stat" },
      h("dt", { text: t(key) }), h("dd", { text: value })))));
}

function resultText(game) {
  if (game.status !== "over" || !game.result) return t("history.playing");
  if (game.result.won) return t("history.won");
  return t("history.place", { place: num(game.result.place), count: num(game.players.length) });
}

function gameRow(game, go) {
  const players = game.players.map((p, i) => (i === game.seat
    ? t("history.you_named", { name: playerName(p) }) : playerName(p)));
  let action = null;
  if (game.status === "over") {
    action = h("button", { type: "button", "data-game": game.id,
      "aria-label": t("history.replay_label", { date: when(game.started), room: game.room }),
      onclick: () => go(`#/history/${game.id}`), text: t("history.replay") });
  } else if (store.seat(game.room)) {
    action = h("button", { type: "button", onclick: () => go(`#/room/${game.room}`),
      text: t("history.continue") });
  }
  return h("tr", {},
    h("td", { text: when(game.started) }),
    h("td", { class: "code-cell", text: game.number > 1 ? `${game.room} · ${num(game.number)}`
      : game.room }),
    h("td", { class: "players-cell", text: names(players) }),
    h("td", { text: game.rules === "custom" ? t("history.rules_custom") : presetName(game.rules) }),
    h("td", { text: resultText(game) }),
    h("td", { text: game.result ? num(game.result.score) : "" }),
    h("td", {}, action));
}

/** The history page: statistics, then the games, newest first. */
export async function historyPage(main, { go }) {
  replace(main, h("p", { text: t("common.loading") }));
  if (!playerKey()) {
    replace(main, h("div", { class: "home" }, h("p", { text: t("history.no_key") }),
      h("button", { type: "button", onclick: () => go("#/"), text: t("nav.home") })));
    return;
  }
  let data;
  try {
    data = await api.history(PAGE, 0);
  } catch (err) {
    replace(main, h("div", { class: "home" }, failure(err),
      h("button", { type: "button", onclick: () => go("#/"), text: t("nav.home") })));
    return;
  }
  const games = [...data.games];
  const body = h("tbody");
  const more = h("button", { type: "button", text: t("history.more") });
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const fill = () => {
    replace(body, games.map((game) => gameRow(game, go)));
    more.hidden = games.length >= data.total;
  };
  more.addEventListener("click", async () => {
    try {
      const page = await api.history(PAGE, games.length);
      games.push(...page.games);
      data.total = page.total;
      fill();
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
  fill();
  const list = games.length
    ? h("div", { class: "history-scroll" }, h("table", { class: "history" },
      h("caption", { class: "visually-hidden", text: t("history.games") }),
      h("thead", {}, h("tr", {}, ["date", "room", "players", "rules", "result", "score", "actions"]
        .map((col) => h("th", { scope: "col", text: t(`history.col.${col}`) })))),
      body))
    : h("p", { text: t("history.none") });
  replace(main, h("div", { class: "home history-page" },
    h("div", { class: "inline" },
      h("h1", { text: t("history.title") }),
      h("button", { type: "button", class: "link", onclick: () => go("#/"),
        text: t("nav.home") })),
    statistics(data.stats),
    h("section", { class: "panel", "aria-labelledby": "games-title" },
      h("h2", { id: "games-title", text: t("history.games") }),
      list, games.length ? more : null, error),
    sheetsPanel()));
}

// ------------------------------------------------------------------ the replay viewer

function moveWords(step, players) {
  const name = playerName(players[step.seat]);
  const [verb, ...rest] = step.move.split(" ");
  const cards = rest.map(cardShort).join(" ");
  switch (verb) {
    case "yaniv": return t("history.move.yaniv", { name });
    case "pass": return t("history.move.pass", { name });
    case "discard": return t("history.move.discard", { name, cards });
    case "slap": return t("history.move.slap", { name, cards });
    case "draw":
      if (rest[0] !== "stock") return t("history.move.take", { name, cards });
      return step.drawn ? t("history.move.draw_stock_card", { name, card: cardShort(step.drawn) })
        : t("history.move.draw_stock", { name });
    default: return `${name}: ${step.move}`;
  }
}

function resultWords(result, players) {
  const name = playerName(players[result.caller]);
  let text;
  if (result.kind === "yaniv") {
    text = t("history.result.yaniv", { name, value: num(result.hand_values[result.caller]) });
  } else if (result.kind === "assaf") {
    const by = names(result.assafers.map((s) => playerName(players[s])));
    text = t("history.result.assaf", { name, by });
  } else {
    text = t("history.result.deliberate", { name });
  }
  if (result.game_winners && result.game_winners.length) {
    text += ` ${t("history.result.game_over",
      { names: names(result.game_winners.map((s) => playerName(players[s]))) })}`;
  }
  return text;
}

/** What the step shows in words. */
function stepWords(step, players) {
  if (step.move === null) {
    return t("history.deal", { round: num(step.round),
      name: playerName(players[step.to_move]) });
  }
  // the call that ends a round is told by the result's words alone ("Yaniv! Dana wins the
  // round with 5."), not "Dana calls Yaniv! Yaniv! ..."
  // a move the computer made for an absent player is not credited to the player
  const by = (words) => (step.by === "stand_in" ? t("history.stand_in", { words }) : words);
  if (step.result && step.move === "yaniv") return by(resultWords(step.result, players));
  const words = by(moveWords(step, players));
  if (!step.result) return words;
  return `${words}${/[.!]$/.test(words) ? "" : "."} ${resultWords(step.result, players)}`;
}

/** A row of cards; a hand is sorted, a discard (``laid``) keeps the order it was laid in, so
 * that a joker in a run stands where it was put (4♦ ★ 6♦). */
function cardRow(cards, label, extra, laid = false) {
  const sorted = laid ? [...cards] : [...cards].sort((a, b) => cardOrder(a) - cardOrder(b));
  return h("div", { class: `replay-cards ${extra || ""}`, role: "img",
    "aria-label": cards.length ? `${label}: ${cardsName(sorted)}`
      : `${label}: ${t("history.no_cards")}` },
  sorted.map((card) => h("span", { class: "card", title: cardName(card) }, cardFace(card))));
}

/** The replay viewer of game ``id``: an object with render() and destroy() (app.js keeps it
 * as the screen, so a change of language redraws it). */
export class ReplayScreen {
  constructor(main, id, { go }) {
    this.main = main;
    this.id = id;
    this.go = go;
    this.game = null;
    this.error = null;
    this.index = 0;
    this.spoken = null; // the step last told to screen readers
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.render();
    this.load();
  }

  async load() {
    try {
      this.game = await api.historyGame(this.id);
      this.index = 0;
    } catch (err) {
      this.error = err;
    }
    this.render();
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
  }

  step(to) {
    if (!this.game) return;
    const last = this.game.steps.length - 1;
    const index = Math.max(0, Math.min(last, to));
    if (index === this.index) return;
    this.index = index;
    this.render();
  }

  key(event) {
    if (!this.game || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
    const rtl = document.documentElement.dir === "rtl";
    const forward = rtl ? "ArrowLeft" : "ArrowRight";
    const back = rtl ? "ArrowRight" : "ArrowLeft";
    if (event.key === forward || event.key === "PageDown") this.step(this.index + 1);
    else if (event.key === back || event.key === "PageUp") this.step(this.index - 1);
    else if (event.key === "Home") this.step(0);
    else if (event.key === "End") this.step(this.game.steps.length - 1);
    else return;
    event.preventDefault();
  }

  render() {
    const back = h("button", { type: "button", class: "link", onclick: () => this.go("#/history"),
      text: t("history.back") });
    if (this.error) {
      replace(this.main, h("div", { class: "home" }, failure(this.error), back));
      return;
    }
    if (!this.game) {
      replace(this.main, h("div", { class: "home" }, h("p", { text: t("common.loading") }), back));
      return;
    }
    const game = this.game;
    const steps = game.steps;
    const step = steps[this.index];
    const players = game.players;
    const last = steps.length - 1;
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.step : null;
    const control = (name, to, disabled) => h("button", { type: "button", "data-step": name,
      "aria-label": t(`history.${name}_label`), disabled, onclick: () => this.step(to),
      text: t(`history.${name}`) });
    const seats = players.map((player, seat) => {
      const hand = step.hands[seat] || [];
      const label = seat === game.seat ? t("history.you_named", { name: playerName(player) })
        : playerName(player);
      const gained = step.result ? step.result.points[seat] : null;
      return h("li", { class: `replay-seat${step.to_move === seat ? " turn" : ""}${
        step.out[seat] ? " out" : ""}${step.seat === seat ? " moved" : ""}` },
      h("div", { class: "seat-head" },
        h("span", { class: "seat-name", text: label }),
        step.to_move === seat ? h("span", { class: "seat-status", text: t("history.to_move") })
          : null,
        step.out[seat] ? h("span", { class: "seat-status", text: t("history.out") }) : null),
      h("div", { class: "seat-status" },
        t("history.score", { score: num(step.scores[seat]) }),
        gained ? ` (${t("history.points", { points: num(gained) })})` : "",
        hand.length ? ` · ${t("history.hand_value", { value: num(handValue(hand)) })}` : ""),
      cardRow(hand, t("history.hand_of", { name: playerName(player) })));
    });
    replace(this.main, h("div", { class: "home replay" },
      h("div", { class: "inline" },
        h("h1", { text: t("history.replay_title", { room: game.room, number: num(game.number) }) }),
        back),
      h("p", { class: "note", text: `${when(game.started)} · ${
        game.rules === "custom" ? t("history.rules_custom") : presetName(game.rules)}` }),
      h("div", { class: "inline replay-controls", role: "group",
        "aria-label": t("history.controls") },
      control("first", 0, this.index === 0),
      control("prev", this.index - 1, this.index === 0),
      h("span", { class: "replay-count", text: t("history.step",
        { n: num(this.index + 1), total: num(steps.length), round: num(step.round) }) }),
      control("next", this.index + 1, this.index === last),
      control("last", last, this.index === last)),
      h("p", { class: "replay-words", text: stepWords(step, players) }),
      h("div", { class: "replay-middle" },
        h("div", {},
          h("h2", { class: "replay-label", text: t("history.pile") }),
          cardRow(step.pile, t("history.pile"), "replay-pile", true)),
        h("p", { text: tn("history.stock", step.stock) })),
      h("ol", { class: "replay-seats" }, seats),
      h("p", { class: "note", text: t("history.keys") })));
    // the page's live region (index.html) tells each new step; this page is redrawn whole
    const live = document.getElementById("announce");
    if (live && this.spoken !== this.index) {
      this.spoken = this.index;
      live.textContent = `${t("history.step", { n: num(this.index + 1), total: num(steps.length),
        round: num(step.round) })}: ${stepWords(step, players)}`;
    }
    if (focused) {
      const again = this.main.querySelector(`[data-step="${focused}"]`);
      if (again && !again.disabled) again.focus();
      else {
        const other = this.main.querySelector(".replay-controls button:not(:disabled)");
        if (other) other.focus();
      }
    }
  }
}
