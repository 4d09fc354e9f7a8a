// The players' languages: every user-facing text goes through t() or tn() (tests/test_web_i18n.py
// checks it). The catalogs are the gettext .po files of i18n/locale/<lang>/LC_MESSAGES/, made with
// Babel and turned into catalogs.json by scripts/build-web (i18n/webcatalog.py): per language its
// Plural-Forms expression (Babel writes the CLDR rule there) and its messages, msgid -> text, or
// the list of plural forms. English is the source language: its catalog is empty and the msgids
// are the texts. A message a catalog lacks falls back to English.
import CATALOGS from "./catalogs.json" with { type: "json" };
import { pluralRule } from "./plural.js";

/** The languages offered, each in its own words (the switcher shows them so). */
export const LANGUAGES = [
  ["en", "English"],
  ["fr", "Français"],
  ["it", "Italiano"],
  ["nl", "Nederlands"],
];
const CODES = new Set(LANGUAGES.map(([code]) => code));
export const STORAGE_KEY = "seahaven.lang";

/** The language to speak: the one the player chose (stored), else the first of the browser's
 * (navigator.languages, "nl-NL" meaning nl) that we speak, else English. */
export function pickLanguage(stored, wanted = []) {
  if (CODES.has(stored)) return stored;
  for (const tag of wanted) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (CODES.has(primary)) return primary;
  }
  return "en";
}

/** The page's language: the one chosen on this browser (the switcher), else the browser's first
 * that we speak; said on <html lang> too. Both pages (main.js, records.js) start with it. */
export function speakAsStored(win) {
  const chosen = setLanguage(pickLanguage(win.localStorage.getItem(STORAGE_KEY), win.navigator?.languages ?? [win.navigator?.language]));
  win.document.documentElement.lang = chosen;
  return chosen;
}

/** The language the page speaks, one explicit object: its code, its catalog and its plural rule.
 * Every text of every module (the views, the state's words, the records pages) is said in it,
 * so it is the one thing here that is not handed in: a page speaks one language at a time, and
 * threading it through every function that says something would change them all for nothing.
 * It is set only through ``setLanguage`` (each page's start, the switcher). */
export const speech = { lang: "en", catalog: CATALOGS.en ?? { messages: {} }, choose: pluralRule((CATALOGS.en ?? {}).plural) };

/** Speak ``code`` from now on (an unknown one: English). */
export function setLanguage(code) {
  const lang = CODES.has(code) ? code : "en";
  const catalog = CATALOGS[lang] ?? { messages: {} };
  Object.assign(speech, { lang, catalog, choose: pluralRule(catalog.plural) });
  return lang;
}

export const language = () => speech.lang;

const fill = (text, params) => text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));

/** The message ``msgid`` in the current language, its {placeholders} filled from ``params``. */
export function t(msgid, params = {}) {
  const found = speech.catalog.messages[msgid];
  return fill(typeof found === "string" && found ? found : msgid, params);
}

/** The plural message for ``n`` ("1 move", "2 moves"): the form the language's rule picks; {n} is
 * ``n`` in the locale's digits. */
export function tn(singular, pluralText, n, params = {}) {
  const forms = speech.catalog.messages[singular];
  const index = speech.choose(n);
  const english = n === 1 ? singular : pluralText;
  const text = Array.isArray(forms) && forms[index] ? forms[index] : english;
  return fill(text, { n: number(n), ...params });
}

/** A number as the locale writes it (1 234,5 in French). */
export const number = (n, options = {}) => new Intl.NumberFormat(speech.lang, options).format(n);

/** Names (or any words) as the locale lists them: "Bob and Cid", "Bob et Cid", "Bob, Cid en Dee". */
export const list = (items) => new Intl.ListFormat(speech.lang, { type: "conjunction" }).format(items);

/** Counts as the locale lists measures: "4 wins, 3 losses", "4 victoires, 3 défaites". */
export const counts = (items) => new Intl.ListFormat(speech.lang, { type: "unit", style: "short" }).format(items);

/** An ordinal as the locale writes it: 2nd, 2e, 2º (CLDR's ordinal categories, through Intl). */
export function ordinal(n) {
  const form = new Intl.PluralRules(speech.lang, { type: "ordinal" }).select(n);
  if (form === "one") return t("{n}st", { n });
  if (form === "two") return t("{n}nd", { n });
  if (form === "few") return t("{n}rd", { n });
  return t("{n}th", { n });
}

/** A time of ``ms`` as a race clock, minutes:seconds (the seconds' two digits in the locale's). */
export function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${number(Math.floor(s / 60))}:${number(s % 60, { minimumIntegerDigits: 2 })}`;
}

/** A day (YYYY-MM-DD, UTC) as the locale writes a date: 2 December 2026, 2 décembre 2026. */
export function day(iso) {
  const when = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(when.getTime()) ? iso : new Intl.DateTimeFormat(speech.lang, { dateStyle: "long", timeZone: "UTC" }).format(when);
}

/** A moment (ms since the epoch) as the locale writes a date and time, in the browser's zone. */
export const moment = (ms) => new Intl.DateTimeFormat(speech.lang, { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));

/** The rules help of ``preset`` in the current language (the rules domain), as [heading, rule]
 * rows, or null when the build had no rules catalog or it has no help for the preset. */
export function rulesHelp(preset) {
  const rows = (speech.catalog.rules ?? CATALOGS.en?.rules)?.[preset];
  return rows?.length ? rows : null;
}
