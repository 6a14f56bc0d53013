// The names of the bot levels and the rule presets in the page's language (the server sends
// their identifiers: "medium", "draw_first"); one the catalogues do not know is shown as sent.
import { t } from "./i18n.js";

// The catalogue keys (written out so that each is checked to exist in the catalogues).
const LEVEL = { random: "level.random", easy: "level.easy", medium: "level.medium",
  expert: "level.expert", master: "level.master", learned: "level.learned" };
const PRESET = { standard: "preset.standard", quick: "preset.quick", hebrew: "preset.hebrew",
  draw_first: "preset.draw_first", slapdown: "preset.slapdown", custom: "preset.custom" };

/** A bot level in the page's language. */
export function levelName(level) {
  return level in LEVEL ? t(LEVEL[level]) : String(level || "");
}

/** A preset's name in the page's language. */
export function presetName(preset) {
  return preset in PRESET ? t(PRESET[preset]) : String(preset || "");
}
