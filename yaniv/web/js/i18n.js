// Message catalogues (i18n/en.json, i18n/he.json): every string the page shows.

export const LANGUAGES = { en: "English", he: "עברית" };
const RTL = new Set(["he"]);
let messages = {};
let fallback = {};
let current = "en";

async function fetchCatalogue(code) {
  const response = await fetch(new URL(`../i18n/${code}.json`, import.meta.url));
  if (!response.ok) throw new Error(`no catalogue ${code}`);
  return response.json();
}

/** The language to start with: the stored choice, else the browser's, else English. */
export function preferredLanguage() {
  const stored = localStorage.getItem("yaniv.lang");
  if (stored && stored in LANGUAGES) return stored;
  for (const lang of navigator.languages || [navigator.language || "en"]) {
    const code = String(lang).toLowerCase().split("-")[0];
    if (code === "iw") return "he";
    if (code in LANGUAGES) return code;
  }
  return "en";
}

/** Load a catalogue and set lang and dir on <html>. */
export async function setLanguage(code) {
  if (!(code in LANGUAGES)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalogue("en");
  messages = code === "en" ? fallback : await fetchCatalogue(code);
  current = code;
  localStorage.setItem("yaniv.lang", code);
  document.documentElement.lang = code;
  document.documentElement.dir = RTL.has(code) ? "rtl" : "ltr";
}

export function language() {
  return current;
}

/** A message by key, with {name} placeholders filled from params. */
export function t(key, params) {
  let text = messages[key] ?? fallback[key] ?? key;
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (whole, name) =>
      name in params ? String(params[name]) : whole);
  }
  return text;
}

/** A message that depends on a count, by the language's plural rules (Intl.PluralRules):
 * the key "KEY#one", "KEY#two", ... of the count's category, else "KEY#other". The count is
 * passed as {count}, written in the page's language, unless params give it otherwise. */
export function tn(key, count, params) {
  const category = new Intl.PluralRules(current).select(count);
  const chosen = `${key}#${category}`;
  const found = chosen in messages || chosen in fallback ? chosen : `${key}#other`;
  return t(found, { count: num(count), ...(params || {}) });
}

/** A number in the page's language. */
export function num(value, options) {
  return new Intl.NumberFormat(current, options).format(value);
}
