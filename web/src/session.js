// The connection and the session on it (main.js): connecting, the welcome (who I am, then where a
// link or a lost seat takes me), and solo practice's stand-in connection. A function of the page's
// `app` (its state `S`, `say`, `url`, `render`, `act`, `hooks`, `player`, `onEvent`) and `keep`
// (storage.js).
import { Connection } from "./net.js";
import { acceptChallenge } from "./challenge.js";
import { joinArena } from "./arena.js";
import { t } from "./i18n.js";
import { leftRoom } from "./state.js";
import { SoloConnection, soloStats } from "./solo.js";
import { addLinked, loadFriends } from "./friends.js";
import { KEY } from "./storage.js";

/** {connect, playerOnline, welcomed, raceChallenge, goWanted, solo}. */
export function session(win, app, keep) {
  const S = app.S;
  const { store } = keep;

  /** This page is a registered player's, connected: their name is theirs to change in place. */
  const playerOnline = () => Boolean(S.me?.identified && S.conn?.online);

  function connect() {
    const url = `${win.location.protocol === "https:" ? "wss" : "ws"}://${win.location.host}/`;
    S.conn = new Connection(url, { onEvent: app.onEvent, onStatus, onWelcome, onKey: keep.keepKey });
    S.conn.start(store.getItem(KEY.name) || "player", keep.token(), keep.storedKey());
  }

  function onStatus(status, detail = "") {
    S.status = status;
    S.statusDetail = detail;
    app.render();
  }

  function onWelcome(body, error) {
    if (error) {
      keep.forgetToken();
      app.say(t("your earlier session has expired: starting a new one"));
      return;
    }
    if (app.player.becomePlayer(body)) return app.render(); // goes on as the player, in a session of its own
    welcomed(body);
  }

  /** A session that is ours to race in: who we are, then where a link or a lost seat takes us. */
  function welcomed(body) {
    S.me = body;
    S.seat = body.seat ?? null;
    if (body.identified) keep.keepName(body.name); // the player's name, whatever this device called them
    loadFriends(app); // my friends and what they are doing (friends.js): their events follow
    if (S.friendAsked) {
      addLinked(app, S.friendAsked);
      S.friendAsked = null;
    }
    keep.keepToken(body.token);
    if (body.room) return; // the room frame follows
    S.quick = false; // no room: no quick match's wait either
    if (S.room?.role === "spectator") S.wanted ??= { code: S.room.room, watch: true }; // a dropped spectator joins again
    else if (S.room) {
      leftRoom(S);
      app.say(t("your seat is gone"));
    }
    goWanted();
    app.render();
  }

  /** The room a link named, or the lobby's rooms. */
  function goWanted() {
    if (!S.wanted) return app.act.refreshRooms();
    const { code, watch, challenge, arena } = S.wanted;
    S.wanted = null;
    if (challenge) raceChallenge(challenge);
    else if (arena) joinArena(app.hooks, arena);
    else app.act.joinRoom(code, watch);
  }

  /** Race ``challenge``'s ghost: out of the room I am in first (asked when that resigns a race). */
  async function raceChallenge(challenge) {
    if (!S.room && S.seat) await app.act.joinRoom(S.seat, false); // my seat is in another tab: taken here, to leave it
    if (await app.act.leaveFor()) return acceptChallenge(app.hooks, challenge);
  }

  /** Practice alone on the deal a /solo/ link names: a stand-in connection judges the moves. */
  function solo(code) {
    try {
      // TRANSLATORS: the name of a player alone on a deal who never gave one (solo practice's results).
      S.conn = new SoloConnection(code, store.getItem(KEY.name) || t("you"), { onEvent: app.onEvent, onLeave: () => win.location.assign("/") });
    } catch (e) {
      S.conn = null;
      app.url("/");
      app.say(t("That deal link does not work: {reason}.", { reason: e.message }));
      return false;
    }
    S.status = "online";
    S.me = { player: "solo", name: S.conn.name };
    S.soloStats = soloStats(store, S.conn.preset);
    S.conn.begin(S.autoMove);
    return true;
  }

  return { connect, playerOnline, welcomed, raceChallenge, goWanted, solo };
}
