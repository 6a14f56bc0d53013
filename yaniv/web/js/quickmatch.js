// Quick match (yaniv/server/quickmatch.py): "Play someone now" on the home page, and the wait
// (#/quick). The ticket is kept in localStorage, so the wait survives a reload; the page polls
// it, and a ticket not polled for the server's grace period leaves the queue.
import { h, replace } from "./dom.js";
import { t, tn, num } from "./i18n.js";
import { call, playerKey } from "./api.js";
import { presetName } from "./names.js";
import { store } from "./store.js";

const TICKET_STORE = "yaniv.quick";
const POLL_MS = 1500;
const OFFERED = ["standard", "quick", "hebrew"];

const quickApi = {
  join: (name, where) => call("POST", "/api/quickmatch", { name, player_key: playerKey(), ...where }),
  poll: (ticket) => call("GET", `/api/quickmatch/${encodeURIComponent(ticket)}`),
  bots: (ticket) => call("POST", `/api/quickmatch/${encodeURIComponent(ticket)}/bots`, {}),
  leave: (ticket) => call("DELETE", `/api/quickmatch/${encodeURIComponent(ticket)}`),
};

/** The stored wait: {ticket, label}, or null. */
export function storedWait() {
  try {
    const value = JSON.parse(localStorage.getItem(TICKET_STORE));
    return value && typeof value.ticket === "string" ? value : null;
  } catch {
    return null;
  }
}

function keep(value) {
  try {
    if (value) localStorage.setItem(TICKET_STORE, JSON.stringify(value));
    else localStorage.removeItem(TICKET_STORE);
  } catch {
    // private mode: the wait lasts as long as the page
  }
}

/** The last rule set used on this browser (as the home page's form keeps it), if it is not
 * one of the offered presets as it stands. */
function lastRules() {
  const setup = store.setup();
  const saved = setup && setup.rules;
  if (!saved || !saved.preset) return null;
  const options = saved.options || {};
  if (!Object.keys(options).length && OFFERED.includes(saved.preset)) return null;
  return { preset: saved.preset, ...options };
}

/** The home page's panel: a button per preset (and the rules last used); ``name()`` gives
 * the player's name from the home form. */
export function quickPanel({ go, name }) {
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const start = async (where, label) => {
    error.hidden = true;
    if (!playerKey()) {
      error.textContent = t("quick.no_key");
      error.hidden = false;
      return;
    }
    try {
      const answer = await quickApi.join(name(), where);
      keep({ ticket: answer.ticket, label });
      go("#/quick");
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  const last = lastRules();
  const waiting = storedWait();
  return h("section", { class: "panel quick-panel", "aria-labelledby": "quick-title" },
    h("h2", { id: "quick-title", text: t("quick.title") }),
    h("p", { class: "note", text: t("quick.note") }),
    waiting ? h("p", {}, h("a", { href: "#/quick", class: "button-link", id: "quick-resume",
      text: t("quick.resume") })) : null,
    h("div", { class: "quick-presets" },
      OFFERED.map((preset) => h("button", { type: "button", class: "primary",
        "data-preset": preset, onclick: () => start({ preset }, preset),
        text: t("quick.play_preset", { preset: presetName(preset) }) })),
      last ? h("button", { type: "button", "data-preset": "last",
        onclick: () => start({ rules: last }, "last"), text: t("quick.play_last") }) : null),
    error);
}

/** The wait (#/quick): how many are waiting, for how long, the offer of computer players
 * after a while alone, and the way out. */
export class QuickWait {
  constructor(main, { go }) {
    this.main = main;
    this.go = go;
    this.info = null;
    this.error = null;
    this.declined = false;
    this.timer = null;
    this.stopped = false;
    this.busy = false;
    this.render();
    this.poll();
  }

  destroy() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  async poll() {
    const wait = storedWait();
    if (!wait) {
      this.info = { status: "none" };
      this.render();
      return;
    }
    try {
      this.settle(await quickApi.poll(wait.ticket));
    } catch (err) {
      if (err.status === 404) {
        keep(null);
        this.info = { status: "left" };
      } else {
        this.error = err;
      }
      this.render();
    }
    if (!this.stopped && this.info && ["waiting", "seating"].includes(this.info.status)) {
      this.timer = setTimeout(() => this.poll(), POLL_MS);
    }
  }

  settle(info) {
    this.error = null;
    this.info = info;
    if (info.status === "seated") {
      keep(null);
      store.setSeat(info.room, { token: info.token, seat: info.seat, host: info.seat === 0,
        setup: { kind: "quick", rules: info.rules } });
      this.stopped = true;
      this.go(`#/room/${info.room}`);
      return;
    }
    if (info.status === "left") keep(null);
    this.render();
  }

  async leave() {
    const wait = storedWait();
    this.destroy();
    keep(null);
    if (wait) {
      try {
        await quickApi.leave(wait.ticket);
      } catch {
        // gone already, or seated: the home page is where the person asked to go
      }
    }
    this.go("#/");
  }

  async withBots() {
    const wait = storedWait();
    if (!wait || this.busy) return;
    this.busy = true;
    try {
      this.settle(await quickApi.bots(wait.ticket));
    } catch (err) {
      this.error = err;
      this.render();
    } finally {
      this.busy = false;
    }
  }

  render() {
    const info = this.info;
    const home = h("button", { type: "button", onclick: () => this.go("#/"), text: t("nav.home") });
    if (!info) {
      replace(this.main, h("div", { class: "home" }, h("p", { text: t("common.loading") })));
      return;
    }
    if (info.status === "none" || info.status === "left") {
      replace(this.main, h("div", { class: "home" }, h("section", { class: "panel" },
        h("h1", { text: t("quick.title") }),
        h("p", { class: "quick-gone", text: t(info.status === "none" ? "quick.none" : "quick.left") }),
        home)));
      return;
    }
    const wait = storedWait() || {};
    const label = wait.label === "last" ? t("quick.last_rules")
      : presetName(OFFERED.includes(info.queue) ? info.queue : wait.label || "");
    const others = Math.max(0, (info.waiting || 1) - 1);
    const count = info.status === "seating"
      ? t("quick.seating")
      : others ? tn("quick.others", others) : t("quick.alone");
    const waited = t("quick.waited", { seconds: num(Math.floor(info.waited || 0)) });
    const title = t("quick.waiting_title", { rules: label });
    const offered = Boolean(info.offer_bots && !this.declined);
    // A poll that changes only the figures updates them in place: the buttons stay the same
    // elements, so a tap landing as the poll comes is not lost and the focus stays put.
    const shape = JSON.stringify([info.status, title, offered, this.error && this.error.message]);
    const panel = this.main.querySelector(".quick-wait");
    if (panel && shape === this.shape) {
      panel.dataset.waiting = info.waiting;
      panel.querySelector(".quick-count").textContent = count;
      panel.querySelector(".quick-waited").textContent = waited;
      return;
    }
    this.shape = shape;
    const offer = offered
      ? h("div", { class: "quick-offer", role: "group", "aria-labelledby": "offer-title" },
        h("h2", { id: "offer-title", text: t("quick.offer_title") }),
        h("p", { text: t("quick.offer", { count: num(3) }) }),
        h("div", { class: "inline" },
          h("button", { type: "button", class: "primary", id: "quick-bots",
            onclick: () => this.withBots(), text: t("quick.play_bots") }),
          h("button", { type: "button", id: "quick-keep", onclick: () => {
            this.declined = true;
            this.render();
          }, text: t("quick.keep_waiting") })))
      : null;
    replace(this.main, h("div", { class: "home" }, h("section", { class: "panel quick-wait",
      "aria-labelledby": "wait-title", "data-status": info.status, "data-waiting": info.waiting },
    h("h1", { id: "wait-title", text: title }),
    h("p", { class: "quick-count", role: "status", text: count }),
    h("p", { class: "note quick-waited", text: waited }),
    h("p", { class: "note", text: t("quick.how", { seconds: num(info.pair_wait ?? 10) }) }),
    offer,
    this.error ? h("p", { class: "error", role: "alert", text: this.error.message }) : null,
    h("button", { type: "button", id: "quick-leave", onclick: () => this.leave(),
      text: t("quick.leave") }))));
  }
}
