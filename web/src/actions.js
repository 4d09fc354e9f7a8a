// What the player does: requests to the server and moves on the board, each a small module of its
// concern: room_actions.js (into a room and out, the lobby's lists), match_actions.js (quick match,
// the daily race, solo's next deal), board_actions.js (moves, undo, their settling with the
// server), pick_actions.js (a card picked, dropped, the selection), race_actions.js (ready, resign,
// rematch, hint, auto-move). Each action changes the state (state.js) and asks the page to render;
// the page (main.js) hands in what it owns as `app`: the state `S`, `render()`, `say(text)`,
// `url(path)` (the address bar), `ask(...)` (a question in the page), `openingOf(deal)`,
// `keepAuto(on)`, `keepAsked(code)`, and optionally `sound(name)` and `announce(text)`.
import { roomActions } from "./room_actions.js";
import { matchActions } from "./match_actions.js";
import { boardActions } from "./board_actions.js";
import { pickActions } from "./pick_actions.js";
import { raceActions } from "./race_actions.js";

export { sameAuto } from "./board_actions.js";
export { DAILY_BOT_ROOM } from "./match_actions.js";

/** The actions, one object: each module gets ``app`` and the actions it goes on with (``act``,
 * filled before any action runs). */
export function makeActions(app) {
  const act = {};
  return Object.assign(act, roomActions(app), boardActions(app), pickActions(app, act), matchActions(app, act), raceActions(app, act));
}
