// The lobby's panel for a player coming back: their page, the leaderboards, and the people they
// raced last with how each went (read from the read API: GET /api/v1/players/{player}, then the
// race documents of their latest races with others). A player with no race yet is offered a first
// one; a server that serves no records (503: no database) shows no panel at all, since both pages
// would answer the same; a player not on record (404) gets the leaderboards and the offer.
import { h } from "./dom.js";
import { playerDoc, raceDoc } from "./records_api.js";
import { recentRivals } from "./rivals.js";
import { racerName } from "./marks.js";
import { number, t, tn } from "./i18n.js";

/** How many of the latest races with others are read (a race document each), and how many rivals shown. */
const RACES_READ = 8;
const RIVALS_SHOWN = 6;

/** Read ``player``'s panel into ``S.yours`` (``{player, state, rivals}``; state: "loading", "new"
 * (no race yet), "raced", "unlisted" (not on record), "off"), calling ``render`` when it changes. */
export async function loadYours(S, player, render) {
  const asked = { player, state: "loading", rivals: [] };
  S.yours = asked;
  let state;
  let rivals = [];
  try {
    // Not from the browser's cache, nor kept there: the lobby is read again after each race, and
    // "My page" opened next must not show the copy from before it (cached 10 s).
    const doc = await playerDoc(player, { unkept: true });
    const shared = (doc.recent ?? []).filter((r) => r.racers > 1).slice(0, RACES_READ);
    const docs = await Promise.all(shared.map((r) => raceDoc(r.race_id).catch(() => null)));
    rivals = recentRivals(doc.player, docs, RIVALS_SHOWN).map((r) => ({ player: r.racer.player, name: racerName(r.racer), races: r.races, ahead: r.ahead, behind: r.behind }));
    state = doc.races ? "raced" : "new";
  } catch (e) {
    state = e.status === 404 ? "unlisted" : "off";
  }
  if (S.yours !== asked) return; // asked again meanwhile (another player, the lobby again)
  S.yours = { player, state, rivals };
  render();
}

/** The panel (an empty hidden element when there is nothing to show). ``act``: the lobby's actions. */
export function yoursPanel(S, act) {
  const y = S.yours;
  if (!y || y.state === "off" || y.player !== S.me?.player) return h("span", { hidden: true });
  const link = (href, id, text) => h("a", { href, id }, text);
  const links = h(
    "p",
    { class: "row links" },
    y.state === "unlisted" ? null : link(`/players/${encodeURIComponent(y.player)}`, "yours-page", t("My page")),
    link("/boards", "yours-boards", t("Leaderboards")),
  );
  let body;
  if (y.state === "loading") body = h("p", { class: "muted" }, t("Loading…"));
  else if (y.state === "new" || y.state === "unlisted")
    body = [
      h("p", { id: "yours-new" }, t("No race on record yet. Today's daily race or a quick match makes a good first one.")),
      h(
        "div",
        { class: "row" },
        h("button", { id: "yours-daily", onclick: () => act.quickMatch({ preset: "seahaven", daily: true }) }, t("Race today's deal")),
        h("button", { id: "yours-quick", class: "quiet", onclick: () => act.quickMatch({ preset: "seahaven" }) }, t("Quick match")),
      ),
    ];
  else if (!y.rivals.length) body = h("p", { class: "muted", id: "yours-alone" }, t("No rival yet: your latest races were alone or against the computer."));
  else
    body = [
      h("h3", { id: "rivals-h" }, t("Recent rivals")),
      h(
        "ul",
        { class: "rivals", "aria-labelledby": "rivals-h" },
        y.rivals.map((r) =>
          h(
            "li",
            {},
            h("a", { href: `/players/${encodeURIComponent(r.player)}`, class: "who" }, r.name),
            " ",
            // TRANSLATORS: how a player did against a rival in their latest races together.
            h("span", { class: "muted h2h" }, tn("{n} race: {ahead} ahead, {behind} behind", "{n} races: {ahead} ahead, {behind} behind", r.races, { ahead: number(r.ahead), behind: number(r.behind) })),
          ),
        ),
      ),
    ];
  return h("section", { class: "card-panel yours", id: "yours", "aria-labelledby": "yours-h" }, h("h2", { id: "yours-h" }, t("Your races")), links, body);
}
