// Pass-and-play (#/pass, #/pass/CODE): several people at one device, against each other and
// bots. It runs through the ordinary game API: a room with a seat for each person, all of
// them held by this browser (one socket each, so that no seat is taken for absent), and
// the computer in the others. Only the seat whose turn it is may be shown, and only after the
// screen was handed over: between turns the table is removed from the page (not hidden:
// gone), and a cover says "Pass to Dana: tap to see your cards". The server sends each
// socket its own seat's view, so a hidden hand is never in the page at all.
import { h, replace } from "./dom.js";
import { t, num } from "./i18n.js";
import { api } from "./api.js";
import { store } from "./store.js";
import { levelName } from "./names.js";
import { GameSocket } from "./socket.js";
import { TableScreen } from "./table.js";

const FINISHED = new Set(["round_over", "game_over"]);
const isolate = (name) => `\u2068${name}\u2069`;

function readPass(code) {
  try {
    return JSON.parse(localStorage.getItem(`yaniv.pass.${code}`));
  } catch {
    return null;
  }
}

function writePass(code, value) {
  try {
    localStorage.setItem(`yaniv.pass.${code}`, JSON.stringify(value));
  } catch {
    // private mode: the game goes on for this visit
  }
}

function errorLine() {
  return h("p", { class: "error", role: "alert", hidden: true });
}

// ------------------------------------------------------------------ #/pass: the setup

/** The setup: the people's names (in seat order), the bots and their level, the rules. */
export async function passSetup(main, { go, rulesForm, levels }) {
  replace(main, h("p", { text: t("common.loading") }));
  let data;
  try {
    data = await levels();
  } catch (err) {
    replace(main, h("p", { class: "error", role: "alert", text: t("error.server",
      { message: err.message }) }));
    return;
  }
  const rules = rulesForm(data, (store.setup() || {}).rules);
  const people = [store.name() || "", ""].map((value, i) => h("input", { type: "text",
    id: `pp-name-${i}`, maxlength: 40, autocomplete: "off", value,
    placeholder: t("sk.player_n", { n: num(i + 1) }) }));
  const list = h("ol", { class: "sk-players" });
  const drawPeople = () => replace(list, people.map((input, i) => h("li", {},
    h("label", { for: input.id, class: "visually-hidden",
      text: t("sk.player_n", { n: num(i + 1) }) }), input)));
  drawPeople();
  const bots = h("select", { id: "pp-bots" }, [0, 1, 2, 3, 4, 5, 6].map((n) =>
    h("option", { value: n, text: num(n) })));
  bots.value = "1";
  const level = h("select", { id: "pp-level" }, data.levels.map((l) =>
    h("option", { value: l, text: levelName(l) })));
  level.value = data.levels.includes("easy") ? "easy" : data.levels[0];
  const error = errorLine();
  const more = h("button", { type: "button", id: "pp-add", text: t("sk.add_player"),
    onclick: () => {
      if (people.length >= 8) return;
      people.push(h("input", { type: "text", id: `pp-name-${people.length}`, maxlength: 40,
        autocomplete: "off", placeholder: t("sk.player_n", { n: num(people.length + 1) }) }));
      drawPeople();
    } });
  const submit = async (event) => {
    event.preventDefault();
    const names = people.map((input) => input.value.trim()).filter(Boolean);
    const count = Number(bots.value);
    if (names.length < 2) {
      error.textContent = t("pp.two_people");
      error.hidden = false;
      return;
    }
    if (names.length + count > 8) {
      error.textContent = t("pp.too_many");
      error.hidden = false;
      return;
    }
    try {
      const chosen = rules.rules();
      const host = await api.newRoom(names[0], chosen);
      const code = host.room;
      const seats = [{ seat: host.seat, token: host.token, name: names[0] }];
      for (const name of names.slice(1)) {
        const answer = await api.join(code, name);
        seats.push({ seat: answer.seat, token: answer.token, name });
      }
      if (count) {
        await api.settings(code, host.token, { bots: Array.from({ length: count },
          (_, k) => ({ seat: names.length + k, level: level.value })) });
      }
      writePass(code, { seats });
      await api.start(code, host.token);
      go(`#/pass/${code}`);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  replace(main, h("div", { class: "home" },
    h("form", { class: "panel", id: "pp-new", onsubmit: submit, "aria-labelledby": "pp-title" },
      h("h2", { id: "pp-title", text: t("pp.title") }),
      h("p", { class: "note", text: t("pp.note") }),
      h("fieldset", {}, h("legend", { text: t("pp.people") }), list, more),
      h("div", { class: "option" }, h("label", { for: "pp-bots", text: t("pp.bots") }), bots),
      h("div", { class: "option" }, h("label", { for: "pp-level", text: t("room.bot_level") }),
        level),
      rules.element,
      h("button", { class: "primary big", type: "submit", id: "pp-start", text: t("pp.start") }),
      error)));
}

// ------------------------------------------------------------------ #/pass/CODE: the game

/** The game at one device: the cover between turns, the table of the seat whose turn it is. */
export class PassPlay {
  constructor(main, code, { go }) {
    this.main = main;
    this.code = code;
    this.go = go;
    const saved = readPass(code);
    this.seats = saved && Array.isArray(saved.seats) ? saved.seats : [];
    this.view = null; // the latest view of any person's seat: its public part decides the turn
    this.shown = null; // the seat whose table is on the page
    this.turnSeen = null; // the seat to move in the last view, to see the turn leave a seat
    this.table = null;
    this.root = null;
    this.readied = null; // the round whose end the people off the screen were made ready for
    if (!this.seats.length) {
      replace(main, h("div", { class: "home" }, h("p", { class: "error", role: "alert",
        text: t("pp.not_here") }), h("a", { class: "button-link", href: "#/pass",
        text: t("pp.title") })));
      this.sockets = [];
      return;
    }
    // a socket per person: every seat stays present (no computer stands in for it), and at a
    // round's end the people not on screen are ready when the one on screen is
    this.sockets = this.seats.map((s) => new GameSocket(code, s.token, {
      onMessage: (message) => this.receive(s.seat, message),
      onStatus: () => {},
    }));
    this.cover();
  }

  destroy() {
    if (this.table) this.table.destroy();
    this.table = null;
    for (const socket of this.sockets) socket.close();
    this.sockets = [];
  }

  /** Re-render after a change of language. */
  render() {
    if (this.table) this.table.render();
    else this.cover(true);
  }

  person(seat) {
    return this.seats.find((s) => s.seat === seat) || null;
  }

  /** The person who plays next: the seat to move, else the first person after it. */
  nextPerson() {
    const v = this.view;
    if (!v) return this.seats[0];
    const n = v.names.length;
    const from = v.to_move ?? v.starter ?? 0;
    for (let k = 0; k < n; k += 1) {
      const seat = (from + k) % n;
      if (this.person(seat) && !v.out.includes(seat)) return this.person(seat);
    }
    return this.seats[0];
  }

  receive(seat, message) {
    if (message.type !== "state" || !message.view) return;
    // one seat's socket decides whose turn it is (the turn is public): the sockets' states
    // come each in order, but not in order with each other's
    if (seat !== this.seats[0].seat) return;
    const v = message.view;
    this.view = v;
    if (FINISHED.has(v.phase)) {
      if (this.shown !== null) this.readyOthers();
      return;
    }
    const before = this.turnSeen;
    this.turnSeen = v.to_move;
    // The table goes when the turn leaves the person on screen, or comes to another person;
    // one who took the device while the computer still plays watches it to their own turn.
    if (this.shown === null) this.cover();
    else if (v.to_move !== this.shown && (before === this.shown || this.person(v.to_move))) {
      this.hide();
    }
  }

  /** At a round's end, the people off the screen are ready: the one on it deals the next. */
  readyOthers() {
    const v = this.view;
    const key = v ? `${v.round}:${v.scores.join(",")}` : null;
    if (!v || v.phase !== "round_over" || this.readied === key) return;
    this.readied = key;
    this.seats.forEach((s, i) => {
      if (s.seat !== this.shown) this.sockets[i].send({ type: "next_round" });
    });
  }

  /** The table goes; the cover comes, naming who takes the device. */
  hide() {
    if (this.table) this.table.destroy();
    this.table = null;
    this.shown = null;
    const live = document.getElementById("announce");
    if (live) live.textContent = "";
    this.cover();
  }

  /** The cover for the next person; kept as it is while it already names them (``fresh``:
   * drawn again all the same, in a new language), so that a tap on it while the computer
   * plays its turn is not lost to a cover drawn anew under the finger. */
  cover(fresh = false) {
    const next = this.nextPerson();
    const shown = this.main.querySelector(".pp-cover");
    if (!fresh && shown && shown.dataset.seat === String(next.seat)) return;
    const name = isolate(next.name);
    const reveal = () => this.reveal(next.seat);
    replace(this.main, h("div", { class: "pp-cover", "data-seat": next.seat },
      h("button", { type: "button", class: "pp-pass", id: "pp-pass", onclick: reveal },
        h("span", { class: "pp-pass-title", text: t("pp.pass_to", { name }) }),
        h("span", { class: "pp-pass-note", text: t("pp.pass_note") })),
      h("button", { type: "button", class: "link", onclick: () => this.go("#/"),
        text: t("nav.home") })));
    const button = document.getElementById("pp-pass");
    if (button) button.focus();
  }

  reveal(seat) {
    const person = this.person(seat);
    if (!person) return;
    this.shown = seat;
    this.root = h("div", { class: "table-root", "data-pass-seat": seat });
    replace(this.main, this.root);
    this.table = new TableScreen(this.root, {
      code: this.code, token: person.token, storyKey: `pass${seat}`,
      onHome: () => this.go("#/"),
      onRematch: () => this.rematch(),
    });
    if (this.view && FINISHED.has(this.view.phase)) this.readyOthers();
  }

  async rematch() {
    try {
      const info = await api.room(this.code);
      if (info.status === "over") await api.rematch(this.code, this.seats[0].token, info.game);
    } catch (err) {
      alert(t("rematch.failed", { message: err.message }));
    }
  }
}
