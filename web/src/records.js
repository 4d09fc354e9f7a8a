// The records pages, a bundle of their own beside the race client (main.js): a race's replay
// (/races/{race_id}), a player's page (/players/{player}) and the leaderboards (/boards), all
// read from the public API (docs/api.md). Which page is the path's; its state (`R`, made by
// ``records`` and handed to the page shown) in window.seahavenRecords.
import "./style.css";
import "./records.css";
import { showBoards } from "./boards_page.js";
import { h } from "./dom.js";
import { showPlayer } from "./player_page.js";
import { showRace } from "./race_page.js";
import { speakAsStored, t } from "./i18n.js";

/** The page a path names: [page, its argument], or null. */
function route(path) {
  const race = /^\/races\/([^/]+)$/.exec(path);
  if (race) return ["race", race[1]];
  const player = /^\/players\/([^/]+)$/.exec(path);
  if (player) return ["player", decodeURIComponent(player[1])];
  return path === "/boards" ? ["boards", null] : null;
}

function header() {
  return h(
    "header",
    { class: "bar" },
    h("h1", {}, h("a", { href: "/", class: "home" }, t("Seahaven race"))),
    h("nav", { class: "records-nav" }, h("a", { href: "/boards" }, t("Leaderboards")), h("a", { href: "/" }, t("Race"))),
  );
}

async function start(R) {
  const app = document.getElementById("app");
  const main = h("div", {}, h("p", { class: "muted" }, t("Loading…")));
  app.replaceChildren(header(), main);
  const found = route(location.pathname);
  R.page = found?.[0] ?? "unknown";
  try {
    if (!found) throw new Error("no such page");
    if (found[0] === "race") await showRace(main, found[1], R);
    else if (found[0] === "player") await showPlayer(main, found[1], R);
    else await showBoards(main, R);
  } catch (e) {
    R.error = e.message;
    const missing = { race: () => t("No race {id} on record.", { id: found[1] }), player: () => t("No player {id} on record.", { id: found[1] }) }[R.page];
    const text = e.status === 404 && missing ? missing() : e.message;
    main.replaceChildren(h("p", { class: "card-panel error", role: "alert" }, text));
  }
  R.ready = true;
}

/** The records page in ``win``: its state made, its keys, language and page. */
function records(win) {
  const R = { page: null, error: null, onKey: null };
  win.seahavenRecords = R; // for the browser tests and the curious
  win.document.addEventListener("keydown", (e) => {
    // Fields keep their own keys (the slider steps by itself); a focused button keeps space.
    if (e.target.closest?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === " " && e.target.closest?.("button, a")) return;
    R.onKey?.(e);
  });
  if (win.localStorage.getItem("seahaven.fourColour")) win.document.body.classList.add("four-colour");
  speakAsStored(win);
  win.document.title = t("Seahaven race records");
  start(R);
}

records(window);
