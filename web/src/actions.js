// What the player does: requests to the server and moves on the board. Each action changes the
// state (state.js) and asks the page to render; the page (main.js) hands in what it owns as `app`:
// the state `S`, `render()`, `say(text)`, `url(path)` (the address bar), and the opening board's
// keeping (`keepOpening`, `openingOf`). Moves are played at once on the local board and rolled
// back if the server refuses them. With auto-move on (and allowed by the room), a move brings its
// auto-moves at once (rules.js autoMove, the server's rule) and asks the server to play the same
// (`move.auto`): one request, checked against the reply's `auto`; an undo takes the group back.
import { FOUNDATION, COLUMN, CELL, moveText, mv } from "./rules.js";
import { cardName, hintWords, moveWords, placeName, reasonWords, withSymbols } from "./words.js";
import { refusal } from "./explain.js";
import { arenaList, dealListDoc } from "./records_api.js";
import { anotherDeal, dealOfCode } from "./solo.js";
import { dealCode } from "./verify.js";
import { language, t, tn } from "./i18n.js";
import { autoAllowed, autoOn, enterRoom, hasCard, leftRoom, leavingResigns, racing, runFrom, settled, canUndo, canHint, lostText } from "./state.js";

/** The selection and where it may go, in words: "ten of spades selected: 2 places, cell a, column 4". */
function selectionWords(board, sel) {
  const card = sel.area === COLUMN ? board.cols[sel.index][board.cols[sel.index].length - sel.n] : sel.area === CELL ? board.cells[sel.index] : board.foundationTop(sel.index);
  const to = board.legalMoves().filter((m) => m.sa === sel.area && m.s === sel.index && m.n === sel.n);
  const what = sel.n > 1 ? tn("{card} and {n} below", "{card} and {n} below", sel.n - 1, { card: cardName(card) }) : cardName(card);
  return t("{cards} selected: {places}", { cards: what, places: to.length ? to.map((m) => placeName(m.da, m.d)).join(", ") : t("nowhere to go") });
}

/** Why ``move`` is refused, in the player's language: the rules port's reason is the engine's
 * English; other languages say the move and the refusal code's words. */
const refusedText = (move, why) =>
  language() === "en" ? withSymbols(why) : (reasonWords(why) ?? t("{move} refused: {reason}", { move: moveText(move), reason: refusal({ code: "illegal-move", message: why }) }));

/** The server played the auto-moves played here (a move's `moved.auto`; an undo's `undone`). */
export function sameAuto(action, reply) {
  if (action.undo) return (reply.undone ?? 1) === action.auto.length + 1;
  const theirs = reply.auto ?? [];
  return theirs.length === action.auto.length && action.auto.every((m, i) => moveText(m) === theirs[i]);
}

/** 128 random bits in hex: a racer's seed for a drawn room's deal (the server counts them in the draw). */
function randomSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Today's deal against the computer, in a room of its own nobody else may join (the pace is the
 * terminal's, and quick match's waiting bot's). */
export const DAILY_BOT_ROOM = { preset: "seahaven", daily: true, bot: "brisk", public: false };

export function makeActions(app) {
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

  /** Waiting alone for a rival in the daily race: today's deal against the computer (``bot``), or
   * alone (the /solo/ page), out of the waiting room first. */
  async function dailyInstead(bot) {
    const deal = S.room?.deal ?? S.daily?.deal;
    if (bot) return botInstead();
    if (!(await leaveFor())) return;
    if (deal) window.location.assign(`/solo/${deal}`);
    else backToLobby();
  }

  /** Waiting alone for a quick match's partner (the daily race's too): the computer instead, in a
   * room of our own on the same rules (today's deal for the daily race), its race starting at once
   * (ready by itself, as a quick match's is once paired). */
  async function botInstead() {
    const room = S.room;
    const body = room?.daily ? DAILY_BOT_ROOM : { preset: room?.preset ?? "seahaven", bot: "brisk", public: false };
    if (!(await leaveFor())) return;
    S.quick = true;
    S.quickReadied = null;
    await enterWith("create_room", body);
    if (!S.room) S.quick = false;
    quickReady();
  }

  /** Quick match (``body``: its preset, or today's daily race): the race starts once paired, with
   * no Ready to press (quickReady). */
  async function quickMatch(body) {
    S.quick = true;
    S.quickReadied = null;
    await enterWith("quick_match", body);
    if (!S.room) S.quick = false;
    quickReady();
  }

  /** In a quick match's room with a partner now (they joined mine, or I was moved to theirs): say
   * ready for the player, once a room: the race starts as soon as both are. */
  function quickReady() {
    const room = S.room;
    if (!S.quick || room?.phase !== "waiting" || room.role !== "racer" || room.racers.length < 2 || S.quickReadied === room.room) return;
    const me = room.racers.find((r) => r.player === room.you);
    if (!me) return;
    S.quickReadied = room.room;
    if (me.status !== "ready") ready();
  }

  /** Solo practice: another deal of the same rules, one proven winnable where the list is known. */
  async function newDeal() {
    const room = S.room;
    if (!room?.solo) return;
    const current = dealOfCode(room.deal).number;
    let text = null;
    try {
      text = (await dealListDoc(room.preset)).text;
    } catch {
      // no records API here: any deal
    }
    window.location.assign(`/solo/${dealCode(room.preset, anotherDeal(room.preset, current, text))}`);
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

  async function play(move) {
    S.selected = null;
    if (!racing(S)) return app.render();
    const why = S.board.reason(move);
    if (why !== null) {
      app.sound?.("refuse");
      app.say(refusedText(move, why));
      return app.render();
    }
    const words = moveWords(S.board, move);
    // A card taken off a foundation asks for no auto-move: it would go straight back.
    const auto = autoOn(S) && move.sa !== FOUNDATION;
    S.board.push(move);
    app.sound?.("place");
    const played = [];
    for (let next = auto ? S.board.autoMove() : null; next; next = S.board.autoMove()) {
      S.board.push(next);
      played.push(next);
    }
    S.groups.push(played.length);
    S.hint = null;
    app.announce?.(t("played {move}: {count} of 52 home", { move: words, count: S.board.progress }));
    await settle({ move, undo: false, auto: played }, "move", auto ? { move: moveText(move), auto: true } : { move: moveText(move) });
  }

  async function undo() {
    S.selected = null;
    if (!canUndo(S)) return app.render();
    if (!S.groups.length) {
      app.say(t("nothing to undo")); // the opening's safe cards are nobody's move
      return app.render();
    }
    // My last move and the auto-moves after it, those first.
    const taken = [];
    for (let n = S.groups.pop(); n > 0; n--) taken.unshift(S.board.pop());
    const move = S.board.pop();
    S.undos++;
    S.hint = null;
    await settle({ move, undo: true, auto: taken }, "undo", {});
  }

  /** Send an action already shown; roll it (and every later one) back if the server refuses it.
   * The server's auto-moves must be the ones played here: if not, the room state is fetched again. */
  async function settle(action, type, body) {
    S.pending.push(action);
    app.render();
    const gen = S.gen;
    try {
      const reply = await S.conn.call(type, body);
      if (gen !== S.gen) return;
      const at = S.pending.indexOf(action);
      if (at >= 0) S.pending.splice(at, 1);
      settled(S, reply);
      // Not pending any more: rolled back here with an earlier refused action, yet played there.
      if (at < 0 || !sameAuto(action, reply)) resync(t("The board is out of step with the server: catching up…"));
    } catch (e) {
      if (gen !== S.gen) return;
      const at = S.pending.indexOf(action);
      if (at < 0) return app.render(); // rolled back already, with an earlier refused action
      for (const later of S.pending.splice(at).reverse()) {
        if (later.undo) {
          S.board.push(later.move);
          for (const m of later.auto) S.board.push(m);
          S.groups.push(later.auto.length);
          S.undos--;
        } else {
          for (let i = 0; i <= later.auto.length; i++) S.board.pop();
          S.groups.pop();
        }
      }
      const what = type === "undo" ? t("undo") : moveText(action.move);
      if (e.code === "offline") app.say(t("{move} not played: the connection was lost", { move: what }));
      else {
        app.sound?.("refuse");
        app.say(t("{move} refused: {reason}", { move: what, reason: refusal(e) }));
      }
    }
    app.render();
  }

  /** The board fell out of step with the server's: fetch the room state again, as after a dropped
   * connection (net.js comes back by itself; the room frame that follows its welcome rebuilds the
   * board, a spectator joins again). Replies to what was sent before are ignored from now. */
  function resync(why) {
    S.resync = null;
    if (!S.conn?.online) return; // coming back already: the room state follows
    S.gen++;
    S.pending = [];
    app.say(why);
    S.conn.drop();
  }

  /** Auto-move turned on mid-race, or a race whose opening the server was not asked to play (an
   * arena's, whose racers are seated ready): the safe cards waiting now go home, the first as a
   * move of mine and the rest as its auto-moves: one request. */
  function autoNow() {
    if (!autoOn(S) || !racing(S) || S.pending.length) return;
    const next = S.board.autoMove();
    if (next) play(next);
  }

  /** The race started: the server plays the opening's safe cards if asked (ready.auto), else here. */
  function started() {
    const server = S.autoAsked === S.room?.room;
    if (!server) autoNow();
  }

  /** Offline in a race, a move is not played: say so rather than drop it without a word. */
  function offline() {
    const on = S.room?.phase === "racing" && S.room.role === "racer" && S.status !== "online";
    if (on) app.say(t("Offline: the board waits until the connection is back."));
    return on;
  }

  /** Click (or key) on a place: pick the source, or play onto this place. */
  function pick(area, index, depth = null) {
    if (offline() || !racing(S)) return;
    const board = S.board;
    const sel = S.selected;
    if (sel && sel.area === area && sel.index === index) {
      const smart = board.smartMove(area, index);
      if (smart) return play(smart);
      app.say(t("that card has nowhere to go"));
      return;
    }
    if (sel) {
      const move = mv(sel.area, sel.index, area, area === FOUNDATION ? 0 : index, sel.n);
      const why = board.reason(move);
      if (why === null || !hasCard(board, area, index)) return play(move);
      app.sound?.("refuse");
      app.say(refusedText(move, why)); // then that card is the selection: a click's way to choose again
    }
    if (!hasCard(board, area, index)) return;
    S.selected = { area, index, n: area === COLUMN ? runFrom(board, index, depth) : 1 };
    app.announce?.(selectionWords(board, S.selected));
    app.render();
  }

  /** A drag let go over a place: that move, or the reason it is not one (never a new selection). */
  function drop(from, area, index) {
    if (offline() || !racing(S)) return;
    return play(mv(from.area, from.index, area, area === FOUNDATION ? 0 : index, from.n));
  }

  async function ready() {
    const room = S.room;
    if (room.role !== "racer" || (room.phase !== "waiting" && room.phase !== "countdown")) return;
    const me = room.racers.find((r) => r.player === room.you);
    const wanted = me?.status !== "ready";
    // Our share of a drawn room's deal (docs/fairness.md): fresh random bits with every ready;
    // with auto-move on, the server plays the opening's safe cards at the start.
    const auto = wanted && autoOn(S);
    const body = wanted ? { ready: true, seed: randomSeed(), ...(auto ? { auto: true } : {}) } : { ready: false };
    if ((await request("ready", body)) !== null) asked(auto);
  }

  async function resign() {
    await request("resign");
  }

  async function rematch() {
    if (S.room.role !== "racer") return;
    const auto = autoOn(S);
    if ((await request("rematch", { seed: randomSeed(), ...(auto ? { auto: true } : {}) })) !== null) asked(auto);
  }

  /** Whether the server plays this room's next opening for me, kept for a reload meanwhile. */
  function asked(auto) {
    S.autoAsked = auto ? S.room.room : null;
    app.keepAsked?.(S.autoAsked);
  }

  /** Ask the server for a hint (rooms with hints: the standings count it). */
  async function hint() {
    if (!canHint(S)) return;
    const advice = await request("hint");
    if (!advice) return;
    if (advice.kind === "hint") {
      S.hint = advice.move;
      app.say(t("Hint: {move}", { move: hintWords(S.board, advice.move) }));
    } else if (advice.kind === "lost") {
      S.lost = true;
      app.say(lostText(S.room.undo));
    } else if (advice.kind === "won") {
      app.say(t("The board is won already."));
    } else {
      app.say(t("No hint found in time: ask again in a moment."));
    }
    app.render();
  }

  /** Auto-move on or off (kept in this browser); on mid-race, the safe cards waiting go home now. */
  function toggleAuto() {
    if (S.room && !autoAllowed(S)) {
      app.say(t("No auto-move in this room: every card by hand"));
      return app.render();
    }
    S.autoMove = !S.autoMove;
    app.keepAuto(S.autoMove);
    app.say(S.autoMove ? t("auto-move to the foundations on") : t("auto-move to the foundations off"));
    app.render();
    autoNow();
  }

  const clear = () => {
    S.selected = null;
    app.render();
  };
  const select = (selection) => {
    S.selected = selection;
    app.render();
  };
  const watch = (player) => {
    S.focus = player;
    app.render();
  };
  const say = (text) => app.say(text);

  return { request, showRoom, enterWith, botInstead, newDeal, quickMatch, quickReady, refreshRooms, backToLobby, leaveFor, joinRoom, dailyInstead, leave, leaveAsking, play, undo, pick, drop, ready, resign, rematch, hint, toggleAuto, started, resync, clear, select, watch, say };
}
