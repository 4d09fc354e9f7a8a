// How the records pages write times, dates, names and links.
import { h } from "./dom.js";
import { racerMarks, racerName } from "./marks.js";
import { PRESETS } from "./rules.js";
import { clock, moment, number, t, tn } from "./i18n.js";

/** A race time: m:ss.t (tenths, as the racers' times are close); a dash for none. */
export function raceTime(ms) {
  if (ms === null || ms === undefined) return "–";
  const tenths = Math.max(0, Math.floor(ms / 100));
  const s = Math.floor(tenths / 10);
  const seconds = number((s % 60) + (tenths % 10) / 10, { minimumIntegerDigits: 2, minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return `${number(Math.floor(s / 60))}:${seconds}`;
}

/** A room's time limit as players give it, in minutes ("10 min"; "2:30" when not whole). */
export const limitTime = (ms) => (ms % 60_000 === 0 ? tn("{n} min", "{n} min", ms / 60_000) : clock(ms));

/** A moment (ms since the epoch) in the reader's own time zone, to the minute. */
export function when(ms) {
  if (ms === null || ms === undefined) return "–";
  return moment(ms);
}

/** A preset's title in the player's language (the titles are msgids: i18n/webcatalog.py adds them). */
export const presetTitle = (name) => (PRESETS[name] ? t(PRESETS[name].title) : name);

export const raceLink = (raceId, text = raceId) => h("a", { href: `/races/${raceId}`, class: "race-link" }, text);

/** A player's name linking to their page; bots and ghosts are marked and not linked (a ghost
 * is a recorded run, its racer's page is their own race's). */
export function playerName(racer) {
  const name = racer.bot || racer.ghost ? h("span", {}, racerName(racer)) : h("a", { href: `/players/${encodeURIComponent(racer.player)}` }, racer.name);
  return h("span", { class: "who" }, name, racerMarks(racer));
}

export const table = (headings, rows, attrs = {}) =>
  h("table", attrs, h("thead", {}, h("tr", {}, headings.map((head) => h("th", {}, head)))), h("tbody", {}, rows));
