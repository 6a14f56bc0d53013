// The score keeper for a game played with real cards (#/scores, #/scores/CODE): name the
// players and the rules, then after each round who called Yaniv and each hand, as a value or
// as the cards. The server scores every round with the engine's own scoring (/api/scores);
// this page only shows the numbers it sends, with the score sheet's words (sheet.js). A
// sheet's link is read-only for anyone but the browser that keeps it.
import { h, replace } from "./dom.js";
import { t, num, language } from "./i18n.js";
import { playerKey } from "./api.js";
import { store } from "./store.js";
import { presetName } from "./names.js";
import { roundPoints, roundScore } from "./sheet.js";
import { rulesInWords, standardRules } from "./ruleswords.js";

const CODE = /^[A-Za-z0-9_-]{10}$/;

async function call(method, path, body) {
  const key = playerKey();
  const init = { method, headers: { Accept: "application/json", ...(key ? { "X-Player-Key": key } : {}) } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error(String(err.message || err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = new Error(data && typeof data.error === "string" ? data.error
      : `HTTP ${response.status}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

const sheetPath = (code) => `/api/scores/${encodeURIComponent(code)}`;
const scores = {
  create: (names, rules) => call("POST", "/api/scores", { names, rules }),
  mine: () => call("GET", "/api/scores"),
  get: (code) => call("GET", sheetPath(code)),
  add: (code, entry) => call("POST", `${sheetPath(code)}/rounds`, entry),
  edit: (code, number, entry) => call("PUT", `${sheetPath(code)}/rounds/${number}`, entry),
  remove: (code, number) => call("DELETE", `${sheetPath(code)}/rounds/${number}`),
};

const isolate = (name) => `\u2068${name}\u2069`;

function errorLine() {
  return h("p", { class: "error", role: "alert", hidden: true });
}

function showError(el, err) {
  el.textContent = err && err.message ? err.message : String(err);
  el.hidden = false;
}

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso || "");
  return new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" })
    .format(date);
}

// ------------------------------------------------------------------ #/scores: a new sheet

/** The score keeper's first page: a new sheet (players, rules) and the sheets kept before.
 * ``rulesForm`` and ``levels`` are the home page's rules form and the server's levels. */
export async function scoresHome(main, { go, rulesForm, levels }) {
  replace(main, h("p", { text: t("common.loading") }));
  let data;
  try {
    data = await levels();
  } catch (err) {
    replace(main, h("p", { class: "error", role: "alert", text: t("error.server",
      { message: err.message }) }));
    return;
  }
  const setup = store.setup() || {};
  const rules = rulesForm(data, setup.rules);
  const list = h("ol", { class: "sk-players" });
  const inputs = [];
  const error = errorLine();
  const addButton = h("button", { type: "button", id: "sk-add-player",
    onclick: () => { addPlayer(""); inputs[inputs.length - 1].focus(); },
    text: t("sk.add_player") });
  const draw = () => {
    replace(list, inputs.map((input, i) => h("li", {},
      h("label", { for: input.id, class: "visually-hidden",
        text: t("sk.player_n", { n: num(i + 1) }) }),
      input,
      inputs.length > 2 ? h("button", { type: "button", class: "sk-remove",
        "aria-label": t("sk.remove_player", { n: num(i + 1) }), text: "×",
        onclick: () => { inputs.splice(i, 1); renumber(); draw(); } }) : null)));
    addButton.disabled = inputs.length >= 8;
  };
  const renumber = () => inputs.forEach((input, i) => {
    input.id = `sk-name-${i}`;
    input.placeholder = t("sk.player_n", { n: num(i + 1) });
  });
  const addPlayer = (value) => {
    inputs.push(h("input", { type: "text", maxlength: 40, autocomplete: "off", value }));
    renumber();
    draw();
  };
  addPlayer(store.name() || "");
  addPlayer("");
  addPlayer("");
  const submit = async (event) => {
    event.preventDefault();
    const names = inputs.map((input) => input.value.trim()).filter(Boolean);
    try {
      const sheet = await scores.create(names, rules.rules());
      go(`#/scores/${sheet.code}`);
    } catch (err) {
      showError(error, err);
    }
  };
  replace(main, h("div", { class: "home scorekeeper" },
    h("form", { class: "panel", id: "sk-new", onsubmit: submit, "aria-labelledby": "sk-title" },
      h("h2", { id: "sk-title", text: t("sk.title") }),
      h("p", { class: "note", text: t("sk.note") }),
      h("fieldset", {}, h("legend", { text: t("sk.players") }),
        h("p", { class: "note", text: t("sk.players_note") }), list, addButton),
      rules.element,
      h("button", { class: "primary big", type: "submit", id: "sk-start", text: t("sk.start") }),
      error),
    sheetsPanel()));
}

/** The sheets this browser's player key keeps, newest first: a panel that fills itself (the
 * score keeper's page and the history show it). */
export function sheetsPanel() {
  const title = () => h("h2", { id: "sk-mine-title", text: t("sk.mine_title") });
  const panel = h("section", { class: "panel sk-mine", "aria-labelledby": "sk-mine-title" },
    title(), h("p", { class: "note", text: t("common.loading") }));
  scores.mine().then(({ sheets }) => {
    replace(panel, title(), sheets.length ? h("ul", { class: "sk-list" }, sheets.map((s) =>
      h("li", {},
        h("a", { href: `#/scores/${s.code}`, "data-code": s.code,
          text: s.names.map(isolate).join(t("list.separator")) }),
        " ", h("span", { class: "note", text: t("sk.list_line", { rounds: num(s.rounds),
          preset: presetName(s.preset), date: when(s.updated) }) }),
        s.over ? h("span", { class: "note", text: ` ${t("sk.list_over")}` }) : null)))
      : h("p", { class: "note", text: t("sk.mine_none") }));
  }).catch((err) => {
    replace(panel, title(), h("p", { class: "error", text: err.message }));
  });
  return panel;
}

// ------------------------------------------------------------------ #/scores/CODE: the sheet

/** What a hand field holds, as the server takes it: a number, the cards' text, or null. */
function handOf(text) {
  const value = text.trim();
  if (!value) return null;
  return /^[0-9]+$/.test(value) ? Number(value) : value;
}

/** A hand as it was entered, for the field: "12", or "7H 3C". */
function handText(hand) {
  if (hand === null || hand === undefined) return "";
  return Array.isArray(hand) ? hand.join(" ") : String(hand);
}

class SheetPage {
  constructor(main, code, { go }) {
    this.main = main;
    this.code = code;
    this.go = go;
    this.sheet = null;
    this.editing = null; // the number of the round being corrected
    this.standard = null;
    this.load();
  }

  async load() {
    replace(this.main, h("p", { text: t("common.loading") }));
    try {
      [this.sheet, this.standard] = await Promise.all([scores.get(this.code),
        standardRules().catch(() => null)]);
    } catch (err) {
      replace(this.main, h("div", { class: "home" }, h("p", { class: "error", role: "alert",
        text: err.status === 404 ? t("sk.no_sheet") : err.message }),
      h("a", { class: "button-link", href: "#/scores", text: t("sk.title") })));
      return;
    }
    this.render();
  }

  render(focus) {
    const s = this.sheet;
    document.title = `${t("sk.sheet_title")} · ${t("app.title")}`;
    const rulesBox = h("details", { class: "panel sk-rules", id: "sk-rules" },
      h("summary", { text: t("rw.title") }),
      rulesInWords(s.rules, this.standard, { preset: s.preset, id: "sk-rules-words" }));
    replace(this.main, h("div", { class: "scorekeeper sk-sheet" },
      h("section", { class: "panel", "aria-labelledby": "sk-sheet-title" },
        h("h2", { id: "sk-sheet-title", text: t("sk.sheet_title") }),
        h("p", { class: "sk-status", role: "status", text: this.status() }),
        this.table(),
        s.mine ? this.share() : h("p", { class: "note sk-readonly", text: t("sk.read_only") })),
      s.mine && (!s.over || this.editing) ? this.form() : null,
      rulesBox,
      h("p", {}, h("a", { class: "button-link", href: "#/scores", text: t("sk.new_sheet") }))));
    if (focus) {
      const el = document.getElementById(focus);
      if (el) el.focus();
    }
  }

  name(seat) {
    return isolate(this.sheet.names[seat]);
  }

  /** Who won, or who starts the next round. */
  status() {
    const s = this.sheet;
    if (s.over) {
      return t("sk.winners", { names: s.winners.map((w) => this.name(w))
        .join(t("list.separator")) });
    }
    return t("sk.next", { round: num(s.rounds.length + 1), name: this.name(s.next_starter) });
  }

  table() {
    const s = this.sheet;
    const penalty = s.rules.assaf_penalty;
    let outBefore = s.names.map(() => false);
    const rows = s.rounds.map((round) => {
      const r = round.result;
      const cells = s.names.map((_, seat) => {
        if (outBefore[seat]) return h("td", { class: "sheet-out" });
        const gone = r.newly_out.includes(seat);
        return h("td", { class: [seat === r.caller ? "sk-caller" : "", gone ? "sheet-gone" : ""]
          .join(" ").trim() || null, "data-seat": seat },
        h("span", { class: "sheet-points", text: roundPoints(r, seat, penalty, t, num) }),
        h("span", { class: "sheet-total", text: roundScore(r, seat, t, num) }));
      });
      outBefore = r.out;
      return h("tr", { "data-round": round.number, class: this.editing === round.number
        ? "sk-editing" : null },
      h("th", { scope: "row" }, h("span", { text: num(round.number) }),
        s.mine ? h("button", { type: "button", class: "sk-edit", id: `sk-edit-${round.number}`,
          "aria-label": t("sk.edit_round", { round: num(round.number) }), text: t("sk.edit"),
          onclick: () => { this.editing = round.number; this.render("sk-caller"); } }) : null),
      cells);
    });
    return h("div", { class: "result-wrap sk-wrap" }, h("table", { class: "sheet sk-table" },
      h("caption", { class: "visually-hidden", text: t("sheet.caption") }),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t("scores.round") }),
        s.names.map((name) => h("th", { scope: "col", text: name })))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: s.names.length + 1,
        class: "note", text: t("sk.no_rounds") }))),
      h("tfoot", {}, h("tr", {},
        h("th", { scope: "row", text: t("sheet.total") }),
        s.scores.map((score, seat) => h("td", { class: s.out[seat] ? "sheet-gone" : null,
          "data-seat": seat, text: s.out[seat] ? `${num(score)} ${t("sheet.out")}`
            : num(score) }))))));
  }

  share() {
    const link = `${location.origin}${location.pathname}#/scores/${this.code}`;
    const status = h("span", { role: "status", class: "note" });
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        status.textContent = t("room.copied");
      } catch {
        status.textContent = link;
      }
    };
    return h("div", { class: "sk-share" },
      h("label", { for: "sk-link", text: t("sk.share") }),
      h("div", { class: "inline" },
        h("input", { id: "sk-link", type: "text", readonly: true, value: link }),
        h("button", { type: "button", onclick: copy, text: t("room.copy") })),
      status);
  }

  /** The round's entry: who called, and each hand still in the game; a correction of an
   * earlier round when one is being edited. */
  form() {
    const s = this.sheet;
    const number = this.editing || s.rounds.length + 1;
    const round = this.editing ? s.rounds[this.editing - 1] : null;
    // who is in the game at this round: out after the round before it
    const before = number > 1 ? s.rounds[number - 2].result.out : s.names.map(() => false);
    const seats = s.names.map((_, seat) => seat).filter((seat) => !before[seat]);
    const caller = h("select", { id: "sk-caller" }, seats.map((seat) =>
      h("option", { value: seat, text: s.names[seat] })));
    if (round) caller.value = String(round.caller);
    const [low, high] = s.value_bounds;
    const fields = {};
    const error = errorLine();
    const rows = seats.map((seat) => {
      const input = h("input", { id: `sk-hand-${seat}`, type: "text", autocomplete: "off",
        autocapitalize: "characters", spellcheck: "false", maxlength: 60,
        placeholder: t("sk.hand_placeholder"),
        "aria-describedby": "sk-hand-note",
        value: round ? handText(round.hands[seat]) : "" });
      fields[seat] = input;
      return h("div", { class: "option sk-hand" },
        h("label", { for: input.id, text: s.names[seat] }), input);
    });
    const entry = () => ({ caller: Number(caller.value),
      hands: s.names.map((_, seat) => (seat in fields ? handOf(fields[seat].value) : null)) });
    const done = (sheet) => {
      this.sheet = sheet;
      this.editing = null;
      this.render("sk-hand-" + String(sheet.names.findIndex((_, seat) => !sheet.out[seat])));
    };
    const submit = async (event) => {
      event.preventDefault();
      try {
        done(this.editing ? await scores.edit(this.code, this.editing, entry())
          : await scores.add(this.code, entry()));
      } catch (err) {
        showError(error, err);
      }
    };
    const remove = async () => {
      try {
        done(await scores.remove(this.code, this.editing));
      } catch (err) {
        showError(error, err);
      }
    };
    return h("form", { class: "panel sk-entry", id: "sk-entry", onsubmit: submit,
      "aria-labelledby": "sk-entry-title" },
    h("h2", { id: "sk-entry-title", text: this.editing
      ? t("sk.editing", { round: num(number) }) : t("sk.round", { round: num(number) }) }),
    h("div", { class: "option" }, h("label", { for: "sk-caller", text: t("sk.caller") }), caller),
    h("p", { class: "note", id: "sk-hand-note", text: t("sk.hand_note",
      { low: num(low), high: num(high) }) }),
    rows,
    h("div", { class: "buttons" },
      h("button", { class: "primary", type: "submit", id: "sk-score",
        text: this.editing ? t("sk.save_round", { round: num(number) }) : t("sk.score") }),
      this.editing ? h("button", { type: "button", id: "sk-remove", onclick: remove,
        text: t("sk.remove_round", { round: num(number) }) }) : null,
      this.editing ? h("button", { type: "button", id: "sk-cancel",
        onclick: () => { this.editing = null; this.render(); }, text: t("sk.cancel") }) : null),
    error);
  }
}

/** The sheet's page. */
export function sheetPage(main, code, { go }) {
  if (!CODE.test(code)) {
    replace(main, h("div", { class: "home" }, h("p", { class: "error", role: "alert",
      text: t("sk.no_sheet") })));
    return null;
  }
  return new SheetPage(main, code, { go });
}
