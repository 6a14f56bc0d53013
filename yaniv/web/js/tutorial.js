// The interactive tutorial (#/tutorial): a first round dealt from a fixed position, step by
// step. Each step says what to do and why; the move goes to the server (/api/tutorial), where
// the engine checks it, and the server answers with the position after it (and the others'
// turns). The page keeps only the step it is at. It ends with a real round against an easy bot.
import { h, replace } from "./dom.js";
import { t, tn, num } from "./i18n.js";
import { api } from "./api.js";
import { store } from "./store.js";
import { cardFace, cardBack, cardName, cardShort } from "./cards.js";
import { narrate } from "./narrate.js";

// The catalogue keys of the steps (written out so that each is checked to exist).
const SAY = { pair: "tut.pair", take: "tut.take", run: "tut.run", stock: "tut.stock",
  king: "tut.king", stock_again: "tut.stock_again", yaniv: "tut.yaniv", done: "tut.done" };
const REFUSED = { illegal: "tut.illegal", not_the_step: "tut.not_the_step", done: "tut.over" };

async function send(body) {
  const response = await fetch("/api/tutorial", { method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const err = new Error(data && data.error ? data.error : `HTTP ${response.status}`);
    err.code = data && data.code;
    throw err;
  }
  return data;
}

const isolate = (name) => `\u2068${name}\u2069`;

class Tutorial {
  constructor(main, { go }) {
    this.main = main;
    this.go = go;
    this.data = null;
    this.selected = [];
    this.feedback = null; // {code, words}
    this.busy = false;
    this.names = [t("tut.you"), t("tut.left"), t("tut.right")];
    this.load(0);
  }

  async load(step, move) {
    this.busy = true;
    try {
      this.data = await send({ step, move: move ?? null, names: this.names });
      this.selected = [];
      this.feedback = null;
    } catch (err) {
      this.selected = []; // a refused discard is picked again from the start
      this.feedback = { code: err.code || "error", words: err.message };
    }
    this.busy = false;
    this.render();
  }

  play(move) {
    if (!this.busy) this.load(this.data.step, move);
  }

  say() {
    const d = this.data;
    const v = d.view;
    const params = { value: num(d.hand_value), first: isolate(v.names[1]),
      second: isolate(v.names[2]), cards: num(v.hand_sizes[1]) };
    if (d.expect === "done" && v.result) {
      params.first_points = num(v.result.points[1]);
      params.second_points = num(v.result.points[2]);
    }
    return t(SAY[d.expect] || "tut.done", params);
  }

  render() {
    const d = this.data;
    if (!d) {
      replace(this.main, h("div", { class: "home" }, h("p", { class: "error", role: "alert",
        text: this.feedback ? this.feedback.words : t("common.loading") })));
      return;
    }
    const v = d.view;
    const done = d.expect === "done";
    const feedback = this.feedback ? h("p", { class: "error tut-feedback", role: "alert",
      "data-code": this.feedback.code,
      text: REFUSED[this.feedback.code] ? t(REFUSED[this.feedback.code])
        : this.feedback.words }) : null;
    replace(this.main, h("div", { class: "tutorial", "data-step": d.step, "data-expect": d.expect },
      h("section", { class: "panel tut-panel", "aria-labelledby": "tut-title" },
        h("h2", { id: "tut-title", text: t("tut.title") }),
        h("p", { class: "note tut-count", text: t("tut.step", { step: num(Math.min(d.step + 1,
          d.steps)), steps: num(d.steps) }) }),
        d.step === 0 ? h("p", { class: "tut-goal", text: t("tut.goal") }) : null,
        h("p", { class: "tut-say", id: "tut-say", role: "status", text: this.say() }),
        feedback,
        done ? h("div", { class: "buttons" },
          h("button", { class: "primary big", type: "button", id: "tut-play",
            onclick: () => this.realRound(), text: t("tut.play") }),
          h("button", { type: "button", id: "tut-again", onclick: () => this.load(0),
            text: t("tut.again") })) : null),
      this.felt(v, done),
      this.story(v)));
  }

  felt(v, done) {
    const start = v.phase === "start" && v.to_move === 0 && !done;
    const drawing = v.phase === "draw" && v.to_move === 0;
    // the previous discard: under this turn's own discard while the learner draws
    const top = (drawing && v.pile.length > 1 ? v.pile[v.pile.length - 2]
      : v.pile[v.pile.length - 1]) || [];
    const others = [1, 2].map((seat) => h("div", { class: "seat tut-seat", "data-seat": seat },
      h("span", { class: "seat-name", text: v.names[seat] }),
      h("span", { class: "seat-count", text: tn("seat.cards", v.hand_sizes[seat]) }),
      h("div", { class: "backs", "aria-hidden": "true" },
        Array.from({ length: v.hand_sizes[seat] }, () => h("span", { class: "back" }, cardBack())))));
    const pile = h("div", { class: "pile", role: "group", "aria-label": t("table.pile") },
      top.map((card) => {
        const takeable = drawing && v.pickable.includes(card);
        return h("button", { type: "button", class: `card${takeable ? " glow" : ""}`,
          "data-card": card, disabled: !takeable,
          "aria-label": takeable ? t("tut.take_card", { card: cardName(card) }) : cardName(card),
          onclick: () => this.play(`draw ${card}`) }, cardFace(card));
      }));
    const stock = h("div", { class: "stock" },
      h("button", { type: "button", class: `card${drawing ? " glow" : ""}`, id: "tut-stock",
        disabled: !drawing, "aria-label": tn("table.stock", v.stock_size),
        onclick: () => this.play("draw stock") }, cardBack()),
      h("span", { class: "count", text: num(v.stock_size) }));
    const hand = h("div", { class: "hand", role: "group", "aria-label": t("tut.hand") },
      v.hand.map((card) => {
        const chosen = this.selected.includes(card);
        return h("button", { type: "button", class: `card${chosen ? " selected" : ""}`,
          "data-card": card, "aria-pressed": chosen ? "true" : "false", disabled: !start,
          "aria-label": cardName(card),
          onclick: () => {
            this.selected = chosen ? this.selected.filter((c) => c !== card)
              : [...this.selected, card];
            this.render();
          } }, cardFace(card));
      }));
    const order = (cards) => v.hand.filter((c) => cards.includes(c));
    return h("section", { class: "felt tut-felt", "aria-label": t("tut.table") },
      h("div", { class: "tut-others" }, others),
      h("div", { class: "centre" }, stock, pile),
      h("div", { class: "me" },
        h("span", { class: "hand-value", text: t("table.hand_value",
          { value: num(this.data.hand_value) }) }),
        hand,
        h("div", { class: "actions buttons" },
          h("button", { type: "button", class: "primary", id: "tut-discard",
            disabled: !start || !this.selected.length,
            onclick: () => this.play(`discard ${order(this.selected).join(" ")}`),
            text: t("action.discard") }),
          h("button", { type: "button", class: "yaniv", id: "tut-yaniv", disabled: !start,
            onclick: () => this.play("yaniv"), text: t("action.yaniv") }))));
  }

  story(v) {
    const lines = narrate(v, t, cardShort, tn);
    return h("section", { class: "panel log", "aria-labelledby": "tut-log-title" },
      h("h2", { id: "tut-log-title", text: t("log.title") }),
      h("ol", {}, lines.map((line) => h("li", { text: line }))));
  }

  /** The real round that ends the tutorial: a game against an easy bot. */
  async realRound() {
    const name = store.name() || t("home.default_name");
    const rules = { preset: "standard" };
    try {
      const answer = await api.newGame(name, ["easy"], rules);
      store.setSeat(answer.room, { token: answer.token, seat: answer.seat, host: true,
        setup: { kind: "computer", opponents: ["easy"], rules } });
      this.go(`#/room/${answer.room}`);
    } catch (err) {
      this.feedback = { code: "error", words: err.message };
      this.render();
    }
  }
}

/** The tutorial's page. */
export function tutorialPage(main, { go }) {
  return new Tutorial(main, { go });
}
