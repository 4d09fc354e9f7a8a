// The browser client's page: it owns the storage, the connection, the timers and the DOM, and
// wires the parts: state.js (messages in, state out), actions.js (what the player does), views.js
// (the state as elements), keys.js (the keys), patch.js (only what changed is rebuilt).
// Nothing starts at import: start() connects and sets the timers.
import "./style.css";
import { Connection } from "./net.js";
import { SUITS } from "./rules.js";
import { openAccount } from "./account.js";
import { acceptChallenge, challengeOfPath, ghostChallenge, noteRaced, racedHere } from "./challenge.js";
import { makeActions } from "./actions.js";
import { OWN_KEYS, keyAction } from "./keys.js";
import { patch } from "./patch.js";
import { applyEvent, inRace, initialState, leftRoom, resultLine, roomOfPath } from "./state.js";
import { pageParts, tick } from "./views.js";
import { SoloConnection, noteSolo, soloOfPath, soloStats } from "./solo.js";
import { slides } from "./motion.js";
import { A, arenaOfPath, joinArena, onArenaMessage, showArena, tickArena } from "./arena.js";
import { ratingsChanged } from "./ratings_view.js";
import { STORAGE_KEY, language, speakAsStored, t } from "./i18n.js";
import { h } from "./dom.js";
import { said } from "./marks.js";
import { addLinked, forgetSent, loadFriends, onFriendsMessage } from "./friends.js";
import { loadYours } from "./yours.js";
import { setSound, sound, soundOn } from "./sound.js";

const LAST_RACE_MS = 10000; // how long the last race's result is said over the next one

const KEY = {
  name: "seahaven.name",
  token: "seahaven.token",
  key: "seahaven.key", // the registered player's secret key (docs/protocol.md, section 21)
  anonymous: "seahaven.anonymous", // the player deleted their account here: register no more by itself
  four: "seahaven.fourColour",
  opening: "seahaven.opening",
  auto: "seahaven.autoMove", // "off": no auto-move to the foundations
  sound: "seahaven.sound", // "on": short sounds (sound.js); off unless the player turned them on
  asked: "seahaven.autoAsked", // this tab's: the room whose next opening the server plays for me (ready.auto)
  quick: "seahaven.quick", // this tab's: waiting in a quick match (ready by itself once paired, after a reload too)
  form: "seahaven.newRoom", // the lobby's new-room form as last sent (its deal excepted)
  lang: STORAGE_KEY, // the language the player chose with the switcher (else the browser's)
};

const speakAsAsked = (win) => {
  speakAsStored(win);
  win.document.title = t("Seahaven race");
};

/** The parts with the language in each key, so that a new language rebuilds them all (patch.js). */
const inLanguage = (parts, lang) => parts.map(([key, build, inner]) => [`${lang}|${key}`, build, inner && inLanguage(inner, lang)]);

/** A name as the server will show it: trimmed; one of nothing but spaces is no name. */
export const cleanName = (text) => text.trim();

/** Build the page's app: its state, actions and hooks; nothing runs until ``start``. */
export function createApp(win = window) {
  const store = win.localStorage;
  // The session token is this tab's (a reload resumes it; another tab is a session of its own,
  // beside this one, of the same player); the key and the name are the browser's.
  const tab = win.sessionStorage;
  speakAsAsked(win);
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
  S.arena = A; // the arena I am in: arena.js keeps it, seen here by the tests
  S.autoMove = store.getItem(KEY.auto) !== "off";
  setSound(store.getItem(KEY.sound) === "on");
  S.autoAsked = tab.getItem(KEY.asked);
  S.quick = tab.getItem(KEY.quick) === "1";
  let toastTimer = null;

  const app = {
    S,
    render,
    say(text, ms = 4000) {
      S.toast = text;
      clearTimeout(toastTimer);
      const el = document.getElementById("toast");
      toastTimer = setTimeout(() => {
        S.toast = "";
        el.textContent = "";
      }, ms);
      el.textContent = text;
    },
    url: (path) => win.history.replaceState(null, "", path),
    /** The new-room form's last settings (JSON-able), kept in this browser. */
    lastForm() {
      try {
        return JSON.parse(store.getItem(KEY.form) ?? "{}") ?? {};
      } catch {
        return {};
      }
    },
    keepForm: (settings) => store.setItem(KEY.form, JSON.stringify(settings)),
    /** Ask the player in the page (a modal dialog: focus kept in it, Escape for no): resolves
     * true for ``yes``, false for ``no``. The safe answer (no) has the focus. */
    ask(title, text, yes, no) {
      document.getElementById("ask")?.remove();
      return new Promise((resolve) => {
        const done = (answer) => {
          if (!dialog.isConnected) return;
          dialog.close();
          dialog.remove();
          resolve(answer);
        };
        const stay = h("button", { id: "ask-no", type: "button", onclick: () => done(false) }, no);
        const dialog = h(
          "dialog",
          { id: "ask", class: "card-panel ask", "aria-labelledby": "ask-h", "aria-describedby": "ask-text", oncancel: (e) => (e.preventDefault(), done(false)) },
          h("h2", { id: "ask-h" }, title),
          h("p", { id: "ask-text" }, text),
          h("div", { class: "row" }, stay, h("button", { id: "ask-yes", type: "button", class: "quiet", onclick: () => done(true) }, yes)),
        );
        document.body.append(dialog);
        dialog.showModal();
        stay.focus();
      });
    },
    /** Said politely to screen readers only (the live region): selections, places, moves. */
    announce(text) {
      S.heard.push(text);
    },
    // The last race's opening board: a racer's room state after a reload holds only the current
    // board, and undo needs the moves from the opening.
    openingOf(deal) {
      try {
        const saved = JSON.parse(store.getItem(KEY.opening) ?? "null");
        return saved?.deal === deal ? saved : null;
      } catch {
        return null;
      }
    },
    keepAuto: (on) => store.setItem(KEY.auto, on ? "on" : "off"),
    keepAsked: (code) => (code ? tab.setItem(KEY.asked, code) : tab.removeItem(KEY.asked)),
    storedName: () => store.getItem(KEY.name) ?? "",
    named(text) {
      const name = cleanName(text);
      if (!name) return app.say(t("A name needs a letter or a digit."));
      store.setItem(KEY.name, name);
      S.view = "lobby";
      if (playerOnline()) {
        // The player's name, on every device of theirs from now on (the session goes on).
        S.conn.call("set_name", { name }).then(
          () => {
            S.me = { ...S.me, name };
            render();
          },
          (e) => app.say(e.message),
        );
        return render();
      }
      connect();
      render();
    },
    /** "I have a player here: sign in" on the first screen: connect without becoming a new
     * player, and open the account panel, whose sign-in makes this browser that player. */
    signInFirst(text) {
      store.setItem(KEY.name, cleanName(text) || "player"); // as connect() names a nameless session
      S.signingIn = true;
      S.view = "account";
      connect();
      openAccount(hooks);
      render();
    },
    /** A new name: a guest's is a new session (the server fixes the name at hello); a player's
     * is changed in place (set_name, in named). */
    rename() {
      if (playerOnline()) {
        S.view = "name";
        return render();
      }
      S.conn.retire();
      tab.removeItem(KEY.token);
      S.view = "name";
      render();
    },
    /** The switcher: speak ``lang`` from now on, here and after a reload. */
    speak(lang) {
      store.setItem(KEY.lang, lang);
      speakAsAsked(win);
      // A bot's name is said in the page's language: said again in this one.
      if (S.room) {
        S.room.racers = S.room.racers.map(said);
        S.room.standings = S.room.standings?.map(said) ?? S.room.standings;
        if (S.result) S.result.standings = S.room.standings;
      }
      render();
    },
    /** Short sounds (sound.js): played by the parts through ``app.sound``, when on. */
    sound,
    soundOn,
    /** The sounds' switch: kept in this browser; turned on, a sound says what they are like. */
    setSound(on) {
      setSound(on);
      store.setItem(KEY.sound, on ? "on" : "off");
      app.say(on ? t("Sounds on: a card placed, a refused move, a win.") : t("Sounds off."));
      sound("place");
    },
    fourColour(on) {
      document.body.classList.toggle("four-colour", on);
      store.setItem(KEY.four, on ? "1" : "");
    },
  };
  const act = (app.act = makeActions(app));

  // The page the live region last spoke on: another page (the lobby after a race, the account
  // panel, another room) starts with it empty, so that a screen reader's review of it does not
  // find the last race's "played ...: 12 of 52 home" there.
  let spokenOn = null;
  const slider = slides(win, (n) => (S.slid = n));

  function render() {
    for (const text of S.said.splice(0)) app.say(text);
    const heard = S.heard.splice(0);
    const on = S.view === "room" ? `room:${S.room?.room}` : S.view;
    if (heard.length || on !== spokenOn) document.getElementById("live").textContent = heard.join(". ");
    // The lobby's panel of mine (yours.js): read again each time I come back to the lobby (a race
    // since), or am another player (signed in); never for a solo page, which has no server.
    const me = S.me?.player;
    if (on === "lobby" && !S.room && me && me !== "solo" && (spokenOn !== "lobby" || S.yours?.player !== me)) loadYours(S, me, render);
    spokenOn = on;
    if (S.opening) {
      store.setItem(KEY.opening, JSON.stringify(S.opening));
      S.opening = null;
    }
    if (S.quick) tab.setItem(KEY.quick, "1");
    else tab.removeItem(KEY.quick);
    const root = document.getElementById("app");
    if (patch(root, inLanguage(pageParts(app), language()))) slider.drawn(root);
    tick(S);
    if (S.view === "name" && !root.contains(document.activeElement)) document.getElementById("name")?.focus();
  }

  /** This page is a registered player's, connected: their name is theirs to change in place. */
  const playerOnline = () => Boolean(S.me?.identified && S.conn?.online);

  function connect() {
    const url = `${win.location.protocol === "https:" ? "wss" : "ws"}://${win.location.host}/`;
    S.conn = new Connection(url, { onEvent, onStatus, onWelcome, onKey: keepKey });
    S.conn.start(store.getItem(KEY.name) || "player", tab.getItem(KEY.token), store.getItem(KEY.key));
  }

  function keepKey(key) {
    if (key) store.setItem(KEY.key, key);
    else store.removeItem(KEY.key);
  }

  /** A browser without a key becomes a registered player of this server before it races: the
   * anonymous session's first call registers, and a new session said with the key takes its place
   * (useKey) before anything else is done, so the first race is already the player's (its page,
   * ratings and records). True while that happens. Not in a room (a resumed race keeps its seat: the
   * key is kept for the next session), nor after the player chose to race anonymously (an account
   * deleted here), nor again after a server that keeps no players said so. */
  function becomePlayer(welcome) {
    if (welcome.identified || welcome.room || S.room || S.signingIn || store.getItem(KEY.key) || store.getItem(KEY.anonymous)) return false;
    if (S.registering) return S.registering === "asking";
    S.registering = "asking";
    const conn = S.conn;
    conn.holding = true; // a request made meanwhile (Create room at once) is the player's, not this session's
    conn
      .call("register")
      .then((identity) => {
        if (!identity.key) throw new Error("no key");
        if (S.conn !== conn) return keepKey(identity.key);
        hooks.useKey(identity.key);
        conn.handOver(S.conn); // a request made meanwhile (Create room at once) goes to the player's session
      })
      .catch(() => {
        // records-unavailable, or an older server: race anonymously on this session
        conn.release();
        if (S.conn === conn) welcomed(welcome);
      })
      .finally(() => {
        S.registering = "asked";
      });
    return true;
  }

  // What the account panel and the challenges (account.js, challenge.js) use of the app.
  const hooks = (app.hooks = {
    get conn() {
      return S.conn;
    },
    get me() {
      return S.me;
    },
    // Their state is their own (account.js, challenge.js): a render they ask for rebuilds.
    render: () => {
      S.outside++;
      render();
    },
    toast: (text) => app.say(text),
    enterRoom: (room) => act.showRoom(room),
    leave: () => act.leave(),
    name: () => store.getItem(KEY.name) ?? "",
    raced: (challenge) => racedHere(store, challenge),
    storedKey: () => store.getItem(KEY.key),
    /** Race as the player ``key`` names from now on (signed in, registered: account.js): a new
     * session, said with the key (a token would resume this one, which is not that player's). */
    useKey(key) {
      S.signingIn = false;
      keepKey(key);
      store.removeItem(KEY.anonymous);
      S.conn.retire();
      tab.removeItem(KEY.token);
      S.me = null;
      connect();
      render();
    },
    /** The account is deleted: forget its key, and race on anonymously without registering again. */
    forgetKey() {
      keepKey(null);
      store.setItem(KEY.anonymous, "1");
      S.conn.key = null;
    },
    show(view) {
      S.view = view;
      if (view === "account") openAccount(hooks);
      render();
      act.refreshRooms();
    },
    /** "Race it" on a challenge's page: connect (with this name) if need be, then accept it. */
    raceChallenge(challenge, name) {
      store.setItem(KEY.name, name);
      if (S.conn?.online) return raceChallenge(challenge);
      S.wanted = { challenge };
      if (!S.conn) connect();
    },
  });

  function onStatus(status, detail = "") {
    S.status = status;
    S.statusDetail = detail;
    render();
  }

  function onWelcome(body, error) {
    if (error) {
      tab.removeItem(KEY.token);
      app.say(t("your earlier session has expired: starting a new one"));
      return;
    }
    if (becomePlayer(body)) return render(); // goes on as the player, in a session of its own
    welcomed(body);
  }

  /** A session that is ours to race in: who we are, then where a link or a lost seat takes us. */
  function welcomed(body) {
    S.me = body;
    S.seat = body.seat ?? null;
    if (body.identified) store.setItem(KEY.name, body.name); // the player's name, whatever this device called them
    loadFriends(app); // my friends and what they are doing (friends.js): their events follow
    if (S.friendAsked) {
      addLinked(app, S.friendAsked);
      S.friendAsked = null;
    }
    tab.setItem(KEY.token, body.token);
    if (body.room) return; // the room frame follows
    S.quick = false; // no room: no quick match's wait either
    if (S.room?.role === "spectator") S.wanted ??= { code: S.room.room, watch: true }; // a dropped spectator joins again
    else if (S.room) {
      leftRoom(S);
      app.say(t("your seat is gone"));
    }
    goWanted();
    render();
  }

  /** The room a link named, or the lobby's rooms. */
  function goWanted() {
    if (!S.wanted) return act.refreshRooms();
    const { code, watch, challenge, arena } = S.wanted;
    S.wanted = null;
    if (challenge) raceChallenge(challenge);
    else if (arena) joinArena(hooks, arena);
    else act.joinRoom(code, watch);
  }

  /** Race ``challenge``'s ghost: out of the room I am in first (asked when that resigns a race). */
  async function raceChallenge(challenge) {
    if (!S.room && S.seat) await act.joinRoom(S.seat, false); // my seat is in another tab: taken here, to leave it
    if (await act.leaveFor()) return acceptChallenge(hooks, challenge);
  }

  function onEvent(type, body) {
    if (type === "room") {
      // The session is still in a room: a link to another one (a challenge, an arena) means "take me there".
      if ((S.wanted?.code && S.wanted.code !== body.room) || S.wanted?.challenge || S.wanted?.arena) {
        applyEvent(S, type, body);
        return goWanted();
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
      return render();
    }
    if (type === "rating" && S.room) ratingsChanged(S.room.racers.map((r) => r.player)); // theirs changed too: ask again
    if (onArenaMessage(type, body)) return showArena(hooks);
    if (onFriendsMessage(app, type, body)) return render();
    if (type === "notice") {
      // From the server's operators (docs/admin.md): shown for a while; a closed room takes us to the lobby.
      if (body.room && S.room?.room === body.room) {
        S.conn.removed(body.text); // the server closes this connection next (4004, or an abort)
        leftRoom(S);
        app.url("/");
        act.refreshRooms();
      }
      app.say(body.text, 15000);
      return render();
    }
    if (type === "result" && S.room && ghostChallenge(S.room)) noteRaced(store, ghostChallenge(S.room));
    if (type === "result" && S.room?.role === "racer") {
      const me = body.standings.find((s) => s.player === S.room.you) ?? (S.room.solo ? body.standings[0] : null);
      if (me?.place === 1 && me.status === "finished") sound("win");
    }
    if (type === "result" && S.room?.solo) {
      const me = body.standings[0];
      S.soloStats = noteSolo(store, S.room.preset, me?.status === "finished", me?.time_ms ?? null);
    }
    applyEvent(S, type, body, Date.now());
    render();
    if (type === "members") act.quickReady(); // a quick match partner joined my room
    // The opening's safe cards: the server plays them when ready asked it to (a progress with them follows).
    if (type === "started") {
      act.started();
      if (S.room) forgetSent(S.room.room); // the invitations to its waiting room are answered, or too late
    }
    if (S.resync) act.resync(S.resync);
  }

  function onKey(e) {
    if (e.target.closest?.("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = keyAction(S, e.key);
    if (!action) return;
    if (OWN_KEYS.has(e.key)) e.preventDefault();
    const [name, ...args] = action;
    act[name](...args);
  }

  /** Practice alone on the deal a /solo/ link names: a stand-in connection judges the moves. */
  function solo(code) {
    try {
      // TRANSLATORS: the name of a player alone on a deal who never gave one (solo practice's results).
      S.conn = new SoloConnection(code, store.getItem(KEY.name) || t("you"), { onEvent, onLeave: () => win.location.assign("/") });
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

  /** Connect (unless a challenge's page, which connects when its challenge is raced) and start the timers. */
  function start() {
    if (store.getItem(KEY.four)) document.body.classList.add("four-colour");
    const practice = soloOfPath(win.location.pathname);
    if (practice && solo(practice)) {
      document.addEventListener("keydown", onKey);
      setInterval(() => tick(S), 250);
      return render();
    }
    if (practice && S.view === "room") S.view = "lobby";
    document.addEventListener("keydown", onKey);
    // Closing or leaving the page mid-race asks first (the browser's own question): the seat waits
    // out the grace period, then the race is lost.
    win.addEventListener("beforeunload", (e) => inRace(S) && e.preventDefault());
    setInterval(() => tick(S), 250);
    setInterval(act.refreshRooms, 4000);
    setInterval(() => tickArena(hooks), 500);
    setInterval(() => S.conn?.online && S.conn.call("ping").catch(() => {}), 30000);
    if (S.view === "lobby") connect();
    render();
  }

  app.start = start;
  return app;
}

if (typeof window !== "undefined" && window.document?.getElementById("app")) {
  const app = createApp(window);
  window.seahaven = app.S; // for the browser tests and the curious
  app.start();
}
export { SUITS };
