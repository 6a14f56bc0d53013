// The coach's reasons in the reader's language, with cards as faces ("keeps 2♣ 5♦").
// The server sends each reason as the engine's English words (yaniv/bots/coach.py, advise);
// each of its forms is read here into a catalogue message. A reason of an unknown form is
// shown as sent, marked as English. Pure: t, tn and the card names are passed in, so Node can
// check it (tests/test_web_static.py).

const CARD = "(?:[A2-9TJQK][CDHS]|RJ|BJ)";
const CARDS = `${CARD}(?: ${CARD})*`;

/** The forms of the engine's reasons, each with what to say instead. */
const FORMS = [
  [new RegExp(`^a deliberate Assaf \\(R15\\): it costs you (-?\\d+) points after any bonus(; worth it)?$`),
    (m, x) => x.tn("coach.r.deliberate", Number(m[1])) + (m[2] ? x.t("coach.r.worth") : "")],
  [/^(\d+)% chance that nobody is at or under (\d+); (call it|risky)$/,
    (m, x) => x.t("coach.r.chance", { percent: x.percent(Number(m[1]) / 100), value: x.num(m[2]),
      verdict: x.t(m[3] === "call it" ? "coach.r.call_it" : "coach.r.risky") })],
  [/^slapping sheds (\d+) points at once$/, (m, x) => x.tn("coach.r.slap", Number(m[1]))],
  [/^slapping empties your hand: a Yaniv with 0 at once$/, (m, x) => x.t("coach.r.slap_yaniv_now")],
  [/^slapping empties your hand: next turn, a Yaniv with 0$/,
    (m, x) => x.t("coach.r.slap_yaniv_next")],
  [/^keeps the card$/, (m, x) => x.t("coach.r.keep")],
  [new RegExp(`^sheds (\\d+) points, keeps (${CARDS})? ?\\((\\d+)\\); then (draw from the stock|take (${CARD}))$`),
    (m, x) => x.tn("coach.r.sheds_keeps", Number(m[1]), {
      cards: m[2] ? m[2].split(" ").map(x.card).join(" ") : "", left: x.num(m[3]),
      draw: m[5] ? x.t("coach.r.then_take", { card: x.card(m[5]) }) : x.t("coach.r.then_stock"),
    })],
  [/^the stock: nothing on the pile helps$/, (m, x) => x.t("coach.r.stock_nothing")],
  [new RegExp(`^(${CARD}) is low or combines with the hand$`),
    (m, x) => x.t("coach.r.low_or_combines", { card: x.card(m[1]) })],
  [/^an unknown card, on average worth (\d+(?:\.\d+)?)$/,
    (m, x) => x.t("coach.r.unknown", { value: x.num(Number(m[1]), { maximumFractionDigits: 1 }) })],
  [new RegExp(`^(${CARD}) leaves (\\d+) in hand$`),
    (m, x) => x.t("coach.r.leaves", { card: x.card(m[1]), value: x.num(m[2]) })],
  [/^sheds (\d+) points$/, (m, x) => x.tn("coach.r.sheds", Number(m[1]))],
];

/**
 * A reason in the page's words: {text, translated}. x: {t, tn, num, percent, card}, the
 * catalogue lookups, number formats and a card's printed form.
 */
export function coachReason(reason, x) {
  const text = String(reason || "");
  for (const [pattern, say] of FORMS) {
    const m = pattern.exec(text);
    if (m) return { text: say(m, x), translated: true };
  }
  return { text, translated: false };
}
