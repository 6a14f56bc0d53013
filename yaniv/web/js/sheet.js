// The score sheet's words, as a paper sheet writes them. Pure: the catalogue lookup (t) and the
// number format (num) are passed in, so Node can check it (tests/test_web_static.py). The
// numbers are the round's result as the engine scored it; nothing is computed here but the
// "before" of a bonus (the score the bonus was taken from: the new score plus the bonus).

const LTR = (text) => `\u2066${text}\u2069`; // an equation reads left to right in Hebrew too

/** A seat's points in a round: "Yaniv 0" for the caller who won, "Assaf 5 + 30" for a caller
 * caught (hand plus penalty), "Assaf! 0" for who caught them, "+12" for the rest. */
export function roundPoints(r, seat, penalty, t, num) {
  const points = r.points[seat];
  if (seat === r.caller) {
    if (r.kind === "yaniv") return t("sheet.yaniv", { points: num(points) });
    const hand = r.hand_values[seat];
    const sum = points === hand + penalty ? LTR(`${num(hand)} + ${num(penalty)}`) : num(points);
    return t(r.kind === "assaf" ? "sheet.assaf" : "sheet.deliberate", { sum });
  }
  if (r.kind === "assaf" && (r.assafers || []).includes(seat)) {
    return t("sheet.assafer", { points: num(points) });
  }
  return LTR(t("sheet.points", { points: num(points) })); // "+12", not "12+" in Hebrew
}

/** A seat's score after the round: "47", or "100 → 50" when a bonus took it down, with
 * " out" when the round put the seat out. */
export function roundScore(r, seat, t, num) {
  const score = r.scores[seat];
  const bonus = r.bonuses ? r.bonuses[seat] : 0;
  const text = bonus ? LTR(t("sheet.bonus", { before: num(score + bonus), after: num(score) }))
    : num(score);
  return (r.newly_out || []).includes(seat) ? `${text} ${t("sheet.out")}` : text;
}
