// Cards in flight: the deal, a discard to the pile, a draw to a seat, a slap, the showdown's
// reveal. Made with the Web Animations API, each flight 150-400 ms; the page is already in
// its new state while a card flies (input is never held), and with prefers-reduced-motion
// nothing moves at all. measure() is taken before a redraw, fly() after it.
import { cardBack, cardFace } from "./cards.js";

export const DURATION = { deal: 300, discard: 280, draw: 240, slap: 240, reveal: 320 };
const DEAL_STAGGER = 40;
const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";

/** Whether the person asked for no motion. */
export function reducedMotion() {
  return typeof matchMedia === "function"
    && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function rectOf(el) {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width || r.height ? r : null;
}

/** Where things are now: the cards of the hand and the pile by card, the seats, the stock. */
export function measure(root) {
  const cards = new Map();
  for (const el of root.querySelectorAll(".hand .card[data-card], .pile .card[data-card]")) {
    const where = el.closest(".hand") ? "hand" : "pile";
    cards.set(`${where}:${el.dataset.card}`, rectOf(el));
  }
  const seats = new Map();
  for (const el of root.querySelectorAll(".seat[data-seat]")) {
    seats.set(Number(el.dataset.seat), rectOf(el.querySelector(".backs")) || rectOf(el));
  }
  const me = root.querySelector(".me .hand");
  return { cards, seats, me: rectOf(me), stock: rectOf(root.querySelector(".stock-card")),
    pile: rectOf(root.querySelector(".pile")) };
}

/** The offset that puts an element at rect ``from`` (its own rect ``to``), as a transform. */
function offset(from, to) {
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = to.width ? Math.max(0.3, Math.min(2, from.width / to.width)) : 1;
  return `translate(${dx}px, ${dy}px) scale(${scale})`;
}

function animate(el, from, to, duration, delay = 0) {
  if (!el || !from || !to) return null;
  // a card in flight passes over other controls: it takes no tap or click until it lands
  el.style.pointerEvents = "none";
  const flight = el.animate([{ transform: offset(from, to) }, { transform: "none" }],
    { duration, delay, easing: EASE, fill: "backwards" });
  const landed = () => { el.style.pointerEvents = ""; };
  flight.finished.then(landed, landed);
  return flight;
}

/** A card that flies on its own (a face, or a back for a hidden card) from one rect to
 * another, then goes: for cards that have no element of their own at the end. */
function ghost(card, from, to, duration, delay = 0) {
  if (!from || !to) return null;
  const el = document.createElement("div");
  el.className = "flying-card";
  el.setAttribute("aria-hidden", "true");
  el.append(card ? cardFace(card) : cardBack());
  const width = Math.min(from.width || 60, 84);
  // physical coordinates: the rects are the viewport's, whatever the page's direction
  const box = { left: to.left + to.width / 2 - width / 2, top: to.top + to.height / 2 - width * 0.7,
    width, height: width * 1.4 };
  Object.assign(el.style, { width: `${width}px`, left: `${box.left}px`, top: `${box.top}px` });
  document.body.append(el);
  const flight = el.animate([{ transform: offset(from, box), opacity: 1 },
    { transform: "none", opacity: 0.9 }], { duration, delay, easing: EASE, fill: "both" });
  const done = () => el.remove();
  flight.finished.then(done, done);
  return flight;
}

/**
 * Fly the cards of the new events (``events``, in order) from where they were (``before``,
 * from measure) to where the redrawn page shows them. me: the viewer's seat (null for a
 * spectator). The time in ms until the last flight lands (0 when nothing flew).
 */
export function fly(root, before, events, me) {
  if (reducedMotion() || !before) return 0;
  let longest = 0;
  const track = (animation, duration, delay = 0) => {
    if (animation) longest = Math.max(longest, duration + delay);
  };
  const seatRect = (seat) => (seat === me ? rectOf(root.querySelector(".me .hand"))
    : rectOf(root.querySelector(`.seat[data-seat="${seat}"] .backs`))
      || rectOf(root.querySelector(`.seat[data-seat="${seat}"]`)));
  const stock = rectOf(root.querySelector(".stock-card")) || before.stock;
  const pile = rectOf(root.querySelector(".pile")) || before.pile;
  for (const event of events) {
    if (event.type === "deal") {
      const hand = [...root.querySelectorAll(".hand .card")];
      hand.forEach((el, i) => track(animate(el, stock, rectOf(el), DURATION.deal,
        i * DEAL_STAGGER), DURATION.deal, i * DEAL_STAGGER));
      for (const back of root.querySelectorAll(".seat .backs")) {
        track(animate(back, stock, rectOf(back), DURATION.deal), DURATION.deal);
      }
    } else if (event.type === "discard" || event.type === "slap") {
      const cards = event.type === "slap" ? [event.card] : event.cards || [];
      const duration = DURATION[event.type];
      cards.forEach((card, i) => {
        const from = event.seat === me ? before.cards.get(`hand:${card}`) : before.seats.get(
          event.seat) || seatRect(event.seat);
        const el = root.querySelector(`.pile .card[data-card="${CSS.escape(card)}"]`);
        const delay = i * 30;
        if (el) track(animate(el, from, rectOf(el), duration, delay), duration, delay);
        else track(ghost(card, from, pile, duration, delay), duration, delay);
      });
    } else if (event.type === "draw") {
      const from = event.source === "stock" ? stock
        : before.cards.get(`pile:${event.card}`) || pile;
      const duration = DURATION.draw;
      const el = event.seat === me && event.card
        ? root.querySelector(`.hand .card[data-card="${CSS.escape(event.card)}"]`) : null;
      if (el) track(animate(el, from, rectOf(el), duration), duration);
      else {
        const shown = event.source === "stock" ? null : event.card;
        track(ghost(shown, from, seatRect(event.seat), duration), duration);
      }
    }
  }
  return longest;
}

/** The showdown: each revealed hand turns face up, one after another. */
export function reveal(container) {
  if (reducedMotion() || !container) return 0;
  const minis = [...container.querySelectorAll(".result-hand .mini")];
  minis.forEach((el, i) => el.animate(
    [{ transform: "rotateY(90deg)", opacity: 0.4 }, { transform: "none", opacity: 1 }],
    { duration: DURATION.reveal, delay: Math.min(i * 25, 600), easing: EASE, fill: "backwards" }));
  return minis.length ? DURATION.reveal + Math.min((minis.length - 1) * 25, 600) : 0;
}
