// The server's events in the page (main.js): each to the part it is for (the arena, friends, the
// operators' notices), the rest to the state (state.js applyEvent), then what the page does
// besides (a room entered, a sound, quick match's ready, the opening's safe cards). A function of
// the page's `app` (its state `S`, `say`, `url`, `render`, `act`, `hooks`, `session`, `sound`) and
// `keep` (storage.js).
import { ghostChallenge, noteRaced } from "./challenge.js";
import { applyEvent, leftRoom, resultLine } from "./state.js";
import { noteSolo } from "./solo.js";
import { onArenaMessage, showArena } from "./arena.js";
import { ratingsChanged } from "./ratings_view.js";
import { t } from "./i18n.js";
import { forgetSent, onFriendsMessage } from "./friends.js";

const LAST_RACE_MS = 10000; // how long the last race's result is said over the next one

/** The connection's ``onEvent(type, body)``. */
export function eventHandler(app, keep) {
  const S = app.S;
  const act = app.act;
  const { store } = keep;

  return function onEvent(type, body) {
    if (type === "room") {
      // The session is still in a room: a link to another one (a challenge, an arena) means "take me there".
      if ((S.wanted?.code && S.wanted.code !== body.room) || S.wanted?.challenge || S.wanted?.arena) {
        applyEvent(S, type, body);
        return app.session.goWanted();
      }
      if (S.wanted?.code === body.room) S.wanted = null;
      // The next race takes the screen at once (an arena's): the last one's result stays in sight a while.
      if (S.room?.phase === "finished" && S.room.room !== body.room && S.room.standings?.length) app.say(t("The last race: {result}", { result: resultLine(S.room) }), LAST_RACE_MS);
      act.showRoom(body);
      return act.quickReady(); // moved into a quick match partner's room: ready there
    }
    if (type === "seat_taken") {
      // Another tab or device of mine took my seat: the lobby here, with "Play here" to take it back.
      if (S.room?.room === body.room) {
        leftRoom(S);
        app.url("/");
      }
      S.seat = body.room;
      app.say(t("Playing in another tab or device"));
      act.refreshRooms();
      return app.render();
    }
    if (type === "rating" && S.room) ratingsChanged(app.ratingBook, S.room.racers.map((r) => r.player)); // theirs changed too: ask again
    if (onArenaMessage(S.arena, type, body)) return showArena(app.hooks);
    if (onFriendsMessage(app, type, body)) return app.render();
    if (type === "notice") {
      // From the server's operators (docs/admin.md): shown for a while; a closed room takes us to the lobby.
      if (body.room && S.room?.room === body.room) {
        S.conn.removed(body.text); // the server closes this connection next (4004, or an abort)
        leftRoom(S);
        app.url("/");
        act.refreshRooms();
      }
      app.say(body.text, 15000);
      return app.render();
    }
    if (type === "result" && S.room && ghostChallenge(S.room)) noteRaced(store, ghostChallenge(S.room));
    if (type === "result" && S.room?.role === "racer") {
      const me = body.standings.find((s) => s.player === S.room.you) ?? (S.room.solo ? body.standings[0] : null);
      if (me?.place === 1 && me.status === "finished") app.sound("win");
    }
    if (type === "result" && S.room?.solo) {
      const me = body.standings[0];
      S.soloStats = noteSolo(store, S.room.preset, me?.status === "finished", me?.time_ms ?? null);
    }
    applyEvent(S, type, body, Date.now());
    app.render();
    if (type === "members") act.quickReady(); // a quick match partner joined my room
    // The opening's safe cards: the server plays them when ready asked it to (a progress with them follows).
    if (type === "started") {
      act.started();
      if (S.room) forgetSent(S, S.room.room); // the invitations to its waiting room are answered, or too late
    }
    if (S.resync) act.resync(S.resync);
  };
}
