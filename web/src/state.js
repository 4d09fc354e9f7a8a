// The race client's state, pure: server messages in, state out. No DOM, no timers, no storage:
// `node --test` drives it with recorded frames (web/test/state.test.js). What the page must do
// besides (say something, keep the opening board) comes back as the state's `said` and `opening`.
import { Board, COLUMN, FOUNDATION, CELL, PRESETS, parseMove } from "./rules.js";
import { number, ordinal, t } from "./i18n.js";
import { said } from "./marks.js";
import { dealBoard } from "./dealing.js";
import { dealOfCode } from "./solo.js";

/** A fresh state: `view` is where the page starts, `wanted` the room a /r/CODE link names. */
export function initialState({ view = "lobby", wanted = null, challenge = null } = {}) {
  return {
    conn: null,
    status: "connecting",
    statusDetail: "",
    me: null, // welcome body
    signingIn: false, // the first screen's "sign in": no new player is registered meanwhile
    seat: null, // a room I race in on another tab or device (welcome.seat, seat_taken): "Play here"
    registering: false, // "asking": registering before the first race; "asked": done (once per page)
    challenge, // the /c/ID page's challenge
    view,
    rooms: [],
    daily: null, // today's daily deal and its board (the server's daily_board reply)
    soloStats: null, // solo practice: my games alone on this preset (solo.js soloStats)
    arenas: null, // the arenas running and to come, for the lobby (GET /api/v1/arenas: {live, upcoming}); null: not known
    room: null, // the last room frame, updated by events
    board: null, // a racer's board (rules.js Board, with its move stack)
    pending: [], // optimistic actions still waiting for the server: {move, undo, auto}
    groups: [], // for each move of mine on the board, how many auto-moves came after it (what an undo takes back)
    undos: 0, // my undos this race: the counter shows the moves on my board, and these apart
    uncounted: 0, // moves of mine the board cannot tell apart (no history to undo them): the server's count
    mine: null, // my own progress, moves, status from `moved`
    boards: new Map(), // spectator: player -> Board
    actions: new Map(), // spectator: player -> moves and undos applied
    focus: null, // spectator: whose board is shown (a racer's too once the race is over)
    finals: null, // a racer's room once the race is over: every racer's board at the end (Map player -> Board)
    selected: null, // {area, index, n}
    result: null,
    gen: 0, // bumps when a room frame replaces the board: late replies to older moves are ignored
    armed: null, // a key pressed once that needs a second press (R resign, l leave)
    toast: "",
    ratings: {}, // preset -> my last `rating` event's body (docs/ratings.md)
    wanted, // {code, watch} from a /r/CODE link
    dealAsked: null, // the deal code a "Race this deal" link (/?deal=CODE) puts in the new-room form
    friendAsked: null, // the player an "Add as a friend" link (/?friend=ID, a player's page) asks, until this page is welcomed
    match: null, // quick match's wait for a partner: the last `matching`, with its room and when it came (local ms)
    quick: false, // in a quick match's room until its race starts: ready by itself once paired
    quickReadied: null, // the room quick match said ready in (once: a "Not ready" after it is the player's)
    lost: false, // the server proved my position unwinnable (`lost`, rooms with lost_notice)
    hint: null, // the last hint's move (text), shown until the next move
    outside: 0, // bumped when a panel's own part of this state changed (account.js, challenge.js, arena.js: hooks.render): views rebuild
    autoMove: true, // safe moves to the foundations are played by themselves (a toggle, the key m), where the room allows it
    autoAsked: null, // the room whose next race's opening safe cards the server was asked to play (ready.auto, rematch.auto)
    resync: null, // the board is out of step with the server: what to say while the room state is fetched again (the page does it)
    slid: 0, // cards the last frame slid to their place (motion.js; none with reduced motion)
    said: [], // what the page should say (toasts), oldest first; the page empties it
    heard: [], // what the page announces politely (screen readers: rivals' progress), oldest first
    opening: null, // {deal, board}: the race's opening, for the page to keep (undo after a reload)
    // Friends, presence and invitations (friends.js), kept by their requests and events:
    // The arena I am in (arena.js): its last `arena` frame, its podium once it ended, a request on
    // its way, and the lobby's arena form as typed (the lobby is rebuilt every few seconds).
    arena: { arena: null, podium: null, busy: false, form: { code: "", preset: "seahaven", minutes: 30 } },
    // The account panel (account.js): what the last request said ({text, error}), one on its way,
    // the key tried once this page, the deletion asked.
    account: { note: null, busy: false, triedKey: false, deleting: false },
    // Ghost challenges (challenge.js): those I made of my runs (race id -> {busy} | {reply} | {error}),
    // the /c/ID page's (its challenge, doc, run, error, raceError, busy), and the runs' finishing
    // times read for the results (challenge -> ms, or null).
    challenges: { made: new Map(), page: { challenge: null, doc: null, run: null, error: null, raceError: null, busy: false }, runTimes: new Map() },
    friends: {
      list: null, // the last `friends` body: {friends, incoming, outgoing, blocked, shown_to}; null: none (not a registered player, no records)
      invites: [], // invitations to me, still open: the `invited` bodies, oldest first
      // Invitations I sent, to the room I invited to last: invite id -> {player, name, room, answer}
      // (answer null while open, then "accepted", "declined" or "expired"), in the order sent.
      sent: new Map(),
      names: new Map(), // the people of the race I asked to race again: player id -> name (they need not be friends)
    },
  };
}

/** The room a /r/CODE link names (/r/CODE?watch: to watch it); null for any other path. */
export function roomOfPath(pathname, search = "") {
  const m = /^\/r\/([0-9A-Za-z]{4,12})$/.exec(pathname);
  return m ? { code: m[1].toUpperCase(), watch: new URLSearchParams(search).has("watch") } : null;
}

/** A rating as players read it: "1523 +14", "1486? -9" (?: provisional). */
export const ratingText = (r) => `${r.rating}${r.provisional ? "?" : ""} ${r.change >= 0 ? "+" : ""}${r.change}`;

/** An event (a server message with no `re`) applied to the state. `now`: local ms. */
export function applyEvent(S, type, body, now = 0) {
  if (type === "room") return enterRoom(S, body);
  if (type === "rating") {
    // The player's, not a room's: it comes in a room or in the lobby.
    S.ratings[body.preset] = body;
    S.said.push(t("Your {rules} rating: {rating}", { rules: PRESETS[body.preset] ? t(PRESETS[body.preset].title) : body.preset, rating: ratingText(body) }));
    return S;
  }
  const room = S.room;
  if (!room) return S;
  if (type === "matching") {
    S.match = { ...body, room: room.room, at: now };
  } else if (type === "members") {
    Object.assign(room, { racers: body.racers.map(said), spectators: body.spectators, rematch: body.rematch });
  } else if (type === "countdown") {
    room.starts_at = body.starts_at;
    room.phase = body.starts_at === null ? "waiting" : "countdown";
  } else if (type === "started") {
    Object.assign(room, { phase: "racing", deal: body.deal, started_at: body.started_at, ends_at: body.ends_at, starts_at: null, standings: [] });
    S.result = null;
    S.finals = null;
    S.mine = null;
    S.lost = false;
    S.hint = null;
    S.quick = false; // a rematch after it is asked as in any room
    const opening = Board.parse(body.board, room.preset).progress;
    for (const r of room.racers) Object.assign(r, { status: "racing", progress: opening, moves: 0, time_ms: null });
    S.opening = { deal: body.deal, board: body.board };
    S.groups = [];
    S.undos = S.uncounted = 0;
    startBoards(S, body.board, [], room.role === "racer" ? [] : room.racers.map((r) => ({ player: r.player, history: [], actions: 0 })));
  } else if (type === "progress") {
    const racer = room.racers.find((r) => r.player === body.player);
    if (racer && body.player !== room.you && body.progress !== racer.progress) S.heard.push(t("{name}: {count} of 52 home", { name: racer.name, count: number(body.progress) }));
    // A rival out of the race is said (the panel's grey word alone went unseen): the race goes on.
    const out = RIVAL_OUT[body.status];
    if (racer && out && body.player !== room.you && racer.status !== body.status && room.phase === "racing" && S.mine?.status === "racing") S.said.push(out(racer.name));
    if (racer) Object.assign(racer, { progress: body.progress, moves: body.moves, status: body.status, time_ms: body.time_ms });
    if (body.player === room.you && S.mine) Object.assign(S.mine, { status: body.status });
    if (room.role === "spectator" && (body.move !== null || body.auto?.length)) spectate(S, body);
    else if (body.player === room.you && room.role === "racer" && body.auto?.length) opened(S, body);
  } else if (type === "result") {
    room.phase = "finished";
    room.standings = body.standings.map(said);
    S.result = { ...body, standings: room.standings };
    S.selected = null;
    if (room.role === "racer") S.finals = finalBoards(room, body.histories);
  } else if (type === "lost") {
    S.lost = true;
    S.said.push(lostText(room.undo));
  }
  return S;
}

/** A `room` frame (the reply to create/join, or an event): it replaces the room and its boards.
 * `opening`: the kept opening board of this deal, if any (a racer's undo after a reload). */
export function enterRoom(S, body, opening = null) {
  // The same room as it was (the frame the server sends again after the connection moved to the
  // room's address, just after a seat was taken or a room made): a card the player picked stays picked.
  const same = S.room?.room === body.room && S.room.phase === body.phase && S.room.history?.length === body.history?.length;
  const picked = same ? S.selected : null;
  S.gen++;
  if (S.match?.room !== body.room) S.match = null; // moved to a partner's room: the wait is over
  if (body.phase !== "waiting") S.quick = false; // a quick match's wait is over once its race is on
  body.racers = body.racers.map(said);
  body.standings = body.standings?.map(said) ?? body.standings;
  S.room = body;
  body.ends_at = body.started_at && body.time_limit ? body.started_at + body.time_limit * 1000 : null;
  S.view = "room";
  S.pending = [];
  S.groups = [];
  S.undos = S.uncounted = 0;
  S.resync = null;
  S.selected = picked;
  S.armed = null; // an R or l pressed once in the last room does not count twice in this one
  S.lost = false;
  S.hint = null;
  S.result = body.phase === "finished" ? { reason: null, standings: body.standings } : null;
  S.board = null;
  S.boards.clear();
  S.finals = body.phase === "finished" && body.role === "racer" ? finalBoards(body, body.watching) : null;
  if (body.phase === "racing" || body.phase === "finished") {
    const mine = body.racers.find((r) => r.player === body.you);
    S.mine = mine ? { progress: mine.progress, moves: mine.moves, status: mine.status } : null;
    if (body.role === "racer") {
      startBoards(S, opening?.deal === body.deal ? opening.board : null, body.history, [], body.board);
      // What an undo takes back: only when the board holds the moves (else it cannot pop them).
      const known = S.board?.stack.length === body.history.length;
      S.groups = known ? groupsOf(body.history.length, body.auto_played) : [];
      // The server's count holds each undo and the move it took back: the rest are my moves on the board.
      if (known) S.undos = Math.max(0, Math.floor(((S.mine?.moves ?? 0) - S.groups.length) / 2));
      else S.uncounted = S.mine?.moves ?? 0;
    } else startBoards(S, body.board, [], body.watching);
  }
  return S;
}

/** A racer's board from the opening and history (so undo works after a reload); spectators' boards. */
function startBoards(S, opening, myHistory, watching, current = null) {
  const room = S.room;
  if (room.role === "racer") {
    let board = null;
    if (opening) {
      try {
        board = Board.parse(opening, room.preset);
        for (const text of myHistory) board.push(parseMove(text));
      } catch {
        board = null;
      }
    }
    if (current !== null && (board === null || board.text() !== current)) board = Board.parse(current, room.preset);
    S.board = board;
    S.mine ??= { progress: board.progress, moves: 0, status: "racing" };
  } else {
    for (const w of watching) {
      const board = Board.parse(opening, room.preset);
      for (const text of w.history) board.push(parseMove(text));
      S.boards.set(w.player, board);
      S.actions.set(w.player, w.actions ?? w.history.length);
    }
    if (!S.focus || !S.boards.has(S.focus)) S.focus = watching[0]?.player ?? null;
  }
}

/** Every racer's board at the end of ``room``'s race, from the histories the server gives its
 * racers once it is over (`result.histories`, a finished room's `watching`): rivals' boards, a
 * bot's among them, to look at after the race. Null when there are none (an older server). */
export function finalBoards(room, histories = []) {
  if (!histories?.length || !room.deal) return null;
  let opening;
  try {
    opening = dealBoard(room.preset, dealOfCode(room.deal).number).text();
  } catch {
    return null;
  }
  const boards = new Map();
  for (const w of histories) {
    try {
      const board = Board.parse(opening, room.preset);
      for (const text of w.history) board.push(parseMove(text));
      boards.set(w.player, board);
    } catch {
      // a history that does not play here: that board is not shown
    }
  }
  return boards.size ? boards : null;
}

/** For each of a racer's own moves in a history of ``length`` moves, how many auto-moves came
 * after it, from the indices of the moves the server played (`room.auto_played`; those before the
 * first own move are the opening's, nobody's to undo). */
export function groupsOf(length, autoPlayed = []) {
  const auto = new Set(autoPlayed);
  const groups = [];
  for (let i = 0; i < length; i++) {
    if (!auto.has(i)) groups.push(0);
    else if (groups.length) groups[groups.length - 1]++;
  }
  return groups;
}

/** A spectator's frame: the move then its auto-moves, or an undo popping `undone` moves, once.
 * Its `actions` (else `moves`) says where it leaves the racer's count: a frame at or below the
 * count played is one seen already; one that starts past it follows a frame missed (the page
 * fetches the room again). */
function spectate(S, body) {
  const board = S.boards.get(body.player);
  const done = S.actions.get(body.player) ?? 0;
  const after = body.actions ?? body.moves;
  if (!board || after <= done) return;
  const count = body.move === "undo" ? (body.undone ?? 1) : (body.move === null ? 0 : 1) + (body.auto?.length ?? 0);
  if (after - count === done && playFrame(board, body, count)) S.actions.set(body.player, after);
  else S.resync = t("The boards are out of step with the server: catching up…");
}

/** A spectator frame's moves played on the racer's board; false when they do not play there. */
function playFrame(board, body, count) {
  try {
    if (body.move === "undo") {
      for (let i = 0; i < count; i++) if (!board.pop()) return false;
      return true;
    }
    if (body.move !== null) board.push(parseMove(body.move));
    for (const text of body.auto ?? []) board.push(parseMove(text));
    return true;
  } catch {
    return false;
  }
}

/** The opening's auto-moves the server played for me at the start (`ready.auto`): final at once.
 * A move of mine already waiting was played on the board without them: out of step. */
function opened(S, body) {
  if (!S.board) return;
  if (S.mine) S.mine.progress = body.progress;
  if (S.pending.length === 0 && playFrame(S.board, { move: null, auto: body.auto }, body.auto.length)) return;
  S.resync = t("The board is out of step with the server: catching up…");
}

/** Out of the room, back in the lobby. */
export function leftRoom(S) {
  S.room = null;
  S.quick = false;
  S.autoAsked = null;
  S.board = null;
  S.result = null;
  S.finals = null;
  S.selected = null;
  S.view = "lobby";
  return S;
}

/** A move or undo the server answered: my counts from its reply. */
export function settled(S, reply) {
  S.mine = { progress: reply.progress, moves: reply.moves, status: reply.status };
  const me = S.room?.racers.find((r) => r.player === S.room.you);
  if (me) Object.assign(me, S.mine);
  return S;
}

// -- what the state says, for the views and keys ----------------------------------------------

/** May I play now? Offline nothing is played: the room state that comes with the return is the
 * board to go on from. */
export function racing(S) {
  const room = S.room;
  return S.status === "online" && room?.phase === "racing" && room.role === "racer" && S.board !== null && S.mine?.status === "racing";
}

/** Leaving the room now resigns my race (asked first, whether by Leave or by another room's link). */
export const leavingResigns = (S) => {
  const room = S.room;
  return Boolean(room && !room.solo && room.role === "racer" && room.phase === "racing" && ["racing", "stuck"].includes(S.mine?.status));
};

/** Racing but for the connection: the board takes clicks (offline they are answered in words). */
export const inRace = (S) => S.room?.phase === "racing" && S.room.role === "racer" && S.board !== null && S.mine?.status === "racing";

/** Undo is offered: a room with undo, racing, and I am still in the race (not resigned or done). */
export const canUndo = (S) => Boolean(S.room?.undo && S.room.phase === "racing" && S.board && ["racing", "stuck"].includes(S.mine?.status));

/** A hint may be asked: the room allows hints and I am racing (or stuck with undo). */
export const canHint = (S) => Boolean(S.room?.hints && S.room.phase === "racing" && S.room.role === "racer" && S.board && canUndoOrRace(S));
const canUndoOrRace = (S) => S.mine?.status === "racing" || (S.mine?.status === "stuck" && S.room.undo);

/** The room lets racers ask the server for auto-move (`room.auto`, absent: it does). */
export const autoAllowed = (S) => S.room?.auto !== false;

/** Auto-move is on: the player's setting, where the room allows it. */
export const autoOn = (S) => Boolean(S.autoMove && autoAllowed(S));

/** Does this place hold a card I could pick up? */
export function hasCard(board, area, index) {
  if (area === COLUMN) return board.cols[index].length > 0;
  if (area === CELL) return board.cells[index] !== null;
  return board.rules.foundation_takeback && board.home[index] > 0;
}

/** How many cards a click at ``depth`` picks up: the run from there down, else the exposed card. */
export function runFrom(board, index, depth) {
  const col = board.cols[index];
  if (depth === null || depth >= col.length - 1) return 1;
  for (let i = depth; i < col.length - 1; i++) if (!board.fits(col[i + 1], col[i])) return 1;
  return col.length - depth;
}

/** The length of the run at the foot of a column. */
export function runLength(board, index) {
  const col = board.cols[index];
  let run = 1;
  for (let i = col.length - 1; i > 0 && board.fits(col[i], col[i - 1]); i--) run++;
  return run;
}

/** The legal destinations of the selection, as "area:index" keys. */
export function destinations(S) {
  const sel = S.selected;
  if (!sel || !S.board) return new Set();
  const found = S.board.legalMoves().filter((m) => m.sa === sel.area && m.s === sel.index && m.n === sel.n);
  return new Set(found.map((m) => `${m.da}:${m.d}`));
}

// A rival's way out of a race, said to the racers still in it.
const RIVAL_OUT = { resigned: (name) => t("{name} resigned", { name }), forfeit: (name) => t("{name} lost their seat (away too long)", { name }) };

/** A racer's state in words ("did not finish" once the race is over and they were still on). */
export function statusText(status, finished) {
  if (finished && status === "racing") return t("did not finish");
  return STATUSES[status]?.() ?? status;
}

// Functions, so that each is said in the language of the moment.
const STATUSES = {
  waiting: () => t("waiting"),
  ready: () => t("ready"),
  racing: () => t("racing"),
  finished: () => t("finished"),
  stuck: () => t("stuck"),
  resigned: () => t("resigned"),
};

/** The server's proof that my position is lost, in words. */
export const lostText = (undo) => (undo ? t("No win is left from this position: undo, or resign.") : t("No win is left from this position."));

/** The result's moment in words: who won, and my place ("You won!", "Ann won · you are 2nd of 3"). */
export function resultLine(room) {
  const standings = room.standings ?? [];
  const winner = standings.find((s) => s.place === 1 && s.status === "finished");
  const me = standings.find((s) => s.player === room.you);
  const of = standings.length;
  if (me && winner && winner.player === me.player) return t("You won!");
  const head = winner ? t("{name} won", { name: winner.name }) : t("Nobody finished");
  return me ? head + " · " + t("you are {place} of {count}", { place: ordinal(me.place), count: number(of) }) : head;
}

/** The moves a racer's standing leaves on their board: the server's count holds each undo and the
 * move it took back (`undos`, absent from older servers: their count as it is). */
export const boardMoves = (s) => Math.max(0, s.moves - 2 * (s.undos ?? 0));

/** My moves on the board and my undos, as the race's counter shows them (the results agree): an
 * undo takes a move back rather than adding one. Moves made before a board without its history
 * (an older server's reload) count as the server counted them. */
export const myCounts = (S) => ({ moves: S.uncounted + S.groups.length, undos: S.undos });

/** The time a standing shows: a finisher's time, else a dash. */
export const standingTime = (s) => (s.status === "finished" ? s.time_ms : null);

/** What a spot of a board is called in the page's place keys ("0:3": cell 3). */
export const placeKey = (area, index) => `${area}:${index}`;
export { CELL, COLUMN, FOUNDATION };
