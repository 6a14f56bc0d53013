// The table's clocks as the server keeps them: the turn timer's ring on the active seat, the
// countdown at a round's end with who is ready, and the grace before the computer stands in
// for a dropped player. The server sends how long is left (state.clock, seats[].grace_ms);
// the page counts down from the moment the state came, and never decides anything itself.
import { h, s } from "./dom.js";
import { t, tn, num } from "./i18n.js";

const WARN_MS = 5000; // the last seconds of a turn are shown as a warning
const RING = 2 * Math.PI * 16; // the ring's circumference (r = 16 in a 36 x 36 box)

/** Whole seconds left until a deadline (performance.now() time), never below 0. */
function secondsLeft(deadline) {
  return Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
}

export class Clocks {
  constructor(root) {
    this.root = root;
    this.turn = null; // {seat, deadline, total}
    this.round = null; // {deadline, total}
    this.grace = {}; // seat -> deadline
    this.ticker = setInterval(() => this.tick(), 250);
  }

  stop() {
    clearInterval(this.ticker);
  }

  /** A state came (``at``: when, performance.now()): the deadlines from what is left. */
  receive(state, at = performance.now()) {
    const clock = state.clock;
    this.turn = null;
    this.round = null;
    if (clock && clock.kind === "turn") {
      this.turn = { seat: clock.seat, deadline: at + clock.remaining_ms, total: clock.total_ms };
    } else if (clock && clock.kind === "next_round") {
      this.round = { deadline: at + clock.remaining_ms, total: clock.total_ms };
    }
    this.grace = {};
    (state.seats || []).forEach((seat, i) => {
      if (seat && typeof seat.grace_ms === "number") this.grace[i] = at + seat.grace_ms;
    });
  }

  /** The ring of the turn timer, for the seat whose turn runs under it (else null). */
  ring(seat) {
    if (!this.turn || this.turn.seat !== seat) return null;
    const el = h("div", { class: "turn-clock", role: "timer", "data-clock": "turn",
      "aria-live": "off" },
    ringSvg(),
    h("span", { class: "clock-seconds" }));
    this.paintTurn(el);
    return el;
  }

  /** What a person's seat says of the computer and the grace: "played by the computer", or
   * "away: the computer plays in 42 s" while the seat is held (else null). */
  seatNote(seat, info, you) {
    if (!info || info.kind !== "human") return null;
    if (info.stand_in) {
      return h("div", { class: "stand-in", "data-stand-in": info.away || "turn",
        text: t(you ? "seat.stand_in_you" : "seat.stand_in") });
    }
    if (seat in this.grace) {
      const el = h("div", { class: "grace", role: "timer", "data-clock": "grace",
        "data-seat": seat });
      this.paintGrace(el);
      return el;
    }
    if (info.connected === false) return h("div", { class: "away", text: t("seat.away") });
    return null;
  }

  /** At a round's end: the countdown to the next deal and who is ready (null when the
   * round waits for one person alone). */
  roundWait(state) {
    const seats = state.seats || [];
    const people = seats.map((s, i) => [s, i]).filter(([s]) => s && s.kind === "human");
    if (!this.round && people.length < 2) return null;
    const timer = this.round ? h("p", { class: "round-wait", role: "timer",
      "data-clock": "round" }) : null;
    if (timer) this.paintRound(timer);
    return h("div", { class: "ready-list" },
      timer,
      h("ul", { class: "ready", "aria-label": t("ready.title") },
        people.map(([s, i]) => h("li", { "data-seat": i,
          "data-ready": s.ready ? "true" : "false",
          text: t(s.ready ? "ready.yes" : (s.stand_in ? "ready.computer" : "ready.no"),
            { name: state.view ? state.view.names[i] : s.name }) }))));
  }

  // ------------------------------------------------------------ painting, every tick

  tick() {
    this.root.querySelectorAll('[data-clock="turn"]').forEach((el) => this.paintTurn(el));
    this.root.querySelectorAll('[data-clock="round"]').forEach((el) => this.paintRound(el));
    this.root.querySelectorAll('[data-clock="grace"]').forEach((el) => this.paintGrace(el));
  }

  paintTurn(el) {
    if (!this.turn) return;
    const left = Math.max(0, this.turn.deadline - performance.now());
    const seconds = Math.ceil(left / 1000);
    const warn = left <= WARN_MS;
    el.classList.toggle("warn", warn);
    el.dataset.seconds = String(seconds);
    el.setAttribute("aria-label", warn ? tn("clock.turn_warn", seconds)
      : tn("clock.turn", seconds));
    el.querySelector(".clock-seconds").textContent = num(seconds);
    const arc = el.querySelector(".clock-arc");
    const share = this.turn.total ? left / this.turn.total : 0;
    if (arc) arc.setAttribute("stroke-dashoffset", String(RING * (1 - share)));
  }

  paintRound(el) {
    if (!this.round) return;
    const seconds = secondsLeft(this.round.deadline);
    el.dataset.seconds = String(seconds);
    el.textContent = tn("clock.next_round", seconds);
  }

  paintGrace(el) {
    const deadline = this.grace[Number(el.dataset.seat)];
    if (deadline === undefined) return;
    const seconds = secondsLeft(deadline);
    el.dataset.seconds = String(seconds);
    el.textContent = tn("clock.grace", seconds);
  }
}

/** The ring: a track and the arc of the time left. */
function ringSvg() {
  const circle = (cls, more) => s("circle", { class: cls, cx: "18", cy: "18", r: "16", ...more });
  return s("svg", { viewBox: "0 0 36 36", "aria-hidden": "true" },
    circle("clock-track"), circle("clock-arc", { "stroke-dasharray": String(RING) }));
}
