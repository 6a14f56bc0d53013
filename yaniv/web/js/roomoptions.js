// The room's options beside the rules: the turn timer the host chooses in the lobby (off,
// 15, 30 or 60 seconds a turn; the server keeps the time). Guests see the choice.
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

/** The turn timer's choices, as the server accepts them (schemas.py TURN_TIMERS). */
export const TURN_TIMERS = [0, 15, 30, 60];

/** A choice in words: "Off", "30 seconds a turn". */
export function timerName(seconds) {
  return seconds ? tn("timer.seconds", seconds) : t("timer.off");
}

/** The lobby's turn timer: a select for the host (``change(seconds)`` saves it), the choice
 * in words for the others. */
export function timerControl(info, host, change) {
  const value = TURN_TIMERS.includes(info.turn_timer) ? info.turn_timer : 0;
  if (!host) {
    return h("p", { class: "turn-timer", "data-turn-timer": value },
      t("timer.shown", { choice: timerName(value) }));
  }
  const select = h("select", { id: "turn-timer", "data-turn-timer": value,
    onchange: (e) => change(Number(e.target.value)) },
  TURN_TIMERS.map((s) => h("option", { value: s, selected: s === value, text: timerName(s) })));
  return h("div", { class: "inline turn-timer" },
    h("label", { for: "turn-timer", text: t("timer.label") }), select);
}
