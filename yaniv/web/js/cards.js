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

// The glyphs of the faces live once in a hidden sprite (<defs>) and the faces draw them with
// <use>: a card control then holds no text of its own, so its name ("seven of hearts") is all
// that it says (a face's "7♥♥7" inside the button would not match its name: axe's
// label-content-name-mismatch).
const GLYPHS = new Map();
let sprite = null;

function glyph(text) {
  if (!sprite && typeof document !== "undefined") {
    sprite = s("svg", { class: "card-sprite", "aria-hidden": "true", focusable: "false",
      width: 0, height: 0 }, s("defs", {}));
    document.body.append(sprite);
  }
  if (!GLYPHS.has(text)) {
    const id = `card-glyph-${GLYPHS.size}`;
    GLYPHS.set(text, id);
    sprite.firstChild.append(s("text", { id, text }));
  }
  return `#${GLYPHS.get(text)}`;
}

function use(text, attrs) {
  return s("use", { href: glyph(text), ...attrs });
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
  use(corner, { class: "card-rank", x: 5, y: 17 }),
  use(symbol, { class: "card-suit", x: 5, y: 30 }),
  use(centre, { class: "card-centre", x: 30, y: 58 }),
  joker ? use("JOKER", { class: "card-joker", x: 30, y: 76 }) : null,
  s("g", { transform: "rotate(180 30 42)" },
    use(corner, { class: "card-rank", x: 5, y: 17 }),
    joker ? null : use(symbol, { class: "card-suit", x: 5, y: 30 })));
}

/** A card back as an SVG element. */
export function cardBack() {
  return s("svg", { class: "card-back", viewBox: "0 0 60 84", "aria-hidden": "true",
    focusable: "false" },
  s("rect", { class: "back-bg", x: 1, y: 1, width: 58, height: 82, rx: 5 }),
  s("rect", { class: "back-inner", x: 6, y: 6, width: 48, height: 72, rx: 3 }),
  use("Y", { class: "back-mark", x: 30, y: 50 }));
}
