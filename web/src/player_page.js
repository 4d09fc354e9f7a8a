// /players/{player}: a player's page (GET /api/v1/players/{player}): races, wins, streaks, the
// best time per preset, ratings per preset and what each rated race did to them (GET .../ratings),
// the arenas they played (GET .../arenas), and their races a page at a time (GET .../races), each
// linking to its replay.
import { h } from "./dom.js";
import { playerArenas, playerDoc, playerRaces, playerRatings, raceDoc } from "./records_api.js";
import { playerName, presetTitle, raceLink, raceTime, table, when } from "./records_format.js";
import { racerName } from "./marks.js";
import { number, t, tn } from "./i18n.js";
import { statusText } from "./state.js";
import { rivalsOf } from "./rivals.js";

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
      ),
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
