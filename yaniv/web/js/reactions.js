// Quick reactions at the table: a fixed set (no free text, nothing to moderate), sent as the
// set's ids, shown beside the sender's seat to everyone in the room for a few seconds. The
// server limits how often a seat may send one; a player may mute another's reactions here
// (remembered in this browser, by the player's name).
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The reactions, as the server knows them (yaniv/server/schemas.py REACTIONS). */
export const REACTIONS = ["thumbs_up", "laugh", "wow", "angry", "nice", "yaniv_soon"];
const EMOJI = { thumbs_up: "👍", laugh: "😂", wow: "😮", angry: "😡" };
const SHOWN_MS = 4000;
const MUTED = "yaniv.muted";

function mutedNames() {
  try {
    const value = JSON.parse(localStorage.getItem(MUTED));
    return Array.isArray(value) ? value.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function setMuted(names) {
  try {
    localStorage.setItem(MUTED, JSON.stringify(names.slice(-50)));
  } catch {
    // private mode: muted for this visit only
  }
}

/** A reaction's face: the emoji, or the words in the reader's language. */
export function reactionText(id) {
  return EMOJI[id] || t(`react.${id}`);
}

export class Reactions {
  /** screen: the table (its socket, view and render). */
  constructor(screen) {
    this.screen = screen;
    this.shown = {}; // seat -> {id, until}
    this.notice = "";
    this.timers = new Set();
  }

  stop() {
    this.timers.forEach((x) => clearTimeout(x));
  }

  later(ms, fn) {
    const id = setTimeout(() => { this.timers.delete(id); fn(); }, ms);
    this.timers.add(id);
  }

  name(seat) {
    const v = this.screen.view;
    return v && typeof v.names[seat] === "string" ? v.names[seat] : "";
  }

  muted(seat) {
    return mutedNames().includes(this.name(seat));
  }

  /** A ``reaction`` message: shown beside the seat for a few seconds (not when muted). */
  receive(message) {
    const seat = message.seat;
    if (typeof seat !== "number" || !REACTIONS.includes(message.reaction)) return;
    if (this.muted(seat) && seat !== this.screen.view?.seat) return;
    const until = performance.now() + SHOWN_MS;
    this.shown[seat] = { id: message.reaction, until };
    this.later(SHOWN_MS + 20, () => {
      if (this.shown[seat] && this.shown[seat].until <= performance.now()) {
        delete this.shown[seat];
        this.screen.render();
      }
    });
    this.screen.render();
  }

  /** The server refused a reaction (too soon): said in the reader's language. */
  refused() {
    this.notice = t("react.too_soon");
    this.later(3000, () => { this.notice = ""; this.screen.render(); });
    this.screen.render();
  }

  send(id) {
    this.notice = "";
    this.screen.socket.send({ type: "react", reaction: id });
  }

  /** The bubble beside a seat, while its reaction shows (else null). */
  bubble(seat) {
    const shown = this.shown[seat];
    if (!shown || shown.until <= performance.now()) return null;
    return h("div", { class: "reaction-bubble", role: "status", "data-reaction": shown.id,
      "aria-label": t("react.from", { name: this.name(seat), reaction: reactionText(shown.id) }),
      text: reactionText(shown.id) });
  }

  /** The mute switch of another player's reactions. */
  muteSwitch(seat) {
    const name = this.name(seat);
    const muted = this.muted(seat);
    return h("button", { class: "link mute", "data-key": `mute:${seat}`,
      "aria-pressed": muted ? "true" : "false",
      text: t(muted ? "react.unmute" : "react.mute", { name }),
      onclick: () => {
        const names = mutedNames().filter((x) => x !== name);
        if (!muted) names.push(name);
        setMuted(names);
        if (!muted) delete this.shown[seat];
        this.screen.render();
      } });
  }

  /** The row of reactions a player may send (a spectator has none). */
  bar() {
    const v = this.screen.view;
    if (!v || v.seat === null || !this.screen.token) return null;
    return h("div", { class: "reactions", role: "group", "aria-label": t("react.title") },
      REACTIONS.map((id) => h("button", { class: "reaction", "data-key": `react:${id}`,
        "data-reaction": id, "aria-label": t(`react.${id}`), title: t(`react.${id}`),
        onclick: () => this.send(id), text: reactionText(id) })),
      this.notice ? h("span", { class: "react-notice", role: "status", text: this.notice })
        : null);
  }
}
