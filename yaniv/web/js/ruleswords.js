// A rule set in words, for the table's "Rules" dialog and the score keeper: the threshold, the
// Assaf, the pickup rule, the turn, the bonus and how the game ends as sentences, then every
// option that differs from the standard rules. Words only: the rules' values are the server's
// (the room's rule set, and the standard preset from /api/levels); nothing is decided here.
import { h } from "./dom.js";
import { t, num } from "./i18n.js";
import { presetName } from "./names.js";

let presetsCache = null;

/** The server's presets, by name (from /api/levels), fetched once. */
export async function presets() {
  if (!presetsCache) {
    const response = await fetch("/api/levels", { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    presetsCache = (await response.json()).presets;
  }
  return presetsCache;
}

/** The standard rules (the server's preset). */
export async function standardRules() {
  return (await presets()).standard;
}

/** The name of the preset ``rules`` are, if they are one. */
export function presetOf(rules, all) {
  return Object.keys(all || {}).find((name) => differences(rules, all[name]).length === 0)
    || null;
}

/** A rule option in the page's language (one the catalogue does not know, by its name). */
export function optionName(name) {
  const key = `opt.${name}`;
  const text = t(key);
  return text === key ? name : text;
}

/** An option's value in words ("yes", "the round's winner"); numbers in the page's digits. */
export function valueName(value) {
  if (Array.isArray(value)) return value.map((x) => num(x)).join(t("list.separator"));
  if (typeof value === "number") return num(value);
  const key = `choice.${value}`;
  const text = t(key);
  return text === key ? String(value) : text;
}

/** The main rules as sentences, in the order a player asks about them. */
export function rulesSentences(rules) {
  const limit = num(rules.yaniv_threshold);
  const penalty = num(rules.assaf_penalty);
  const out = [t("rw.threshold", { limit })];
  if (rules.yaniv_above_threshold) out.push(t("rw.deliberate", { limit, penalty }));
  out.push(rules.assaf_scoring === "caller_only" ? t("rw.assaf_caller_only", { penalty })
    : t("rw.assaf", { penalty }));
  out.push(t("rw.pickup", { choice: valueName(rules.pickup) }));
  out.push(rules.draw_first ? t("rw.draw_first") : t("rw.discard_first"));
  if (rules.slapdown !== "off") out.push(t("rw.slapdown", { choice: valueName(rules.slapdown) }));
  if (rules.bonus === "halve") {
    out.push(t("rw.bonus_halve", { targets: valueName(rules.bonus_targets) }));
  } else if (rules.bonus === "subtract") {
    out.push(t("rw.bonus_subtract", { step: num(rules.bonus_step),
      amount: num(rules.bonus_amount) }));
  } else {
    out.push(t("rw.bonus_none"));
  }
  const end = num(rules.score_limit);
  out.push(rules.end_mode === "first_over" ? t("rw.end_first_over", { limit: end })
    : t("rw.end_elimination", { limit: end }));
  return out;
}

/** The options that differ from the standard rules, as [option, value] pairs. */
export function differences(rules, standard) {
  if (!standard) return [];
  return Object.keys(rules).filter((key) => key !== "preset" && key in standard
    && JSON.stringify(rules[key]) !== JSON.stringify(standard[key]))
    .map((key) => [key, rules[key]]);
}

/** The rule set in words: the preset it is, the sentences, and what differs from standard. */
export function rulesInWords(rules, standard, { preset, id = "rules-words" } = {}) {
  const changed = differences(rules, standard);
  return h("div", { class: "rules-words", id },
    preset ? h("p", { class: "rules-preset", text: t("room.rules_preset",
      { preset: presetName(preset) }) }) : null,
    h("ul", { class: "rules-sentences" }, rulesSentences(rules).map((line) =>
      h("li", { text: line }))),
    h("h3", { text: t("rw.changed_title") }),
    changed.length ? h("ul", { class: "rules-changed" }, changed.map(([key, value]) =>
      h("li", { "data-option": key },
        h("span", { class: "rules-option", text: optionName(key) }), ": ",
        h("span", { class: "rules-value", text: valueName(value) }),
        " ", h("code", { class: "opt-name", lang: "en", dir: "ltr", text: key }))))
      : h("p", { class: "note rules-standard", text: t("rw.all_standard") }));
}

/** The rules in words in a modal dialog over the page (the table's "Rules" button); Escape
 * or the Close button closes it. It lives outside the table, which redraws at every move. */
export async function showRulesDialog(rules) {
  let all = null;
  try {
    all = await presets();
  } catch {
    all = null; // the sentences need no presets; the differences do
  }
  const open = document.getElementById("rules-dialog");
  if (open) open.remove();
  const dialog = h("dialog", { class: "rules-dialog", id: "rules-dialog",
    "aria-labelledby": "rules-dialog-title" },
  h("h2", { id: "rules-dialog-title", text: t("rw.title") }),
  rulesInWords(rules, all && all.standard, { preset: presetOf(rules, all) || "custom",
    id: "rules-dialog-words" }),
  h("div", { class: "buttons" },
    h("button", { type: "button", class: "primary", id: "rules-dialog-close",
      onclick: () => dialog.close(), text: t("rw.close") })));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}
