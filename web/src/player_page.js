// /players/{player}: a player's page (GET /api/v1/players/{player}): races, wins, streaks, the
// best time per preset, ratings per preset and what each rated race did to them (GET .../ratings),
// the arenas they played (GET .../arenas), and their races a page at a time (GET .../races), each
// linking to its replay; and their mistakes over their latest analysed races, in words.
import { h } from "./dom.js";
import { playerArenas, playerDoc, playerRaces, playerRatings, raceDoc } from "./records_api.js";
import { playerName, presetTitle, raceLink, raceTime, table, when } from "./records_format.js";
import { racerName } from "./marks.js";
import { language, number, t, tn } from "./i18n.js";
import { statusText } from "./state.js";
import { rivalsOf } from "./rivals.js";
import { keyPlayer } from "./account.js";

export async function showPlayer(main, player, R) {
  const [doc, first, rated, arenas] = await Promise.all([playerDoc(player), playerRaces(player), playerRatings(player), playerArenas(player)]);
  Object.assign(R, { player: doc, races: [...first.races], next: first.next, ratingHistory: rated.history, arenas: arenas.arenas });
  document.title = doc.name + " · " + t("Seahaven race");
  const body = h("tbody", {});
  const more = h("button", { id: "more-races", class: "quiet", onclick: () => loadMore() }, t("Older races"));
  const addRows = (races) => body.append(...races.map(raceRow));
  const loadMore = async () => {
    more.disabled = true;
    const page = await playerRaces(player, R.next);
    R.races.push(...page.races);
    R.next = page.next;
    addRows(page.races);
    more.disabled = false;
    more.hidden = R.next === null;
  };
  addRows(first.races);
  more.hidden = R.next === null;
  const rivals = h("section", { class: "card-panel", "aria-labelledby": "rivals-h", id: "rivals" }, h("h2", { id: "rivals-h" }, t("Rivals")), h("p", { class: "muted" }, t("Loading…")));
  showRivals(rivals, doc.player, first.races, R);
  const rate = doc.races ? number(doc.wins / doc.races, { style: "percent" }) : "–";
  const fact = (label, value, id) => [h("dt", {}, label), h("dd", { id }, typeof value === "number" ? number(value) : String(value))];
  main.replaceChildren(
    h(
      "div",
      { class: "records player-page" },
      h(
        "section",
        { class: "card-panel" },
        h("h2", { id: "player-name" }, doc.name, doc.handle ? h("span", { class: "muted" }, ` @${doc.handle}`) : null),
        h(
          "dl",
          { class: "facts" },
          fact(t("Races"), doc.races, "races"),
          fact(t("Wins"), doc.wins, "wins"),
          fact(t("Win rate"), rate, "win-rate"),
          fact(t("Finished"), doc.finished, "finished"),
          fact(t("Win streak"), doc.current_streak, "streak"),
          fact(t("Best streak"), doc.best_streak, "best-streak"),
        ),
        addFriendLink(doc),
      ),
      mistakesPanel(doc),
      h(
        "section",
        { class: "card-panel", "aria-labelledby": "bests-h" },
        h("h2", { id: "bests-h" }, t("Best times")),
        doc.bests.length
          ? table(
              [t("Rules"), t("Time"), t("Deal"), t("When")],
              doc.bests.map((b) => h("tr", {}, h("td", {}, presetTitle(b.preset)), h("td", {}, raceLink(b.race_id, raceTime(b.time_ms))), h("td", {}, `#${b.deal}`), h("td", {}, when(b.ended_at)))),
              { class: "bests" },
            )
          : h("p", { class: "muted" }, t("No proven finish yet (a finish without hints).")),
      ),
      h(
        "section",
        { class: "card-panel", "aria-labelledby": "ratings-h" },
        h("h2", { id: "ratings-h" }, t("Ratings")),
        doc.ratings.length
          ? table(
              [t("Rules"), t("Rating"), t("Rated races")],
              doc.ratings.map((r) =>
                h(
                  "tr",
                  {},
                  h("td", {}, presetTitle(r.preset)),
                  h("td", { title: r.provisional ? t("provisional: fewer than 10 rated races") : "" }, `${r.rating}${r.provisional ? "?" : ""}`),
                  h("td", {}, String(r.races)),
                ),
              ),
              { class: "ratings" },
            )
          : h("p", { class: "muted" }, t("No rated race yet (quick match races are rated).")),
        rated.history.length
          ? table(
              [t("When"), t("Rules"), t("Place"), t("Rating"), t("Change")],
              rated.history.map((c) =>
                h(
                  "tr",
                  {},
                  h("td", {}, raceLink(c.race_id, when(c.ended_at))),
                  h("td", {}, presetTitle(c.preset)),
                  h("td", {}, t("{place} of {count}", { place: number(c.place), count: number(c.racers) })),
                  h("td", {}, `${c.rating}${c.provisional ? "?" : ""}`),
                  h("td", {}, `${c.change >= 0 ? "+" : ""}${c.change}`),
                ),
              ),
              { class: "rating-history" },
            )
          : null,
      ),
      h(
        "section",
        { class: "card-panel", "aria-labelledby": "arenas-h" },
        h("h2", { id: "arenas-h" }, t("Arenas")),
        arenas.arenas.length
          ? table(
              [t("When"), t("Arena"), t("Rules"), t("Place"), t("Points"), t("Wins"), t("Races")],
              arenas.arenas.map((a) =>
                h(
                  "tr",
                  {},
                  h("td", {}, when(a.ends_at)),
                  h("td", {}, a.name || a.code),
                  h("td", {}, presetTitle(a.preset)),
                  h("td", {}, t("{place} of {count}", { place: number(a.place), count: number(a.player_count) })),
                  h("td", {}, String(a.points)),
                  h("td", {}, String(a.wins)),
                  h("td", {}, String(a.races)),
                ),
              ),
              { class: "arenas" },
            )
          : h("p", { class: "muted" }, t("No arena on record yet.")),
      ),
      rivals,
      h(
        "section",
        { class: "card-panel", "aria-labelledby": "races-h" },
        h("h2", { id: "races-h" }, t("Races")),
        R.races.length
          ? h("table", { class: "races" }, h("thead", {}, h("tr", {}, [t("When"), t("Rules"), t("Deal"), t("Place"), t("Status"), t("Time"), ""].map((head) => h("th", {}, head)))), body)
          : h("p", { class: "muted" }, t("No race on record yet.")),
        more,
      ),
    ),
  );
}

/** The key this browser races with here (ID.SECRET), or null: it never played here. */
function storedKey() {
  try {
    return localStorage.getItem("seahaven.key");
  } catch {
    return null;
  }
}

/** "Add as a friend": a link to the lobby, which asks (add_friend) once it is this browser's
 * player (main.js, /?friend=ID; a browser that never played here gives a name first). Not on my
 * own page, nor for a racer who is not a registered player (nobody to ask). */
export function addFriendHref(player, key) {
  if (!/^u/.test(player) || (key && keyPlayer(key) === player)) return null;
  return `/?friend=${encodeURIComponent(player)}`;
}

function addFriendLink(doc) {
  const href = addFriendHref(doc.player, storedKey());
  if (!href) return null;
  return h(
    "p",
    { class: "add-friend" },
    h("a", { href, id: "add-friend" }, t("Add as a friend")),
    // TRANSLATORS: after "Add as a friend" on a player's page: where the link goes.
    h("span", { class: "muted" }, " ", t("(asked from the lobby)")),
  );
}

/** How many of the latest races with others the rivals are read from (a race document each). */
const RIVAL_RACES = 10;

/** The rivals part, filled once the latest races with others are read. */
async function showRivals(section, player, races, R) {
  const shared = races.filter((r) => r.racers > 1).slice(0, RIVAL_RACES);
  const docs = await Promise.all(shared.map((r) => raceDoc(r.race_id).catch(() => null)));
  R.rivals = rivalsOf(player, docs);
  const head = section.firstChild;
  if (!R.rivals.length) return section.replaceChildren(head, h("p", { class: "muted" }, t("No race against anyone yet.")));
  section.replaceChildren(
    head,
    h("p", { class: "muted" }, tn("From {n} race with others.", "From the latest {n} races with others.", shared.length)),
    table(
      [t("Rival"), t("Races"), t("Ahead of them"), t("Behind them")],
      R.rivals.map((r) => h("tr", {}, h("td", {}, r.racer.bot ? racerName(r.racer) : playerName(r.racer)), h("td", {}, number(r.races)), h("td", {}, number(r.ahead)), h("td", {}, number(r.behind)))),
      { class: "rivals" },
    ),
  );
}

function raceRow(race) {
  return h(
    "tr",
    {},
    h("td", {}, when(race.ended_at)),
    h("td", {}, presetTitle(race.preset)),
    h("td", {}, `#${race.deal}`),
    h("td", {}, t("{place} of {count}", { place: number(race.place), count: number(race.racers) })),
    h("td", {}, statusText(race.status, true)), // a race on record is over
    h("td", {}, raceTime(race.status === "finished" ? race.time_ms : null)),
    h("td", {}, raceLink(race.race_id, t("replay"))),
  );
}

// How a move that lost the deal (or lengthened the winning line) went, by kind (the analyses' ``to``).
const LOST_BY = {
  cell: (n) => tn("{n} by a move to a cell", "{n} by moves to a cell", n),
  column: (n) => tn("{n} by a move onto a column", "{n} by moves onto a column", n),
  "empty-column": (n) => tn("{n} by a move into an empty column", "{n} by moves into an empty column", n),
  foundation: (n) => tn("{n} by a move to the foundation", "{n} by moves to the foundation", n),
  undo: (n) => tn("{n} by an undo", "{n} by undos", n),
};
const DETOURS = {
  cell: (n) => tn("{n} move to a cell", "{n} moves to a cell", n),
  column: (n) => tn("{n} move onto a column", "{n} moves onto a column", n),
  "empty-column": (n) => tn("{n} move into an empty column", "{n} moves into an empty column", n),
  foundation: (n) => tn("{n} move to the foundation", "{n} moves to the foundation", n),
  undo: (n) => tn("{n} undo", "{n} undos", n),
};

/** "3 by a move to a cell and 2 by moves into an empty column": the kinds counted, most first. */
function byKind(counts, words) {
  const parts = Object.entries(counts ?? {})
    .filter(([kind, n]) => n > 0 && kind in words)
    .sort((p, q) => q[1] - p[1])
    .map(([kind, n]) => words[kind](n));
  return new Intl.ListFormat(language(), { type: "conjunction" }).format(parts);
}

/** The player's mistakes (``mistakes`` of their page: from the analyses of their latest races), in
 * words; nothing before a race of theirs was analysed. */
export function mistakesWords(name, m) {
  if (!m?.analysed) return [];
  const over = tn("In {name}'s one analysed race", "In {name}'s last {n} analysed races", m.analysed, { name });
  const how = byKind(m.lost_by, LOST_BY);
  const lost = !m.lost
    ? t("{over}, the deal was never lost.", { over })
    : how
      ? tn("{over}, the deal was lost once: {how}.", "{over}, the deal was lost {n} times: {how}.", m.lost, { over, how })
      : tn("{over}, the deal was lost once.", "{over}, the deal was lost {n} times.", m.lost, { over });
  const detours = byKind(m.detours, DETOURS);
  return detours ? [lost, t("The moves that made the winning line longer: {how}.", { how: detours })] : [lost];
}

function mistakesPanel(doc) {
  const words = mistakesWords(doc.name, doc.mistakes);
  if (!words.length) return null;
  return h(
    "section",
    { class: "card-panel mistakes", "aria-labelledby": "mistakes-h", id: "mistakes" },
    h("h2", { id: "mistakes-h" }, t("Mistakes")),
    words.map((text, i) => h("p", { class: i ? "muted" : null }, text)),
  );
}
