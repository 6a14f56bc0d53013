// Cards: notation (rank A 2..9 T J Q K then suit C D H S; jokers RJ BJ), names for screen
// readers, values, and faces drawn as SVG.
import { s } from "./dom.js";
import { t } from "./i18n.js";

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
export const SUITS = ["C", "D", "H", "S"];
export const SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SHOWN_RANK = { T: "10" };

// The catalogue keys of ranks and suits (written out so that each exists in the catalogues).
const RANK_NAME = {
  A: "rank.A", 2: "rank.2", 3: "rank.3", 4: "rank.4", 5: "rank.5", 6: "rank.6",
  7: "rank.7", 8: "rank.8", 9: "rank.9", T: "rank.T", J: "rank.J", Q: "rank.Q", K: "rank.K",
};
const SUIT_NAME = { C: "suit.C", D: "suit.D", H: "suit.H", S: "suit.S" };

/** {rank, suit, joker}: joker is "R" or "B" for a joker, else null. */
export function parseCard(text) {
  if (text === "RJ" || text === "BJ") return { rank: null, suit: null, joker: text[0] };
  return { rank: text.slice(0, -1), suit: text.slice(-1), joker: null };
}

/** The points a card counts (R2). */
export function cardValue(text) {
  const { rank, joker } = parseCard(text);
  if (joker) return 0;
  const index = RANKS.indexOf(rank);
  return index < 0 ? 0 : Math.min(index + 1, 10);
}

export function handValue(cards) {
  return cards.reduce((sum, card) => sum + cardValue(card), 0);
}

/** A sort key: rank, then suit; jokers last. */
export function cardOrder(text) {
  const { rank, suit, joker } = parseCard(text);
  if (joker) return 100 + (joker === "R" ? 0 : 1);
  return RANKS.indexOf(rank) * 4 + SUITS.indexOf(suit);
}

/** The spoken name: "seven of hearts", "red joker". */
export function cardName(text) {
  const { rank, suit, joker } = parseCard(text);
  if (joker === "R") return t("card.red_joker");
  if (joker === "B") return t("card.black_joker");
  if (!(rank in RANK_NAME) || !(suit in SUIT_NAME)) return text;
  return t("card.name", { rank: t(RANK_NAME[rank]), suit: t(SUIT_NAME[suit]) });
}

export function cardsName(cards) {
  return cards.map(cardName).join(t("list.separator"));
}

/** Short printed form: "7♥", "10♠", "★", isolated left to right (U+2066 ... U+2069) so that
 * a Hebrew line keeps "Q♦" whole instead of turning the suit to the other side. */
export function cardShort(text) {
  const { rank, suit, joker } = parseCard(text);
  if (joker) return "\u2066★\u2069";
  return `\u2066${SHOWN_RANK[rank] || rank}${SYMBOL[suit] || suit}\u2069`;
}

function colourClass(text) {
  const { suit, joker } = parseCard(text);
  return joker ? `joker-${joker}` : `suit-${suit}`;
}

/** A card face as an SVG element (decorative: the control around it carries the name). */
export function cardFace(text) {
  const { rank, suit, joker } = parseCard(text);
  const corner = joker ? "★" : SHOWN_RANK[rank] || rank;
  const symbol = joker ? (joker === "R" ? "R" : "B") : SYMBOL[suit];
  const centre = joker ? "★" : SYMBOL[suit];
  return s("svg", { class: `card-face ${colourClass(text)}`, viewBox: "0 0 60 84",
    "aria-hidden": "true", focusable: "false" },
  s("rect", { class: "card-bg", x: 1, y: 1, width: 58, height: 82, rx: 5 }),
  s("text", { class: "card-rank", x: 5, y: 17, text: corner }),
  s("text", { class: "card-suit", x: 5, y: 30, text: symbol }),
  s("text", { class: "card-centre", x: 30, y: 58, "text-anchor": "middle", text: centre }),
  joker ? s("text", { class: "card-joker", x: 30, y: 76, "text-anchor": "middle",
    text: "JOKER" }) : null,
  s("g", { transform: "rotate(180 30 42)" },
    s("text", { class: "card-rank", x: 5, y: 17, text: corner }),
    joker ? null : s("text", { class: "card-suit", x: 5, y: 30, text: symbol })));
}

/** A card back as an SVG element. */
export function cardBack() {
  return s("svg", { class: "card-back", viewBox: "0 0 60 84", "aria-hidden": "true",
    focusable: "false" },
  s("rect", { class: "back-bg", x: 1, y: 1, width: 58, height: 82, rx: 5 }),
  s("rect", { class: "back-inner", x: 6, y: 6, width: 48, height: 72, rx: 3 }),
  s("text", { class: "back-mark", x: 30, y: 50, "text-anchor": "middle", text: "Y" }));
}
