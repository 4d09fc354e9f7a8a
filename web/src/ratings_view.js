// Ratings beside racers' names (docs/ratings.md, "The shown number"): the shown number, "?" while
// provisional, and after a rated race its change ("1523 +14"). My own come from the server's
// `rating` events (fresher, with the change); other racers' from the read API's player page, asked
// once per player and page (an anonymous racer has none: nothing is shown). A page that comes is
// written into the badges already shown, not by rebuilding the view: a rebuild mid-race would
// drop a card being dragged. The pages asked are the page's: a ``RatingBook`` it makes and hands in.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { apiGet } from "./records_api.js";

/** The shown number: "1500", "1579?" (provisional). */
export const shownRating = (r) => `${r.rating}${r.provisional ? "?" : ""}`;

/** The number and the last race's change, when there was one: "1523 +14", "1486? -9". */
export const ratingWithChange = (r) => (typeof r.change === "number" ? `${shownRating(r)} ${r.change >= 0 ? "+" : ""}${r.change}` : shownRating(r));

/** A racer's rating on ``preset`` as the read API's player page lists it (null: none). */
export function ratingFromDoc(doc, preset) {
  const row = (doc?.ratings ?? []).find((r) => r.preset === preset);
  return row ? { rating: row.rating, provisional: Boolean(row.provisional) } : null;
}

/** Ratings of the racers met on this page, asked of the read API once each. */
// ``fresh``: past the browser's cached copy (the page is cached for seconds; a rating just changed).
const playerPage = (player, fresh) => apiGet(`/players/${encodeURIComponent(player)}`, {}, { fresh });

export class RatingBook {
  constructor(fetchDoc = playerPage) {
    this.fetchDoc = fetchDoc;
    this.docs = new Map(); // player -> the page's doc, null (none / not asked yet)
    this.asked = new Set();
    this.stale = new Set(); // players whose number changed since the last ask
  }

  /** ``player``'s rating on ``preset`` if known; asks for it (once), calling ``onLoad`` when it came. */
  get(player, preset, onLoad) {
    if (!this.asked.has(player)) {
      this.asked.add(player);
      const fresh = this.stale.delete(player);
      this.fetchDoc(player, fresh).then(
        (doc) => {
          this.docs.set(player, doc);
          onLoad?.();
        },
        () => this.docs.set(player, null), // anonymous, or no records on this server
      );
    }
    return ratingFromDoc(this.docs.get(player), preset);
  }

  /** Ask again for ``players`` (after a rated race their numbers changed). */
  forget(players) {
    for (const p of players) {
      this.asked.delete(p);
      this.stale.add(p);
    }
  }
}

const badgeText = (r, own) => (r ? ` ${own ? ratingWithChange(r) : shownRating(r)}` : "");

/** Fill in ``player``'s badges now shown, from their page (just come in ``book``). */
function fillBadges(book, player) {
  for (const el of document.querySelectorAll("span.rating[data-player]")) {
    if (el.dataset.player === player && !("own" in el.dataset)) el.textContent = badgeText(book.get(player, el.dataset.preset), false);
  }
}

/** The rating shown beside a racer's name (empty until their page comes), or null: bots and ghosts
 * are never rated, and an unrated room (``rated`` false) shows none, as none is at stake. My own is
 * the last `rating` event's (``mine``: preset -> its body) when there was one this page, with its
 * change only when that event is of this room's race (``raceId``): the last race's "-79" beside my
 * name in the next race said something about neither. Others' pages are asked for in rated rooms,
 * where every racer is a registered player (an anonymous racer's page is a 404). */
export function ratingBadge(book, racer, preset, me, mine, rated = true, raceId = null) {
  if (racer.bot || racer.ghost || !rated) return null;
  const own = racer.player === me ? mine?.[preset] : null;
  const r = own ?? book.get(racer.player, preset, () => fillBadges(book, racer.player));
  const fresh = Boolean(own) && raceId !== null && own.race_id === raceId;
  return h("span", { class: "rating", "data-player": racer.player, "data-preset": preset, "data-own": Boolean(own), title: t("rating (? provisional: fewer than 10 rated races)") }, badgeText(r, fresh));
}

/** A rated race is over: its racers' numbers on the read API (asked into ``book``) have changed. */
export const ratingsChanged = (book, players) => book.forget(players);
