// The browser client's page: it owns the storage, the connection, the timers and the DOM, and
// wires the parts, each a function of what it is handed: state.js (messages in, state out),
// actions.js (what the player does), storage.js (what the browser keeps), page_tools.js (the toast,
// a question, the live region), render.js (views.js's parts patched in, patch.js), session.js (the
// connection and its welcome), player_key.js (registering, a key), events.js (the server's
// events), hooks.js (what account.js, challenge.js and arena.js use), settings.js (name, language,
// sounds), keys.js (the keys). Nothing starts at import: start() connects and sets the timers.
import "./style.css";
import { SUITS } from "./rules.js";
import { challengeOfPath } from "./challenge.js";
import { makeActions } from "./actions.js";
import { OWN_KEYS, keyAction } from "./keys.js";
import { inRace, initialState, roomOfPath } from "./state.js";
import { tick } from "./views.js";
import { soloOfPath } from "./solo.js";
import { arenaOfPath, tickArena } from "./arena.js";
import { RatingBook } from "./ratings_view.js";
import { KEY, keeping } from "./storage.js";
import { pageTools } from "./page_tools.js";
import { makeRender } from "./render.js";
import { session } from "./session.js";
import { playerKey } from "./player_key.js";
import { eventHandler } from "./events.js";
import { makeHooks } from "./hooks.js";
import { settings, speakAsAsked } from "./settings.js";

export { cleanName } from "./settings.js";

/** The page's state at its start, from its address and what the browser keeps. */
function pageState(win, keep) {
  const { store, tab } = keep;
  const challenge = challengeOfPath(win.location.pathname);
  const S = initialState({
    view: challenge ? "challenge" : store.getItem(KEY.name) ? "lobby" : "name",
    wanted: roomOfPath(win.location.pathname, win.location.search),
    challenge,
  });
  const arena = arenaOfPath(win.location.pathname);
  if (arena) S.wanted = { arena }; // an /a/CODE link
  // "Race this deal" (a replay's, a gone room's): the lobby's new room on that deal.
  S.dealAsked = new URLSearchParams(win.location.search).get("deal");
  if (S.dealAsked && win.location.pathname === "/") win.history.replaceState(null, "", "/");
  // "Add as a friend" on a player's page (/?friend=ID): asked once this page is a player's (welcomed),
  // the address cleaned at once so that a reload does not ask again.
  S.friendAsked = win.location.pathname === "/" ? new URLSearchParams(win.location.search).get("friend") : null;
  if (S.friendAsked) win.history.replaceState(null, "", "/");
  S.autoMove = store.getItem(KEY.auto) !== "off";
  S.autoAsked = tab.getItem(KEY.asked);
  S.quick = tab.getItem(KEY.quick) === "1";
  return S;
}

/** Build the page's app: its state, actions and hooks; nothing runs until ``start``. */
export function createApp(win = window) {
  // The session token is this tab's (a reload resumes it; another tab is a session of its own,
  // beside this one, of the same player); the key and the name are the browser's.
  const keep = keeping(win.localStorage, win.sessionStorage);
  speakAsAsked(win);
  const S = pageState(win, keep);

  // The app the parts are handed: the state, the page's timers a part restarts (friends.js: the
  // invitations' countdown), the racers' rating pages asked (ratings_view.js), the page's tools, the keeping the actions use, and each part as it
  // is made (every part reads the others through it when it runs).
  const app = { S, timers: {}, ratingBook: new RatingBook(), ...pageTools(win, S), lastForm: keep.lastForm, keepForm: keep.keepForm, openingOf: keep.openingOf, keepAuto: keep.keepAuto, keepAsked: keep.keepAsked, storedName: keep.storedName };
  app.render = makeRender(win, app, keep);
  app.act = makeActions(app);
  app.session = session(win, app, keep);
  app.player = playerKey(app, keep);
  app.hooks = makeHooks(app, keep);
  app.onEvent = eventHandler(app, keep);
  Object.assign(app, settings(win, app, keep));
  const act = app.act;

  function onKey(e) {
    if (e.target.closest?.("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = keyAction(S, e.key);
    if (!action) return;
    if (OWN_KEYS.has(e.key)) e.preventDefault();
    const [name, ...args] = action;
    act[name](...args);
  }

  /** Connect (unless a challenge's page, which connects when its challenge is raced) and start the timers. */
  app.start = function start() {
    if (keep.store.getItem(KEY.four)) win.document.body.classList.add("four-colour");
    const practice = soloOfPath(win.location.pathname);
    if (practice && app.session.solo(practice)) {
      win.document.addEventListener("keydown", onKey);
      setInterval(() => tick(S), 250);
      return app.render();
    }
    if (practice && S.view === "room") S.view = "lobby";
    win.document.addEventListener("keydown", onKey);
    // Closing or leaving the page mid-race asks first (the browser's own question): the seat waits
    // out the grace period, then the race is lost.
    win.addEventListener("beforeunload", (e) => inRace(S) && e.preventDefault());
    setInterval(() => tick(S), 250);
    setInterval(act.refreshRooms, 4000);
    setInterval(() => tickArena(app.hooks), 500);
    setInterval(() => S.conn?.online && S.conn.call("ping").catch(() => {}), 30000);
    if (S.view === "lobby") app.session.connect();
    app.render();
  };
  return app;
}

if (typeof window !== "undefined" && window.document?.getElementById("app")) {
  const app = createApp(window);
  window.seahaven = app.S; // for the browser tests and the curious
  app.start();
}
export { SUITS };
