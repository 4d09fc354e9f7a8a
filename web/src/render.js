// Drawing the page (main.js): the state as parts (views.js), only what changed rebuilt (patch.js),
// what the state asks the page to say or keep done on the way.
import { language } from "./i18n.js";
import { patch } from "./patch.js";
import { pageParts, tick } from "./views.js";
import { slides } from "./motion.js";
import { loadYours } from "./yours.js";

/** The parts with the language in each key, so that a new language rebuilds them all (patch.js). */
const inLanguage = (parts, lang) => parts.map(([key, build, inner]) => [`${lang}|${key}`, build, inner && inLanguage(inner, lang)]);

/** The page's render over ``win``: ``app`` (its state `S`, `say`, the parts' app) and ``keep``
 * (storage.js). */
export function makeRender(win, app, keep) {
  const S = app.S;
  const doc = win.document;
  // The page the live region last spoke on: another page (the lobby after a race, the account
  // panel, another room) starts with it empty, so that a screen reader's review of it does not
  // find the last race's "played ...: 12 of 52 home" there.
  let spokenOn = null;
  const slider = slides(win, (n) => (S.slid = n));
  let frame = 0; // the renders so far: a part keyed by it is rebuilt at every one (views.js)

  return function render() {
    for (const text of S.said.splice(0)) app.say(text);
    const heard = S.heard.splice(0);
    const on = S.view === "room" ? `room:${S.room?.room}` : S.view;
    if (heard.length || on !== spokenOn) doc.getElementById("live").textContent = heard.join(". ");
    // The lobby's panel of mine (yours.js): read again each time I come back to the lobby (a race
    // since), or am another player (signed in); never for a solo page, which has no server.
    const me = S.me?.player;
    if (on === "lobby" && !S.room && me && me !== "solo" && (spokenOn !== "lobby" || S.yours?.player !== me)) loadYours(S, me, render);
    spokenOn = on;
    if (S.opening) {
      keep.keepOpening(S.opening);
      S.opening = null;
    }
    keep.keepQuick(S.quick);
    const root = doc.getElementById("app");
    if (patch(root, inLanguage(pageParts(app, ++frame), language()))) slider.drawn(root);
    tick(S);
    if (S.view === "name" && !root.contains(doc.activeElement)) doc.getElementById("name")?.focus();
  };
}
