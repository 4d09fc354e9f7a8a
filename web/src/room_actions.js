// The room actions (actions.js puts them together): the requests that take the player into a room
// and out of it, and the lobby's lists. ``app`` is what the page lends the actions (actions.js).
import { refusal } from "./explain.js";
import { arenaList } from "./records_api.js";
import { t } from "./i18n.js";
import { enterRoom, leftRoom, leavingResigns } from "./state.js";

/** Requests, rooms and the lobby's lists: {request, showRoom, enterWith, refreshRooms, backToLobby,
 * leaveFor, joinRoom, leave, leaveAsking}. */
export function roomActions(app) {
  const S = app.S;

  /** A request whose error is only said: the reply's body, or null after an error. */
  async function request(type, body = {}) {
    try {
      return await S.conn.call(type, body);
    } catch (e) {
      app.say(refusal(e));
      return null;
    }
  }

  /** Show a room frame: the state takes it, the address bar names it. */
  function showRoom(body) {
    if (body.room === S.seat) S.seat = null; // the seat is this tab's now
    enterRoom(S, body, app.openingOf(body.deal));
    if (!body.solo) app.url(`/r/${body.room}${body.role === "spectator" ? "?watch" : ""}`); // a solo game keeps its /solo/ address
    app.render();
  }

  async function enterWith(type, body) {
    const room = await request(type, body);
    if (room) showRoom(room);
  }

  async function refreshRooms() {
    if (S.view !== "lobby" || !S.conn?.online) return;
    refreshArenas();
    try {
      S.rooms = (await S.conn.call("list_rooms", {})).rooms;
      S.daily = await S.conn.call("daily_board", { preset: "seahaven" });
      app.render();
    } catch {
      // the next refresh tries again
    }
  }

  /** The live arenas the lobby lists (the records API's; none said when it cannot be read). */
  async function refreshArenas() {
    try {
      const { live, upcoming } = await arenaList();
      const arenas = [...live, ...upcoming];
      if (JSON.stringify(arenas) === JSON.stringify(S.arenas)) return;
      S.arenas = arenas;
    } catch {
      if (S.arenas === null) return;
      S.arenas = null;
    }
    if (S.view === "lobby") app.render();
  }

  function backToLobby(why) {
    leftRoom(S);
    app.url("/");
    if (why) app.say(why);
    app.render(); // the lobby at once; its rooms and today's board follow
    refreshRooms();
  }

  /** Out of the room I am in (unless it is ``code``), for a link that means "take me there":
   * asked first when leaving resigns a race. False when the player stays: the race goes on here. */
  async function leaveFor(code = null) {
    if (!S.room || S.room.room === code) return true;
    if (leavingResigns(S)) {
      // Asked in the page (never the browser's confirm): the address is this race's meanwhile, so
      // that Back, a reload or the answer "stay" all keep the player racing here.
      const here = S.room.room;
      app.url(`/r/${here}`);
      const go = await app.ask(
        t("You are racing in room {code}", { code: here }),
        code ? t("Opening room {code} leaves this race, and leaving a race resigns it.", { code }) : t("Going there leaves this race, and leaving a race resigns it."),
        t("Resign and leave"),
        t("Stay in the race"),
      );
      // Still in that race (not resigned meanwhile, nor moved elsewhere): stay, or go as asked.
      if (!go || S.room?.room !== here) {
        app.render();
        return false;
      }
      if (code) app.url(`/r/${code}`);
    }
    await request("leave");
    leftRoom(S);
    return true;
  }

  /** Go to the room ``code`` names (to race, or to watch): out of the one I am in first. */
  async function joinRoom(code, spectate) {
    if (!(await leaveFor(code))) return;
    try {
      showRoom(await S.conn.call("join_room", { room: code, spectate }));
    } catch (e) {
      if (e.code === "race-in-progress" && !spectate) {
        app.say(/over/.test(e.message) ? t("That race is over: here are its results.") : t("The race has begun: you are watching it."));
        return joinRoom(code, true);
      }
      app.say(refusal(e));
      if (!S.room) app.url("/");
      app.render();
    }
  }

  async function leave() {
    await request("leave"); // not-in-room means we are out already
    backToLobby();
  }

  /** The Leave button: asked first in the page when leaving resigns a race. */
  async function leaveAsking() {
    const here = S.room?.room;
    if (leavingResigns(S) && !(await app.ask(t("You are racing in room {code}", { code: here }), t("Leaving a race resigns it."), t("Resign and leave"), t("Stay in the race")))) return;
    if (S.room?.room === here) await leave();
  }

  return { request, showRoom, enterWith, refreshRooms, backToLobby, leaveFor, joinRoom, leave, leaveAsking };
}
