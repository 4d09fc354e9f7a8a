// The lobby's panel for a player coming back: their page, the leaderboards, and the people they
// raced last with how each went (the read API: GET /api/v1/players/{player}, and its rivals list,
// GET /api/v1/players/{player}/rivals, each with the head-to-head), each to add as a friend. A
// player with no race yet is offered a first one; a server that serves no records (503: no
// database) shows no panel at all, since both pages would answer the same; a player not on record
// (404) gets the leaderboards and the offer.
import { h } from "./dom.js";
import { playerDoc, playerRivals } from "./records_api.js";
import { headToHead } from "./rivals.js";
import { listsKey, playerHref, rivalAct } from "./friends.js";
import { t } from "./i18n.js";

/** How many rivals are read (the friends panel lists the first of them too), and how many shown here. */
const RIVALS_READ = 10;
const RIVALS_SHOWN = 6;

/** Read ``player``'s panel into ``S.yours`` (``{player, state, rivals}``; state: "loading", "new"
 * (no race yet), "raced", "unlisted" (not on record), "off"; rivals: the API's, newest first, or
 * null when they could not be read), calling ``render`` when it changes. */
export async function loadYours(S, player, render) {
  const asked = { player, state: "loading", rivals: [] };
  S.yours = asked;
  let state;
  let rivals = [];
  try {
    // Not from the browser's cache, nor kept there: the lobby is read again after each race, and
    // "My page" opened next must not show the copy from before it (cached 10 s).
    const [doc, found] = await Promise.all([playerDoc(player, { unkept: true }), playerRivals(player, RIVALS_READ, { unkept: true }).catch((e) => e)]);
    // The rivals not read (a server before the list, say) are not said to be none.
    rivals = found instanceof Error ? null : found.rivals;
    state = doc.races ? "raced" : "new";
  } catch (e) {
    state = e.status === 404 ? "unlisted" : "off";
  }
  if (S.yours !== asked) return; // asked again meanwhile (another player, the lobby again)
  S.yours = { player, state, rivals };
  render();
}

/** What the panel shows: its part's key (the rivals' "Add friend" follows my friends lists). */
export const yoursKey = (S) => JSON.stringify([S.me?.player, S.me?.identified, S.yours, listsKey(S)]);

/** The panel (an empty hidden element when there is nothing to show). */
export function yoursPanel(app) {
  const { S, act } = app;
  const y = S.yours;
  if (!y || y.state === "off" || y.player !== S.me?.player) return h("span", { hidden: true });
  const link = (href, id, text) => h("a", { href, id }, text);
  const links = h("p", { class: "row links" }, y.state === "unlisted" ? null : link(playerHref(y.player), "yours-page", t("My page")), link("/boards", "yours-boards", t("Leaderboards")));
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
  else if (!y.rivals) body = null;
  else if (!y.rivals.length) body = h("p", { class: "muted", id: "yours-alone" }, t("No rival yet: your latest races were alone or against the computer."));
  else
    body = [
      h("h3", { id: "rivals-h" }, t("Recent rivals")),
      h(
        "ul",
        { class: "rivals", "aria-labelledby": "rivals-h" },
        y.rivals.slice(0, RIVALS_SHOWN).map((r) => {
          const { record, deals } = headToHead(r);
          return h(
            "li",
            { "data-player": r.player },
            h("a", { href: playerHref(r.player), class: "who", title: r.name }, r.name),
            " ",
            h("span", { class: "muted h2h" }, record),
            deals ? [" ", h("span", { class: "muted deals" }, deals)] : null,
            h("span", { class: "acts" }, rivalAct(app, r, "yours")),
          );
        }),
      ),
    ];
  return h("section", { class: "card-panel yours", id: "yours", "aria-labelledby": "yours-h" }, h("h2", { id: "yours-h" }, t("Your races")), links, body);
}
