// The table: renders each `state` message (state down) and sends moves (messages up).
import { h, replace } from "./dom.js";
import { t, tn, num, language } from "./i18n.js";
import { cardFace, cardBack, cardName, cardsName, cardShort, cardOrder, handValue }
  from "./cards.js";
import { GameSocket, moveId } from "./socket.js";
import { store } from "./store.js";
import { narrate } from "./narrate.js";
import { coachReason } from "./coach.js";
import { levelName } from "./names.js";
import { roundPoints as sheetPoints, roundScore } from "./sheet.js";
import { measure, fly, reveal, reducedMotion } from "./motion.js";
import { play as playSound, soundsOf } from "./sound.js";
import { Clocks } from "./clock.js";
import { Reactions } from "./reactions.js";
import { showRulesDialog } from "./ruleswords.js";

const FINISHED = new Set(["round_over", "game_over"]);

/** The cards of a move text: "discard 7H 8H" -> ["7H", "8H"]. */
function moveCards(move) {
  return move.split(" ").slice(1).filter((word) => word !== "stock");
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((card, i) => card === y[i]);
}

/** Where each seat sits around the table, as the viewer sees it: the viewer at the bottom,
 * the others clockwise from there (up the left side, across the top, down the right side).
 * For each other seat in clockwise order: {seat, slot: "left" | "top" | "right"}. */
export function seatRing(n, viewer) {
  const others = viewer === null ? n : n - 1;
  const start = viewer === null ? 0 : viewer + 1;
  const places = others + 1; // the viewer's place (or a spectator's) at the bottom
  return Array.from({ length: others }, (_, k) => {
    const angle = 90 + ((k + 1) * 360) / places; // screen degrees, clockwise, 90 = bottom
    const slot = angle < 225 - 1e-6 ? "left" : angle <= 315 + 1e-6 ? "top" : "right";
    return { seat: (start + k) % n, slot };
  });
}

/** A move in words for the page: cards in their short printed form. */
function moveText(move) {
  const [verb, ...rest] = move.split(" ");
  const cards = rest.map(cardShort).join(" ");
  switch (verb) {
    case "yaniv": return t("move.yaniv");
    case "pass": return t("move.pass");
    case "discard": return t("move.discard", { cards });
    case "slap": return t("move.slap", { cards });
    case "draw": return rest[0] === "stock" ? t("move.draw_stock") : t("move.take", { cards });
    default: return move;
  }
}

function roundPoints(r, seat, penalty) {
  return sheetPoints(r, seat, penalty, t, num);
}

export class TableScreen {
  /**
   * code: the room; token: this player's (null for a spectator); onHome, onRematch: callbacks.
   */
  constructor(root, { code, token, onHome, onRematch, storyKey }) {
    this.root = root;
    this.code = code;
    this.token = token;
    this.onHome = onHome;
    this.onRematch = onRematch;
    this.state = null;
    this.selected = [];
    this.pendingDraw = null;
    this.busy = false;
    this.error = "";
    this.hint = "";
    this.status = "connecting";
    this.handFocus = 0;
    this.lastSpoken = "";
    this.overFocused = null;
    // earlier rounds, for the log; kept per seat where one browser holds several (pass-and-play)
    this.storyKey = storyKey ?? (token ? "seat" : null);
    this.rounds = store.rounds(code, this.storyKey);
    this.prefs = store.prefs();
    this.queued = null; // a state waiting for the cards in flight to land
    this.landing = 0; // when the cards in flight land (performance.now())
    this.timer = null;
    this.shownEvents = null; // {round, count}: the events the page shows
    this.revealed = null;
    this.focusInTable = false; // the keyboard focus was last in the table (kept over redraws)
    this.onKey = (event) => this.key(event);
    this.clocks = new Clocks(root); // the server's clocks, counted down on the page
    this.reactions = new Reactions(this);
    this.onFocus = (event) => {
      this.focusInTable = event.target instanceof Node && this.root.contains(event.target);
    };
    document.addEventListener("keydown", this.onKey);
    document.addEventListener("focusin", this.onFocus);
    this.socket = new GameSocket(code, token, {
      onMessage: (message) => this.receive(message),
      onStatus: (status) => this.connection(status),
    });
    this.render();
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("focusin", this.onFocus);
    clearTimeout(this.timer);
    this.clocks.stop();
    this.reactions.stop();
    this.socket.close();
  }

  // ------------------------------------------------------------ messages down

  connection(status) {
    this.status = status;
    if (status === "open" && this.token && this.prefs.coach) {
      this.socket.send({ type: "coach", on: true });
    }
    this.render();
  }

  receive(message) {
    if (message.type === "reaction") {
      this.reactions.receive(message);
      return;
    }
    if (message.type === "error" && message.about === "react") {
      this.reactions.refused(message);
      return;
    }
    if (message.type === "state") {
      message.at = performance.now(); // the clocks count from the state's arrival
      // Bots' moves are paced: a state that brings others' moves while cards are still in
      // flight waits until they land (the latest such state is shown then, with every move
      // since). A state that makes it the person's turn waits for the flight too, no longer.
      const wait = this.landing - performance.now();
      if (this.state && wait > 20 && !reducedMotion()) {
        this.queued = message;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.flush(), wait);
        return;
      }
      // shown now: a state still waiting is older than this one
      clearTimeout(this.timer);
      this.queued = null;
      this.show(message);
    } else if (message.type === "error") {
      this.busy = false;
      if (this.pendingDraw && message.id === this.pendingDraw.after) this.pendingDraw = null;
      this.error = typeof message.message === "string" ? message.message : t("error.unknown");
      this.render();
    }
  }

  flush() {
    const message = this.queued;
    this.queued = null;
    if (message) this.show(message);
  }

  /** Keep the round's events for the story (in this browser: the view holds only its own
   * round, so after a reload the earlier rounds come from here). A new game (a rematch,
   * round numbers starting again) drops the old one's. */
  keepRound(view) {
    const deal = (r) => JSON.stringify((r.events || []).find((e) => e.type === "deal") || null);
    const entry = { round: view.round, seat: view.seat, names: view.names,
      rules: { draw_first: Boolean(view.rules.draw_first) }, events: view.events };
    const same = this.rounds.find((r) => r.round === view.round);
    let rounds = this.rounds.filter((r) => r.round < view.round);
    if (same && deal(same) !== deal(entry)) rounds = []; // another game's round of this number
    rounds.push(entry);
    this.rounds = rounds.slice(-30);
    store.setRounds(this.code, this.storyKey, this.rounds);
  }

  show(message) {
    if (message.view && this.view && message.view.round !== this.view.round) this.handFocus = 0;
    this.state = message;
    this.clocks.receive(message, message.at);
    this.busy = false;
    const view = message.view;
    let draw = null;
    if (view) {
      this.selected = this.selected.filter((card) => view.hand.includes(card));
      const mine = view.seat !== null && view.to_move === view.seat;
      if (this.pendingDraw && mine && view.phase === "draw"
          && view.legal_moves.includes(this.pendingDraw.move)) {
        draw = this.pendingDraw.move;
        this.pendingDraw = null;
      } else if (!mine || (view.phase !== "draw" && view.phase !== "start")) {
        // a state from before the discard (one sent on a reconnection while the discard
        // waited in the socket's queue) keeps the draw waiting for the discard's state
        this.pendingDraw = null;
      }
      this.keepRound(view);
    }
    // one redraw per state: the waiting draw is sent with it (play redraws), so the
    // discard's cards fly as the state is shown, not a second redraw later
    if (draw) this.play(draw);
    else this.render();
  }

  // ------------------------------------------------------------ messages up

  play(move) {
    const id = moveId();
    this.busy = true;
    this.error = "";
    this.hint = "";
    this.socket.send({ type: "move", move, id });
    this.render();
    return id;
  }

  get view() {
    return this.state && this.state.view;
  }

  get myTurn() {
    const v = this.view;
    return Boolean(v && v.seat !== null && v.to_move === v.seat && v.legal_moves.length);
  }

  /** The discard move for the selection: the legal one with those cards (in the selection's
   * order when that one is legal), else the selection as laid, for the server to explain. */
  discardMove() {
    const legal = this.view.legal_moves.filter((m) => m.startsWith("discard "));
    const laid = `discard ${this.selected.join(" ")}`;
    if (legal.includes(laid)) return laid;
    return legal.find((m) => sameCards(moveCards(m), this.selected)) || laid;
  }

  /** Why the selection may not be discarded, in the player's language, or "" when it may
   * (the common refusals, explained without a round trip; the server still checks). */
  discardProblem() {
    const v = this.view;
    if (this.view.legal_moves.includes(this.discardMove())) return "";
    if (v.phase === "discard" && this.selected.length === v.hand.length) return t("hint.keep_one");
    if (v.phase === "discard" && v.drawn && this.selected.length === 1
        && this.selected[0] === v.drawn) {
      return t("hint.just_taken", { card: cardName(v.drawn) });
    }
    return t("hint.not_a_discard");
  }

  canDiscard() {
    const v = this.view;
    if (!this.myTurn || this.busy) return false;
    return v.legal_moves.some((m) => m.startsWith("discard "));
  }

  /** Whether the selection is a discard the view lists as legal now (the engine's word:
   * nothing lights up for a selection that is not). */
  selectionLegal() {
    return this.canDiscard() && this.selected.length > 0
      && this.view.legal_moves.includes(this.discardMove());
  }

  discard() {
    if (this.canDiscard()) this.discardSelection("hint.select_cards");
  }

  /** Discard the selection; the move's id, or null when nothing was sent (the page says why:
   * the hint ``empty`` when no card is selected). */
  discardSelection(empty) {
    const problem = this.selected.length ? this.discardProblem() : t(empty);
    if (problem) {
      this.say(problem);
      return null;
    }
    return this.play(this.discardMove());
  }

  /** Tap on the stock (card null) or a pile card. */
  draw(card) {
    const v = this.view;
    if (!this.myTurn || this.busy) return;
    const move = card === null ? "draw stock" : `draw ${card}`;
    if (v.phase === "start" && !v.rules.draw_first) {
      const after = this.discardSelection("hint.select_first");
      if (after !== null) this.pendingDraw = { after, move };
      return;
    }
    if (v.legal_moves.includes(move)) this.play(move);
    else if (card !== null) this.say(t("hint.not_pickable", { card: cardName(card) }));
  }

  yaniv() {
    const v = this.view;
    if (!this.myTurn || this.busy || !v.legal_moves.includes("yaniv")) return;
    const value = handValue(v.hand);
    const limit = v.rules.yaniv_threshold;
    if (value > limit) {
      const cost = value + v.rules.assaf_penalty;
      this.confirm(t("deliberate.title"),
        t("deliberate.text", { value, limit, penalty: v.rules.assaf_penalty, cost }),
        t("deliberate.ok"), () => this.play("yaniv"));
      return;
    }
    this.play("yaniv");
  }

  toggle(card) {
    const i = this.selected.indexOf(card);
    if (i >= 0) this.selected.splice(i, 1);
    else this.selected.push(card);
    this.error = "";
    // why the selection cannot be discarded, as soon as it is made
    this.hint = this.canDiscard() && this.selected.length ? this.discardProblem() : "";
    this.render();
  }

  say(text) {
    this.hint = text;
    this.render();
  }

  setCoach(on) {
    this.prefs = { ...store.prefs(), coach: on };
    store.setPrefs(this.prefs);
    this.socket.send({ type: "coach", on });
    this.render();
  }

  nextRound() {
    this.busy = true;
    this.socket.send({ type: "next_round" });
    this.render();
  }

  /** The round end's button: this person is ready for the next round, which is dealt once
   * every person is (or when the server's countdown ends), never for the others by one. */
  nextButton(v) {
    const seats = this.state.seats || [];
    const ready = (seats[v.seat] || {}).ready === true;
    const together = seats.filter((s) => s && s.kind === "human").length > 1;
    return h("button", { class: "primary", "data-key": "next",
      "data-ready": ready ? "true" : "false", disabled: this.busy || ready,
      onclick: () => this.nextRound(),
      text: ready ? t("ready.waiting") : t(together ? "ready.ready" : "result.next_round") });
  }

  confirm(title, text, ok, action) {
    const dialog = h("dialog", { class: "confirm", "aria-labelledby": "confirm-title" },
      h("h2", { id: "confirm-title", text: title }),
      h("p", { text }),
      h("div", { class: "buttons" },
        h("button", { class: "danger", onclick: () => { dialog.close(); action(); }, text: ok }),
        h("button", { onclick: () => dialog.close(), text: t("common.cancel") })));
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  // ------------------------------------------------------------ keyboard

  key(event) {
    const target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target instanceof HTMLElement && target.closest("input, select, textarea, dialog")) return;
    if (document.querySelector("dialog[open]")) return;
    const v = this.view;
    if (!v) return;
    const inHand = target instanceof HTMLElement && target.dataset.key
      && target.dataset.key.startsWith("hand:");
    const rtl = document.documentElement.dir === "rtl";
    switch (event.key) {
      case "ArrowLeft": case "ArrowRight": case "ArrowUp": case "ArrowDown":
      case "Home": case "End": {
        const cards = [...this.root.querySelectorAll(".hand .card")];
        if (!cards.length) return;
        let i = inHand ? cards.indexOf(target) : this.handFocus;
        const step = { ArrowDown: 1, ArrowUp: -1, ArrowRight: rtl ? -1 : 1,
          ArrowLeft: rtl ? 1 : -1 }[event.key] || 0;
        if (event.key === "Home") i = 0;
        else if (event.key === "End") i = cards.length - 1;
        else i = Math.max(0, Math.min(cards.length - 1, i + step));
        this.handFocus = i;
        cards.forEach((el, k) => el.setAttribute("tabindex", k === i ? "0" : "-1"));
        cards[i].focus();
        event.preventDefault();
        return;
      }
      case "Enter":
        if (inHand || target === document.body) {
          event.preventDefault();
          if (v.phase === "slap") return;
          this.discard();
        }
        return;
      case "y": case "Y":
        event.preventDefault();
        this.yaniv();
        return;
      case "s": case "S":
        event.preventDefault();
        this.draw(null);
        return;
      case "p": case "P":
        if (v.phase === "slap" && this.myTurn) {
          event.preventDefault();
          this.play("pass");
        }
        return;
      default:
        if (/^[1-9]$/.test(event.key)) {
          const card = this.previousGroup(v)[Number(event.key) - 1];
          if (card !== undefined) {
            event.preventDefault();
            this.draw(card);
          }
        }
    }
  }

  /** The previous discard: the group the player may draw from. In a discard-first turn's
   * draw, the player's own discard is on top; the pickable cards are in the one below. */
  previousGroup(v) {
    const groups = v.pile;
    if (!groups.length) return [];
    const top = groups[groups.length - 1];
    if (v.pickable.length && !v.pickable.some((c) => top.includes(c)) && groups.length > 1) {
      return groups[groups.length - 2];
    }
    return top;
  }

  // ------------------------------------------------------------ rendering

  render() {
    const active = document.activeElement;
    const inside = active instanceof HTMLElement && this.root.contains(active);
    const focusKey = inside ? active.dataset.key : null;
    // the focus was in the table, or was dropped to the page by the last redraw (a control
    // that went away or turned disabled): it comes back to the hand
    const keep = inside ? Boolean(focusKey)
      : this.focusInTable && (!active || active === document.body);
    const before = measure(this.root);
    replace(this.root, this.page());
    const v = this.view;
    let again = focusKey ? this.root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`) : null;
    if (again && again.disabled) again = null;
    if (again && again.closest(".hand")) {
      this.handFocus = [...this.root.querySelectorAll(".hand .card")].indexOf(again);
      this.focusHand();
    } else if (again) again.focus();
    else if (keep) this.focusHand();
    // the round's end takes the focus once, on its first button (the next round, a rematch),
    // so that a keyboard player goes on with Enter
    const over = v && FINISHED.has(v.phase) ? `${v.round}:${v.phase}` : null;
    if (over && over !== this.overFocused) {
      const button = this.root.querySelector('.round-end [data-key="next"], '
        + '.round-end [data-key="rematch"]');
      if (button) button.focus();
    }
    this.overFocused = over;
    this.animate(before);
    this.announce();
  }

  /** Focus the hand's card where the focus was (its place in the hand), else the first. */
  focusHand() {
    const cards = [...this.root.querySelectorAll(".hand .card")];
    if (!cards.length || document.querySelector("dialog[open]")) return;
    const i = Math.max(0, Math.min(cards.length - 1, this.handFocus));
    cards.forEach((el, k) => el.setAttribute("tabindex", k === i ? "0" : "-1"));
    cards[i].focus();
  }

  /** The new events since the page last showed the table: cards fly, sounds play. */
  animate(before) {
    const v = this.view;
    if (!v) return;
    const shown = this.shownEvents;
    this.shownEvents = { round: v.round, count: v.events.length };
    const dealt = v.events.length === 1 && v.events[0].type === "deal";
    // a round's hands turn face up the first time this page shows its end, even where the
    // round ended before the page's first view (a bot that called at once)
    const dialog = this.root.querySelector(".round-end");
    const revealing = dialog && this.revealed !== v.round ? reveal(dialog) : 0;
    if (dialog) this.revealed = v.round;
    let fresh = !shown || shown.round !== v.round ? v.events : v.events.slice(shown.count);
    if (!shown && !dealt) fresh = []; // the first view: nothing is new, unless just dealt
    const lands = fresh.length ? fly(this.root, before, fresh, v.seat) : 0;
    if (fresh.length || revealing) this.landing = performance.now() + Math.max(lands, revealing);
    // a round that ended before the first view is still heard ending with its call
    const heard =
      fresh.length || !revealing ? fresh : v.events.filter((e) => e.type === "showdown");
    soundsOf(heard).forEach((name, i) => playSound(name, i * 0.09));
  }

  /** The move log in the page's language: the earlier rounds this browser saw (kept over a
   * reload), the current last. */
  story() {
    const v = this.view;
    if (!v) return [];
    const earlier = this.rounds.filter((r) => r.round < v.round);
    return [...earlier, v].flatMap((view) => narrate(view, t, cardShort, tn));
  }

  /** The live region: the last line of the log, and what to do when it is the player's turn
   * (a screen reader hears the move before and then that it is their turn). */
  announce() {
    const story = this.story();
    const v = this.view;
    const last = story.length ? String(story[story.length - 1]) : "";
    const turn = v && this.myTurn && !this.busy ? this.turnLine(v) : "";
    const text = [last, turn].filter(Boolean).join(" ");
    const live = document.getElementById("announce");
    if (live && text && text !== this.lastSpoken) {
      this.lastSpoken = text;
      live.textContent = text;
    }
  }

  page() {
    const v = this.view;
    const seats = (this.state && this.state.seats) || [];
    const header = this.header();
    if (!v) {
      return h("div", { class: "table-page", "data-phase": "none", "data-net": this.status },
        header,
        h("p", { class: "waiting", role: "status",
          text: this.state ? t("table.waiting_start") : t(`net.${this.status}`) }));
    }
    const mine = this.myTurn;
    return h("div", { class: "table-page", "data-phase": v.phase, "data-round": v.round,
      "data-seat": v.seat ?? "", "data-to-move": v.to_move ?? "",
      "data-my-turn": mine ? "true" : "false", "data-busy": this.busy ? "true" : "false",
      "data-events": v.events.length, "data-net": this.status,
      "data-draw-first": v.rules.draw_first ? "true" : "false" },
      header,
      h("div", { class: "felt" },
        this.opponents(v, seats),
        this.centre(v),
        v.seat === null ? h("p", { class: "spectating", text: t("table.spectating") })
          : this.mine(v, seats)),
      h("aside", { class: "side" }, this.coachPanel(v), this.log(), this.scoreTable(v)),
      FINISHED.has(v.phase) ? this.roundEnd(v) : null);
  }

  header() {
    const v = this.view;
    const net = this.status === "open" ? null
      : h("span", { class: `net net-${this.status}`, role: "status",
        text: t(`net.${this.status}`) });
    return h("div", { class: "table-header" },
      h("button", { class: "link", onclick: () => this.onHome(), text: t("nav.home") }),
      h("span", { class: "room-code", text: t("table.room", { code: this.code }) }),
      v ? h("span", { text: t("table.round", { round: v.round }) }) : null,
      v ? h("span", { class: "rules-line", text: t("table.rules_line", {
        limit: v.rules.yaniv_threshold, penalty: v.rules.assaf_penalty,
        end: v.rules.score_limit }) }) : null,
      v ? h("button", { type: "button", class: "rules-button", "data-key": "rules",
        "aria-haspopup": "dialog", onclick: () => showRulesDialog(v.rules),
        text: t("table.rules_button") }) : null,
      net,
      this.token ? h("label", { class: "switch" },
        h("input", { type: "checkbox", checked: this.prefs.coach, "data-key": "coach",
          onchange: (e) => this.setCoach(e.target.checked) }),
        t("coach.toggle")) : null);
  }

  lastActions(v) {
    const last = {};
    for (const e of v.events) {
      if (e.type === "discard") last[e.seat] = [t("act.discard", {
        cards: e.cards.map(cardShort).join(" ") })];
      else if (e.type === "draw") {
        const part = e.source === "stock" ? t("act.draw_stock")
          : t("act.take", { card: cardShort(e.card) });
        (last[e.seat] = last[e.seat] || []).push(part);
      } else if (e.type === "slap") {
        (last[e.seat] = last[e.seat] || []).push(t("act.slap", { card: cardShort(e.card) }));
      } else if (e.type === "showdown" && e.result) last[e.result.caller] = [t("act.yaniv")];
    }
    return last;
  }

  /** The other seats around the table: up the left side, across the top, down the right
   * (seatRing), each side in clockwise order in the document. */
  opponents(v, seats) {
    const last = this.lastActions(v);
    const ring = seatRing(v.names.length, v.seat);
    const side = (slot) => h("div", { class: `ring ring-${slot}` },
      ring.filter((place) => place.slot === slot)
        .map((place) => this.seatBox(v, seats, last, place.seat, slot)));
    return h("section", { class: "opponents", "aria-label": t("table.opponents") },
      side("left"), side("top"), side("right"));
  }

  seatBox(v, seats, last, seat, slot) {
    const info = seats[seat] || {};
    const out = v.out.includes(seat);
    const turn = v.to_move === seat;
    const size = v.hand_sizes[seat];
    const known = v.known[seat] || [];
    const status = [
      turn ? t("seat.to_move") : null,
      out ? t("seat.out") : null,
      info.kind === "bot" ? t("seat.bot", { level: levelName(info.level) }) : null,
    ].filter(Boolean).join(" · ");
    return h("article", { class: `seat${turn ? " turn" : ""}${out ? " out" : ""}`,
      "data-seat": seat, "data-slot": slot,
      "aria-label": t("seat.label", { name: v.names[seat], cards: tn("seat.cards", size),
        score: num(v.scores[seat]) }), "aria-current": turn ? "true" : null },
    h("div", { class: "seat-head" },
      h("span", { class: "seat-name", text: v.names[seat] }),
      h("span", { class: "seat-score", text: t("seat.score", { score: num(v.scores[seat]) }) })),
    status ? h("div", { class: "seat-status", text: status }) : null,
    this.clocks.seatNote(seat, info, false),
    this.clocks.ring(seat),
    this.reactions.bubble(seat),
    info.kind === "human" ? this.reactions.muteSwitch(seat) : null,
    h("div", { class: "backs", "aria-hidden": "true" },
      Array.from({ length: Math.min(size, 10) }, () => h("span", { class: "back" }, cardBack()))),
    h("div", { class: "seat-count", text: tn("seat.cards", size) }),
    known.length ? h("div", { class: "known", role: "img", "aria-label": t("seat.known",
      { cards: cardsName(known) }) },
    h("span", { class: "known-label", "aria-hidden": "true", text: t("seat.known_short") }),
    known.map((c) => h("span", { class: "mini", "aria-hidden": "true" }, cardFace(c))))
      : null,
    last[seat] ? h("div", { class: "last-action",
      text: last[seat].join(t("list.separator")) }) : null);
  }

  centre(v) {
    const mine = this.myTurn && !this.busy;
    const drawFirst = v.rules.draw_first;
    // in a discard-first turn the stock and the pile light up once the selection is a legal
    // discard (the tap discards it, then draws)
    const drawing = mine && (v.phase === "draw" || (v.phase === "start"
      && (drawFirst || this.selectionLegal())));
    const stockOk = drawing && v.stock_size > 0
      && (v.phase === "start" ? !drawFirst || v.legal_moves.includes("draw stock")
        : v.legal_moves.includes("draw stock"));
    const group = this.previousGroup(v);
    const older = v.pile.length - 1;
    return h("section", { class: "centre", "aria-label": t("table.centre") },
      h("div", { class: "stock" },
        h("button", { class: `card stock-card${stockOk ? " glow" : ""}`, "data-key": "stock",
          disabled: !stockOk, onclick: () => this.draw(null),
          "aria-label": tn("table.stock", v.stock_size) },
        cardBack()),
        // the count under the card, not over it (the button's name says it to a reader)
        h("span", { class: "count", "aria-hidden": "true", text: num(v.stock_size) })),
      h("div", { class: "pile", role: "group", "aria-label": t("table.pile") },
        // a group of four or more fans out, so that the pile keeps beside the stock
        h("div", { class: `pile-cards${group.length > 3 ? " fan" : ""}` },
          group.map((card, i) => {
            const takeable = v.pickable.includes(card);
            const active = takeable && drawing;
            return h("button", {
              class: `card pile-card${active ? " glow" : ""}${takeable ? "" : " dim"}`,
              "data-key": `pile:${card}`, "data-card": card,
              "data-takeable": takeable ? "true" : "false", style: `--depth: ${group.length - i}`,
              disabled: !active, onclick: () => this.draw(card),
              "aria-label": t(takeable ? "table.pile_card_takeable" : "table.pile_card",
                { card: cardName(card), n: i + 1 }) }, cardFace(card));
          })),
        // the count of older discards under the cards, as the stock's count is
        older > 0 ? h("span", { class: "older", text: t("table.older", { count: older }) }) : null),
      h("p", { class: "turn-line", role: "status", text: this.turnLine(v) }));
  }

  turnLine(v) {
    if (FINISHED.has(v.phase)) return t("turn.round_over");
    if (v.to_move === null) return "";
    if (v.seat === null || v.to_move !== v.seat) {
      return t("turn.other", { name: v.names[v.to_move] });
    }
    if (this.busy) return t("turn.sending");
    const drawFirst = v.rules.draw_first;
    switch (v.phase) {
      case "start": return drawFirst ? t("turn.draw_first") : t("turn.discard_first");
      case "draw": return t("turn.draw");
      case "discard": return t("turn.discard");
      case "slap": return t("turn.slap", { card: cardName(v.drawn) });
      default: return "";
    }
  }

  mine(v, seats) {
    const seat = v.seat;
    const value = handValue(v.hand);
    const hand = this.prefs.sort ? [...v.hand].sort((a, b) => cardOrder(a) - cardOrder(b)) : v.hand;
    this.handFocus = Math.min(this.handFocus, Math.max(0, hand.length - 1));
    const legal = new Set(v.legal_moves);
    const mine = this.myTurn && !this.busy;
    const canDiscard = mine && v.legal_moves.some((m) => m.startsWith("discard "));
    const info = seats[seat] || {};
    return h("section", { class: `me${v.to_move === seat ? " turn" : ""}`,
      "aria-label": t("table.you") },
    h("div", { class: "seat-head" },
      h("span", { class: "seat-name", text: v.names[seat] || info.name || "" }),
      h("span", { class: "seat-score", text: t("seat.score", { score: num(v.scores[seat]) }) }),
      h("span", { class: "hand-value", text: t("table.hand_value", { value }) })),
    this.clocks.seatNote(seat, info, true),
    this.clocks.ring(seat),
    info.away === "idle" ? h("button", { class: "back", "data-key": "back",
      onclick: () => this.socket.send({ type: "back" }), text: t("seat.back") }) : null,
    this.reactions.bubble(seat),
    h("div", { class: "hand", role: "group", "aria-label": t("table.hand", { value }) },
      hand.map((card, i) => {
        const picked = this.selected.includes(card);
        const drawn = v.drawn === card;
        return h("button", { class: `card${picked ? " selected" : ""}${drawn ? " drawn" : ""}`,
          "data-key": `hand:${card}`, "data-card": card,
          tabindex: i === this.handFocus ? "0" : "-1",
          "aria-pressed": picked ? "true" : "false",
          "aria-label": drawn ? t("table.card_drawn", { card: cardName(card) }) : cardName(card),
          onclick: () => { this.handFocus = i; this.toggle(card); } }, cardFace(card));
      })),
    v.phase === "slap" && mine ? this.slapPrompt(v) : null,
    h("div", { class: "actions" },
      h("button", { class: "primary", "data-key": "discard", disabled: !canDiscard
          || !this.selectionLegal(), onclick: () => this.discard(),
      "aria-keyshortcuts": "Enter", text: t("action.discard") }),
      legal.has("yaniv") ? h("button", { class: "yaniv", "data-key": "yaniv",
        disabled: !mine, onclick: () => this.yaniv(), "aria-keyshortcuts": "Y",
        text: t("action.yaniv") }) : null,
      this.selected.length ? h("button", { "data-key": "clear",
        onclick: () => { this.selected = []; this.render(); }, text: t("action.clear") }) : null,
      h("label", { class: "switch" },
        h("input", { type: "checkbox", checked: this.prefs.sort, "data-key": "sort",
          onchange: (e) => {
          this.prefs = { ...store.prefs(), sort: e.target.checked };
          store.setPrefs(this.prefs);
          this.render();
        } }), t("action.sort"))),
    this.error ? h("p", { class: "error", role: "alert", dir: "auto", text: this.error }) : null,
    this.hint ? h("p", { class: "hint", role: "status", text: this.hint }) : null,
    this.reactions.bar());
  }

  slapPrompt(v) {
    const slap = v.legal_moves.find((m) => m.startsWith("slap "));
    return h("div", { class: "slap", role: "group", "aria-label": t("slap.title") },
      h("span", { text: t("slap.question", { card: cardName(v.drawn) }) }),
      slap ? h("button", { class: "primary", "data-key": "slap", onclick: () => this.play(slap),
        text: t("slap.slap") }) : null,
      h("button", { "data-key": "pass", onclick: () => this.play("pass"),
        "aria-keyshortcuts": "P", text: t("slap.pass") }));
  }

  coachPanel(v) {
    if (!this.token || !this.prefs.coach) return null;
    const coach = this.state.coach;
    const body = [];
    if (!coach || (!coach.advice?.length && coach.yaniv_probability == null)) {
      body.push(h("p", { text: t("coach.idle") }));
    } else {
      if (typeof coach.yaniv_probability === "number") {
        body.push(h("p", { class: "odds", text: t("coach.odds", {
          percent: num(coach.yaniv_probability, { style: "percent" }) }) }));
      }
      const words = { t, tn, num, card: cardShort,
        percent: (x) => num(x, { style: "percent", maximumFractionDigits: 0 }) };
      body.push(h("ol", { class: "advice" }, (coach.advice || []).map((a) => {
        const reason = coachReason(a.reason, words);
        return h("li", {},
          h("strong", { text: moveText(String(a.move)) }),
          " ",
          // a reason of a form this page does not know is shown as the server sent it
          reason.translated ? h("span", { class: "reason", text: reason.text })
            : h("span", { class: "reason", lang: "en", dir: "ltr", text: reason.text }),
          String(a.move).startsWith("discard ") && this.myTurn ? h("button", { class: "link",
            onclick: () => { this.selected = moveCards(String(a.move)); this.render(); },
            text: t("coach.select") }) : null);
      })));
    }
    return h("section", { class: "coach", "aria-label": t("coach.title") },
      h("h2", { text: t("coach.title") }), body);
  }

  log() {
    const story = this.story();
    // a scrolling list takes the focus, so that a keyboard can scroll it
    const list = h("ol", { class: "story", "data-lines": story.length, tabindex: "0",
      "aria-label": t("log.title") },
      story.length ? story.map((line) => h("li", { text: line }))
        : h("li", { class: "note", text: t("log.empty") }));
    requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
    return h("section", { class: "log", "aria-label": t("log.title") },
      h("h2", { text: t("log.title") }), list);
  }

  /** The results of the finished rounds this browser saw, by round number. */
  results() {
    const v = this.view;
    const out = {};
    for (const entry of [...this.rounds, v]) {
      const showdown = (entry.events || []).find((e) => e.type === "showdown");
      if (showdown && showdown.result) out[entry.round] = showdown.result;
    }
    if (v.result && FINISHED.has(v.phase)) out[v.round] = v.result;
    return out;
  }

  /** The score sheet, as on paper: a row per round with each player's points as an
   * equation ("Yaniv 0", "Assaf 5 + 30", "+12") over the running total ("100 → 50" for a
   * bonus, "out"), and the totals. */
  scoreTable(v, where = "side") {
    const history = v.score_history || [];
    if (!history.length) return null;
    const results = this.results();
    const penalty = v.rules.assaf_penalty;
    const cell = (row, r, seat) => {
      const result = results[r + 1];
      const total = row[seat];
      const before = r > 0 ? history[r - 1][seat] : 0;
      if (result && !(result.hands[seat] || []).length) {
        return h("td", { class: "sheet-out" }); // out before this round: no hand was dealt
      }
      // a round this browser did not see: its points are the change of the total
      const points = result ? roundPoints(result, seat, penalty)
        : t("sheet.points", { points: num(total - before) });
      const gone = result && (result.newly_out || []).includes(seat);
      return h("td", { class: gone ? "sheet-gone" : null },
        h("span", { class: "sheet-points", text: points }),
        h("span", { class: "sheet-total", text: result ? roundScore(result, seat, t, num)
          : num(total) }));
    };
    // a region beside the table; in the round's end dialog a part of the dialog
    return h(where === "side" ? "section" : "div", { class: "scores",
      "aria-labelledby": where === "side" ? `sheet-title-${where}` : null },
      h("h2", { id: `sheet-title-${where}`, text: t("sheet.title") }),
      h("table", { class: "sheet" },
        h("caption", { class: "visually-hidden", text: t("sheet.caption") }),
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t("scores.round") }),
          v.names.map((name) => h("th", { scope: "col", text: name })))),
        h("tbody", {}, history.map((row, r) => h("tr", { "data-round": r + 1 },
          h("th", { scope: "row", text: num(r + 1) }),
          row.map((_, seat) => cell(row, r, seat))))),
        h("tfoot", {}, h("tr", {},
          h("th", { scope: "row", text: t("sheet.total") }),
          v.scores.map((score, seat) => h("td", { class: v.out.includes(seat) ? "sheet-gone" : null,
            text: v.out.includes(seat) ? `${num(score)} ${t("sheet.out")}` : num(score) }))))));
  }

  resultTitle(v, r) {
    const caller = v.names[r.caller];
    if (r.kind === "yaniv") return t("result.yaniv", { name: caller });
    const assafers = (r.assafers || []).map((s) => v.names[s]).join(t("list.separator"));
    if (r.kind === "assaf") return t("result.assaf", { name: caller, by: assafers });
    return t("result.deliberate", { name: caller });
  }

  roundEnd(v) {
    const r = v.result;
    const over = v.phase === "game_over";
    const rows = r ? v.names.map((name, seat) => {
      if (!(r.hands[seat] || []).length) return null; // out before this round
      return h("tr", { class: seat === r.winner ? "winner" : null, "data-seat": seat },
        h("th", { scope: "row", text: name }),
        h("td", {}, h("div", { class: "result-hand", role: "img",
          "aria-label": cardsName(r.hands[seat]) },
        r.hands[seat].map((c) => h("span", { class: "mini", "aria-hidden": "true" }, cardFace(c)))),
        h("span", { class: "result-value", text: t("table.hand_value",
          { value: num(r.hand_values[seat]) }) })),
        h("td", { class: "result-points", text: roundPoints(r, seat, v.rules.assaf_penalty) }),
        h("td", { text: roundScore(r, seat, t, num) }));
    }) : [];
    const winners = (v.winners || []).map((s) => v.names[s]).join(t("list.separator"));
    return h("div", { class: "overlay" },
      h("section", { class: "round-end", role: "dialog", "aria-modal": "false",
        "aria-labelledby": "round-end-title" },
      h("h2", { id: "round-end-title", text: over ? t("result.game_over") : t("result.round_over",
        { round: v.round }) }),
      r ? h("p", { class: "result-title", text: this.resultTitle(v, r) }) : null,
      over ? h("p", { class: "winners", text: t("result.winners", { names: winners }) }) : null,
      r ? h("div", { class: "result-wrap" }, h("table", { class: "result" },
        h("thead", {}, h("tr", {},
          [t("result.player"), t("result.hand"), t("result.points"), t("result.score")]
            .map((x) => h("th", { scope: "col", text: x })))),
        h("tbody", {}, rows))) : null,
      this.scoreTable(v, "dialog"),
      over ? null : this.clocks.roundWait(this.state),
      h("div", { class: "buttons" },
        !over && v.seat !== null ? this.nextButton(v) : null,
        over && this.onRematch ? h("button", { class: "primary", "data-key": "rematch",
          onclick: () => this.onRematch(v), text: t("result.rematch") }) : null,
        h("button", { onclick: () => this.onHome(), text: t("nav.home") }))));
  }
}

export { moveText, language };
