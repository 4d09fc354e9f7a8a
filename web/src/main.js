// The browser client: name, lobby, room, race, results and spectating, on one page.
// State lives in `S`; every change calls render(), which rebuilds the view from it. Moves are
// played at once on the local board (rules.js) and rolled back if the server refuses them.
import "./style.css";
import { Connection } from "./net.js";
import { renderBoard } from "./board_view.js";
import { Board, CELL, COLUMN, FOUNDATION, PRESETS, SUITS, moveText, mv, parseMove } from "./rules.js";
import { h } from "./dom.js";
import { accountView, openAccount } from "./account.js";
import { acceptChallenge, challengeOfPath, challengeOffer, challengeView, ghostChallenge, raceAgainButton } from "./challenge.js";
import { racerMarks } from "./marks.js";
import { A, arenaLobby, arenaOfPath, arenaPanel, joinArena, onArenaMessage, showArena, tickArena } from "./arena.js";
import { ratingBadge, ratingsChanged } from "./ratings_view.js";

const store = window.localStorage;
const KEY = {
  name: "seahaven.name",
  token: "seahaven.token",
  key: "seahaven.key", // the registered player's secret key (docs/protocol.md, section 21)
  anonymous: "seahaven.anonymous", // the player deleted their account here: register no more by itself
  four: "seahaven.fourColour",
  opening: "seahaven.opening",
};
// The last race's opening board: a racer's room state after a reload holds only the current board,
// and undo needs the moves from the opening.
const saveOpening = (deal, board) => store.setItem(KEY.opening, JSON.stringify({ deal, board }));
function loadOpening(deal) {
  try {
    const saved = JSON.parse(store.getItem(KEY.opening) ?? "null");
    return saved?.deal === deal ? saved.board : null;
  } catch {
    return null;
  }
}

const CHALLENGE = challengeOfPath(location.pathname);
const S = {
  conn: null,
  status: "connecting",
  statusDetail: "",
  me: null, // welcome body
  registering: false, // a register request was sent (once per page)
  challenge: CHALLENGE, // the /c/ID page's challenge
  view: CHALLENGE ? "challenge" : store.getItem(KEY.name) ? "lobby" : "name",
  rooms: [],
  daily: null, // today's daily deal and its board (the server's daily_board reply)
  room: null, // the last room frame, updated by events
  board: null, // a racer's board (rules.js Board, with its move stack)
  pending: [], // optimistic actions still waiting for the server: {move, undo}
  mine: null, // my own progress, moves, status from `moved`
  boards: new Map(), // spectator: player -> Board
  actions: new Map(), // spectator: player -> moves and undos applied
  focus: null, // spectator: whose board is shown
  selected: null, // {area, index, n}
  result: null,
  gen: 0, // bumps when a room frame replaces the board: late replies to older moves are ignored
  armed: null, // a key pressed once that needs a second press (R resign, l leave)
  toast: "",
  ratings: {}, // preset -> my last `rating` event's body (docs/ratings.md)
  wanted: roomFromPath(), // {code, watch} from a /r/CODE link
  match: null, // quick match's wait for a partner: the last `matching`, with its room and when it came (local ms)
  arena: A, // the arena I am in (arena.js)
};
if (arenaOfPath(location.pathname)) S.wanted = { arena: arenaOfPath(location.pathname) }; // an /a/CODE link
window.seahaven = S; // for the browser tests and the curious

/** The room a /r/CODE link names (/r/CODE?watch: to watch it). */
function roomFromPath() {
  const m = /^\/r\/([0-9A-Za-z]{4,12})$/.exec(location.pathname);
  return m ? { code: m[1].toUpperCase(), watch: new URLSearchParams(location.search).has("watch") } : null;
}

// -- connection ------------------------------------------------------------------------

function connect() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
  S.conn = new Connection(url, { onEvent, onStatus, onWelcome, onKey: keepKey });
  S.conn.start(store.getItem(KEY.name) || "player", store.getItem(KEY.token), store.getItem(KEY.key));
}

function keepKey(key) {
  if (key) store.setItem(KEY.key, key);
  else store.removeItem(KEY.key);
}

/** A browser without a key becomes a registered player of this server once: its next session is
 * that player's, so its races follow it. A server that keeps no players is raced anonymously. */
async function registerOnce() {
  if (store.getItem(KEY.key) || store.getItem(KEY.anonymous) || S.registering) return;
  S.registering = true;
  try {
    const identity = await S.conn.call("register");
    if (identity.key) {
      keepKey(identity.key);
      S.conn.key = identity.key;
    }
  } catch {
    // records-unavailable, or an older server: stay anonymous
  }
}

/** Race as the player ``key`` names from now on (signed in, registered: account.js): a new
 * session, said with the key (a token would resume this one, which is not that player's). */
function useKey(key) {
  keepKey(key);
  store.removeItem(KEY.anonymous);
  S.conn.retire();
  store.removeItem(KEY.token);
  S.me = null;
  connect();
  render();
}

/** The account is deleted: forget its key, and race on anonymously without registering again. */
function forgetKey() {
  keepKey(null);
  store.setItem(KEY.anonymous, "1");
  S.conn.key = null;
}

// What the account panel and the challenges (account.js, challenge.js) use of the app.
const hooks = {
  get conn() {
    return S.conn;
  },
  get me() {
    return S.me;
  },
  render: () => render(),
  toast: (text) => toast(text),
  enterRoom: (room) => enterRoom(room),
  leave: () => leave(),
  name: () => store.getItem(KEY.name) ?? "",
  storedKey: () => store.getItem(KEY.key),
  useKey,
  forgetKey,
  show(view) {
    S.view = view;
    if (view === "account") openAccount(hooks);
    render();
    refreshRooms();
  },
  /** "Race it" on a challenge's page: connect (with this name) if need be, then accept it. */
  raceChallenge(challenge, name) {
    store.setItem(KEY.name, name);
    if (S.conn?.online) return acceptChallenge(hooks, challenge);
    S.wanted = { challenge };
    if (!S.conn) connect();
  },
};

function onStatus(status, detail = "") {
  S.status = status;
  S.statusDetail = detail;
  render();
}

function onWelcome(body, error) {
  if (error) {
    store.removeItem(KEY.token);
    toast("your earlier session has expired: starting a new one");
    return;
  }
  S.me = body;
  store.setItem(KEY.token, body.token);
  if (!body.identified) registerOnce();
  if (body.room) return; // the room frame follows
  if (S.room?.role === "spectator") S.wanted = { code: S.room.room, watch: true }; // a dropped spectator joins again
  else if (S.room) leftRoom("your seat is gone");
  if (S.wanted) {
    const { code, watch, challenge, arena } = S.wanted;
    S.wanted = null;
    if (challenge) acceptChallenge(hooks, challenge);
    else if (arena) joinArena(hooks, arena);
    else joinRoom(code, watch);
  } else {
    refreshRooms();
  }
  render();
}

/** A rating as players read it: "1523 +14", "1486? -9" (?: provisional). */
const ratingText = (r) => `${r.rating}${r.provisional ? "?" : ""} ${r.change >= 0 ? "+" : ""}${r.change}`;

function onEvent(type, body) {
  const room = S.room;
  if (type === "room") return enterRoom(body);
  if (type === "rating") {
    // The player's, not a room's: it comes in a room or in the lobby.
    S.ratings[body.preset] = body;
    if (room) ratingsChanged(room.racers.map((r) => r.player)); // theirs changed too: ask again
    toast(`Your ${PRESETS[body.preset]?.title ?? body.preset} rating: ${ratingText(body)}`);
    return render();
  }
  if (onArenaMessage(type, body)) return showArena(hooks);
  if (!room) return;
  if (type === "matching") {
    S.match = { ...body, room: room.room, at: Date.now() };
  } else if (type === "members") {
    Object.assign(room, { racers: body.racers, spectators: body.spectators, rematch: body.rematch });
  } else if (type === "countdown") {
    room.starts_at = body.starts_at;
    room.phase = body.starts_at === null ? "waiting" : "countdown";
  } else if (type === "started") {
    Object.assign(room, {
      phase: "racing",
      deal: body.deal,
      started_at: body.started_at,
      ends_at: body.ends_at,
      starts_at: null,
      standings: [],
    });
    S.result = null;
    S.mine = null;
    const opening = Board.parse(body.board, room.preset).progress;
    for (const r of room.racers) Object.assign(r, { status: "racing", progress: opening, moves: 0, time_ms: null });
    saveOpening(body.deal, body.board);
    startBoards(body.board, [], room.role === "racer" ? [] : room.racers.map((r) => ({ player: r.player, history: [], actions: 0 })));
  } else if (type === "progress") {
    const racer = room.racers.find((r) => r.player === body.player);
    if (racer) Object.assign(racer, { progress: body.progress, moves: body.moves, status: body.status, time_ms: body.time_ms });
    if (body.player === S.me.player && S.mine) Object.assign(S.mine, { status: body.status });
    if (body.move !== null && room.role === "spectator") spectate(body);
  } else if (type === "result") {
    room.phase = "finished";
    room.standings = body.standings;
    S.result = body;
    S.selected = null;
  }
  render();
}

function enterRoom(body) {
  S.gen++;
  if (S.match?.room !== body.room) S.match = null; // moved to a partner's room: the wait is over
  S.room = body;
  body.ends_at = body.started_at && body.time_limit ? body.started_at + body.time_limit * 1000 : null;
  S.view = "room";
  S.pending = [];
  S.selected = null;
  S.result = body.phase === "finished" ? { reason: null, standings: body.standings } : null;
  S.board = null;
  S.boards.clear();
  if (body.phase === "racing" || body.phase === "finished") {
    const mine = body.racers.find((r) => r.player === body.you);
    S.mine = mine ? { progress: mine.progress, moves: mine.moves, status: mine.status } : null;
    if (body.role === "racer") {
      const opening = loadOpening(body.deal);
      startBoards(opening, body.history, [], body.board);
    } else {
      startBoards(body.board, [], body.watching);
    }
  }
  history.replaceState(null, "", `/r/${body.room}${body.role === "spectator" ? "?watch" : ""}`);
  render();
}

/** A racer's board from the opening and history (so undo works after a reload); spectators' boards. */
function startBoards(opening, myHistory, watching, current = null) {
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

function spectate(body) {
  const board = S.boards.get(body.player);
  const done = S.actions.get(body.player) ?? 0;
  if (!board || body.moves <= done) return;
  S.actions.set(body.player, done + 1);
  if (body.move === "undo") board.pop();
  else board.push(parseMove(body.move));
}

function leftRoom(why) {
  S.room = null;
  S.board = null;
  S.result = null;
  S.view = "lobby";
  history.replaceState(null, "", "/");
  if (why) toast(why);
  render(); // the lobby at once; its rooms and today's board follow
  refreshRooms();
}

// -- requests ----------------------------------------------------------------------------

/** A request whose error is only shown: the reply's body, or null after an error. */
async function request(type, body = {}) {
  try {
    return await S.conn.call(type, body);
  } catch (e) {
    toast(e.message);
    return null;
  }
}

async function enterWith(type, body) {
  const room = await request(type, body);
  if (room) enterRoom(room);
}

async function refreshRooms() {
  if (S.view !== "lobby" || !S.conn?.online) return;
  try {
    S.rooms = (await S.conn.call("list_rooms", {})).rooms;
    S.daily = await S.conn.call("daily_board", { preset: "seahaven" });
    render();
  } catch {
    // the next refresh tries again
  }
}

async function joinRoom(code, spectate) {
  try {
    enterRoom(await S.conn.call("join_room", { room: code, spectate }));
  } catch (e) {
    if (e.code === "race-in-progress" && !spectate) {
      toast("the race has begun: you are watching it");
      return joinRoom(code, true);
    }
    toast(e.message);
    history.replaceState(null, "", "/");
    render();
  }
}

async function leave() {
  await request("leave"); // not-in-room means we are out already
  leftRoom();
}

function leaveButton() {
  const resigns = S.room.role === "racer" && S.room.phase === "racing" && ["racing", "stuck"].includes(S.mine?.status);
  return h("button", { class: "quiet", onclick: () => (!resigns || confirm("Leaving resigns this race. Leave?")) && leave() }, "Leave");
}

// -- playing -------------------------------------------------------------------------------

function racing() {
  // Offline, nothing is played: the room state that comes with the return is the board to go on from.
  const room = S.room;
  return S.status === "online" && room?.phase === "racing" && room.role === "racer" && S.board && S.mine?.status === "racing";
}

async function play(move) {
  S.selected = null;
  if (!racing()) return render();
  const why = S.board.reason(move);
  if (why !== null) {
    toast(why);
    return render();
  }
  S.board.push(move);
  await settle({ move, undo: false }, "move", { move: moveText(move) });
}

async function undo() {
  S.selected = null;
  if (!S.room?.undo || S.room.phase !== "racing" || !S.board) return;
  if (S.mine?.status !== "racing" && S.mine?.status !== "stuck") return;
  const move = S.board.pop();
  if (!move) return toast("nothing to undo");
  await settle({ move, undo: true }, "undo", {});
}

/** Send an action already shown; roll it (and every later one) back if the server refuses it. */
async function settle(action, type, body) {
  S.pending.push(action);
  render();
  const gen = S.gen;
  try {
    const reply = await S.conn.call(type, body);
    if (gen !== S.gen) return;
    S.pending.splice(S.pending.indexOf(action), 1);
    S.mine = { progress: reply.progress, moves: reply.moves, status: reply.status };
    const me = S.room.racers.find((r) => r.player === S.room.you);
    if (me) Object.assign(me, S.mine);
  } catch (e) {
    if (gen !== S.gen || e.code === "offline") return;
    const at = S.pending.indexOf(action);
    for (const later of S.pending.splice(at).reverse()) {
      if (later.undo) S.board.push(later.move);
      else S.board.pop();
    }
    toast(`${type === "undo" ? "undo" : moveText(action.move)} refused: ${e.message}`);
  }
  render();
}

/** Click (or key) on a place: pick the source, or play onto this place. */
function pick(area, index, depth = null) {
  if (!racing()) return;
  const board = S.board;
  const sel = S.selected;
  if (sel && sel.area === area && sel.index === index) {
    const smart = board.smartMove(area, index);
    return smart ? play(smart) : toast("that card has nowhere to go");
  }
  if (sel) {
    const move = mv(sel.area, sel.index, area, area === FOUNDATION ? 0 : index, sel.n);
    if (board.isLegal(move) || !hasCard(area, index)) return play(move);
  }
  if (!hasCard(area, index)) return;
  S.selected = { area, index, n: area === COLUMN ? runFrom(index, depth) : 1 };
  render();
}

function hasCard(area, index) {
  const b = S.board;
  if (area === COLUMN) return b.cols[index].length > 0;
  if (area === CELL) return b.cells[index] !== null;
  return b.rules.foundation_takeback && b.home[index] > 0;
}

/** How many cards a click at ``depth`` picks up: the run from there down, else the exposed card. */
function runFrom(index, depth) {
  const col = S.board.cols[index];
  if (depth === null || depth >= col.length - 1) return 1;
  for (let i = depth; i < col.length - 1; i++) if (!S.board.fits(col[i + 1], col[i])) return 1;
  return col.length - depth;
}

function runLength(index) {
  const col = S.board.cols[index];
  let run = 1;
  for (let i = col.length - 1; i > 0 && S.board.fits(col[i], col[i - 1]); i--) run++;
  return run;
}

/** The legal destinations of the selection, as "area:index" keys. */
function destinations() {
  const sel = S.selected;
  if (!sel || !S.board) return new Set();
  const found = S.board.legalMoves().filter((m) => m.sa === sel.area && m.s === sel.index && m.n === sel.n);
  return new Set(found.map((m) => `${m.da}:${m.d}`));
}

// -- keyboard ------------------------------------------------------------------------------

const KEYS_HELP = [
  ["1-9, 0", "columns (0 is the tenth)"],
  ["a-h", "free cells"],
  ["# or .", "the foundations"],
  ["same key, space, enter", "smart move"],
  ["up / down", "one card more / fewer from a run"],
  ["escape", "drop the selection"],
  ["u", "undo"],
  ["r", "ready / rematch"],
  ["R (twice)", "resign"],
  ["l (twice in a race)", "leave"],
  ["[ / ]", "spectating: previous / next racer"],
];

function onKey(e) {
  if (e.target.closest?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  const room = S.room;
  if (!room) return;
  const key = e.key;
  const armed = S.armed;
  S.armed = null;
  if (key === "Escape") {
    S.selected = null;
    return render();
  }
  if (room.role === "spectator" && (key === "[" || key === "]")) {
    const ids = room.racers.map((r) => r.player);
    const at = ids.indexOf(S.focus);
    S.focus = ids[(at + (key === "]" ? 1 : ids.length - 1)) % ids.length];
    return render();
  }
  if (key === "r") return room.phase === "finished" ? rematch() : ready();
  if (key === "R" && room.phase === "racing") {
    if (armed === "R") return resign();
    S.armed = "R";
    return toast("press R again to resign");
  }
  if (key === "l") {
    if (room.phase !== "racing" || armed === "l") return leave();
    S.armed = "l";
    return toast("press l again to leave (leaving resigns)");
  }
  if (!racing()) return;
  const board = S.board;
  if (key === "u") return undo();
  const col = "1234567890".indexOf(key);
  const cell = "abcdefgh".indexOf(key);
  if (col >= 0 && col < board.rules.columns) {
    e.preventDefault();
    return pick(COLUMN, col, S.selected ? null : board.cols[col].length - 1);
  }
  if (cell >= 0 && cell < board.rules.cells) return pick(CELL, cell);
  if (key === "#" || key === ".") {
    const sel = S.selected;
    if (sel && sel.area !== FOUNDATION) return pick(FOUNDATION, 0);
    if (!board.rules.foundation_takeback) return;
    const start = sel?.area === FOUNDATION ? sel.index + 1 : 0;
    for (let i = 0; i < 4; i++) {
      const suit = (start + i) % 4;
      if (board.home[suit]) {
        S.selected = { area: FOUNDATION, index: suit, n: 1 };
        return render();
      }
    }
    return;
  }
  if ((key === " " || key === "Enter" || key === "s") && S.selected) {
    e.preventDefault();
    return pick(S.selected.area, S.selected.index);
  }
  if ((key === "ArrowUp" || key === "ArrowDown") && S.selected?.area === COLUMN) {
    e.preventDefault();
    const max = runLength(S.selected.index);
    S.selected.n = Math.max(1, Math.min(max, S.selected.n + (key === "ArrowUp" ? 1 : -1)));
    return render();
  }
}

// -- room actions ----------------------------------------------------------------------------

async function ready() {
  const room = S.room;
  if (room.role !== "racer" || (room.phase !== "waiting" && room.phase !== "countdown")) return;
  const me = room.racers.find((r) => r.player === room.you);
  await request("ready", { ready: me?.status !== "ready" });
}

async function resign() {
  await request("resign");
}

async function rematch() {
  if (S.room.role === "racer") await request("rematch");
}

// -- views -------------------------------------------------------------------------------------

let toastTimer = null;
function toast(text) {
  S.toast = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    S.toast = "";
    document.getElementById("toast").textContent = "";
  }, 4000);
  document.getElementById("toast").textContent = text;
}

function formatTime(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function presetOptions(selected) {
  return Object.values(PRESETS).map((p) => h("option", { value: p.name, selected: p.name === selected }, p.title));
}

function header() {
  const online = S.status === "online";
  const takeBack = () => {
    S.conn.stopped = false;
    S.conn.open();
  };
  return h(
    "header",
    { class: "bar" },
    h("h1", {}, "Seahaven race"),
    S.conn ? h("span", { class: `net ${S.status}`, role: "status" }, online ? `${S.me?.name ?? ""}` : S.statusDetail || S.status) : null,
    // Closed for good (another tab took the session over): only the player may take it back.
    S.status === "closed" && S.view !== "name" ? h("button", { class: "quiet", onclick: takeBack }, "Play here") : null,
    S.view === "lobby" ? h("button", { class: "quiet", onclick: rename }, "Change name") : null,
    S.view === "lobby" ? h("button", { class: "quiet", id: "account", onclick: () => hooks.show("account") }, "Account") : null,
    h(
      "label",
      { class: "four" },
      h("input", {
        type: "checkbox",
        checked: document.body.classList.contains("four-colour"),
        onchange: (e) => {
          document.body.classList.toggle("four-colour", e.target.checked);
          store.setItem(KEY.four, e.target.checked ? "1" : "");
        },
      }),
      " four-colour deck",
    ),
  );
}

/** A new name is a new session: the server fixes the name at hello. */
function rename() {
  S.conn.retire();
  store.removeItem(KEY.token);
  S.view = "name";
  render();
}

function nameView() {
  const input = h("input", { id: "name", name: "name", maxlength: 24, required: true, autocomplete: "nickname", value: store.getItem(KEY.name) ?? "" });
  return h(
    "form",
    {
      class: "card-panel name-form",
      onsubmit: (e) => {
        e.preventDefault();
        store.setItem(KEY.name, input.value.trim() || "player");
        S.view = "lobby";
        connect();
        render();
      },
    },
    h("h2", {}, S.wanted?.code ? `${S.wanted.watch ? "Watch" : "Join"} race ${S.wanted.code}` : "Race a friend at Seahaven Towers"),
    h("label", { for: "name" }, "Your name"),
    input,
    h("button", { type: "submit" }, "Continue"),
  );
}

function lobbyView() {
  const code = h("input", { id: "code", maxlength: 12, placeholder: "e.g. 3R12R9", autocomplete: "off", "aria-label": "room code" });
  const quick = h("select", { id: "quick-preset", "aria-label": "rules for quick match" }, presetOptions("seahaven"));
  const rows = S.rooms.map((r) =>
    h(
      "tr",
      {},
      h("td", { class: "code" }, r.room),
      h("td", {}, PRESETS[r.preset]?.title ?? r.preset, r.daily ? h("span", { class: "tag" }, " daily") : null, r.rated ? h("span", { class: "tag" }, " rated") : null),
      h("td", {}, r.any_deal ? "any deal" : r.deal ? "chosen" : (r.deal_grade ?? "winnable")),
      h("td", {}, `${r.racers}/${r.seats}`),
      h("td", {}, String(r.spectators)),
      h("td", {}, r.phase),
      h(
        "td",
        {},
        r.phase === "waiting" && r.racers < r.seats ? h("button", { onclick: () => joinRoom(r.room, false), "aria-label": `join room ${r.room}` }, "Join") : null,
        h("button", { class: "quiet", onclick: () => joinRoom(r.room, true), "aria-label": `watch room ${r.room}` }, "Watch"),
      ),
    ),
  );
  return h(
    "div",
    { class: "lobby" },
    A.arena ? arenaLobby(hooks) : null, // the arena I am in, first
    h(
      "section",
      { class: "card-panel", "aria-labelledby": "rooms-h" },
      h("h2", { id: "rooms-h" }, "Public rooms"),
      rows.length
        ? h(
            "table",
            { class: "rooms" },
            h("thead", {}, h("tr", {}, ...["Room", "Rules", "Deal", "Racers", "Watching", "Phase", ""].map((t) => h("th", {}, t)))),
            h("tbody", {}, rows),
          )
        : h("p", { class: "muted" }, "No public room right now: create one, or ask for a quick match."),
    ),
    h(
      "section",
      { class: "card-panel", "aria-labelledby": "join-h" },
      h("h2", { id: "join-h" }, "Join by code"),
      h(
        "form",
        {
          class: "row",
          onsubmit: (e) => {
            e.preventDefault();
            if (code.value.trim()) joinRoom(code.value.trim(), e.submitter?.value === "watch");
          },
        },
        code,
        h("button", { type: "submit", value: "race" }, "Join"),
        h("button", { type: "submit", value: "watch", class: "quiet" }, "Watch"),
      ),
      h("h2", {}, "Quick match"),
      h(
        "div",
        { class: "row" },
        quick,
        h("button", { onclick: () => enterWith("quick_match", { preset: quick.value }) }, "Quick match"),
      ),
    ),
    dailyPanel(),
    A.arena ? null : arenaLobby(hooks),
    createForm(),
  );
}

function dailyPanel() {
  const d = S.daily;
  const mmss = (ms) => `${Math.floor(ms / 60000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, "0")}`;
  return h(
    "section",
    { class: "card-panel", "aria-labelledby": "daily-h" },
    h("h2", { id: "daily-h" }, "Daily race"),
    d ? h("p", { class: "muted" }, `${d.date} (UTC): deal ${d.deal}, the same for everyone today.`) : null,
    h("button", { onclick: () => enterWith("quick_match", { preset: "seahaven", daily: true }) }, "Race today's deal"),
    d && d.entries.length
      ? h(
          "table",
          { class: "rooms daily", "aria-label": "today's best times" },
          h("thead", {}, h("tr", {}, ...["#", "Racer", "Time"].map((t) => h("th", {}, t)))),
          h("tbody", {}, d.entries.map((e) => h("tr", {}, h("td", {}, String(e.place)), h("td", {}, e.name), h("td", {}, mmss(e.time_ms))))),
        )
      : h("p", { class: "muted" }, "No finish yet today."),
  );
}

function createForm() {
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  const preset = h("select", { name: "preset" }, presetOptions("seahaven"));
  const seats = h("input", { name: "seats", type: "number", min: 2, max: 8, value: 2 });
  const limit = h("input", { name: "time_limit", type: "number", min: 30, max: 7200, placeholder: "none" });
  const deal = h("input", { name: "deal", placeholder: "a winnable deal", autocomplete: "off" });
  const pub = h("input", { name: "public", type: "checkbox", checked: true });
  const undoBox = h("input", { name: "undo", type: "checkbox", checked: true });
  // Deal difficulty is the solver's grade of a winnable deal, not the easy/medium/hard presets (cell counts).
  const grade = h("select", { name: "deal_grade" }, ["any", "gentle", "tricky", "fiendish"].map((g) => h("option", { value: g }, g)));
  const bot = h("select", { name: "bot" }, [["", "no"], ["stroll", "stroll"], ["brisk", "brisk"], ["sprint", "sprint"]].map(([v, t]) => h("option", { value: v }, t)));
  const hints = h("input", { name: "hints", type: "checkbox" });
  return h(
    "form",
    {
      class: "card-panel create",
      "aria-labelledby": "create-h",
      onsubmit: async (e) => {
        e.preventDefault();
        const body = { preset: preset.value, seats: Number(seats.value) || 2, public: pub.checked, undo: undoBox.checked };
        if (limit.value) body.time_limit = Number(limit.value);
        const d = deal.value.trim();
        if (/^\d+$/.test(d)) body.deal_number = Number(d);
        else if (d) body.deal_code = d;
        else if (grade.value !== "any") body.deal_grade = grade.value;
        if (bot.value) body.bot = bot.value;
        if (hints.checked) body.hints = true;
        await enterWith("create_room", body);
      },
    },
    h("h2", { id: "create-h" }, "New room"),
    field("Rules", preset),
    field("Seats", seats),
    field("Time limit (s)", limit),
    field("Deal number or code", deal),
    field("Deal difficulty (winnable deals)", grade),
    field("Race the computer", bot),
    h("label", { class: "check" }, pub, " listed in the lobby"),
    h("label", { class: "check" }, undoBox, " undo allowed"),
    h("label", { class: "check" }, hints, " hints allowed"),
    h("button", { type: "submit" }, "Create room"),
  );
}

function racersPanel(room) {
  return h(
    "ol",
    { class: "racers", "aria-label": "racers" },
    room.racers.map((r) =>
      h(
        "li",
        { class: `${r.player === room.you ? "me" : ""} ${r.connected ? "" : "away"}` },
        h("span", { class: "who" }, r.name + (r.player === room.you ? " (you)" : ""), racerMarks(r), ratingBadge(r, room.preset, room.you, S.ratings)),
        h("progress", { max: 52, value: r.progress, "aria-label": `${r.name}: ${r.progress} of 52 cards home` }),
        h("span", { class: "count" }, `${r.progress}/52`),
        h("span", { class: `status ${r.status}` }, r.connected ? r.status : `${r.status}, away`),
        room.rematch.includes(r.player) ? h("span", { class: "vote" }, "rematch") : null,
      ),
    ),
  );
}

function roomView() {
  const room = S.room;
  const link = `${location.origin}/r/${room.room}`;
  const me = room.racers.find((r) => r.player === room.you);
  const title = PRESETS[room.preset]?.title ?? room.preset;
  const mine = room.rated ? S.ratings[room.preset] : null;
  const facts = `${title} · ${room.seats} seats · ${room.time_limit ? formatTime(room.time_limit * 1000) + " limit" : "no time limit"} · undo ${room.undo ? "on" : "off"} · ${room.rated ? "rated" : "unrated"}${mine ? ` · your rating ${ratingText(mine)}` : ""}`;
  const parts = [
    h(
      "div",
      { class: "room-head" },
      h("h2", {}, `Room `, h("span", { class: "code", id: "room-code" }, room.room)),
      h("span", { class: "muted" }, facts),
      room.role === "spectator" ? h("span", { class: "badge" }, "watching") : null,
      h("span", { class: "clock", id: "clock", "aria-label": "race clock" }, ""),
      leaveButton(),
    ),
  ];
  if (room.phase === "waiting" || room.phase === "countdown") {
    parts.push(
      h(
        "section",
        { class: "card-panel waiting" },
        h("p", {}, "Share this link: ", h("a", { href: link, id: "share" }, link), " ", h("button", { class: "quiet", onclick: () => navigator.clipboard?.writeText(link).then(() => toast("link copied")) }, "Copy")),
        racersPanel(room),
        room.role === "racer"
          ? h("button", { id: "ready", class: me?.status === "ready" ? "quiet" : "", onclick: ready }, me?.status === "ready" ? "Not ready" : "Ready")
          : null,
        h("div", { id: "countdown", class: "countdown", "aria-live": "assertive" }, ""),
        h("p", { id: "match", class: "muted" }, ""),
        h("p", { class: "muted" }, `${room.spectators} watching`),
      ),
    );
  } else if (room.role === "racer") {
    parts.push(raceView(room));
  } else {
    parts.push(spectatorView(room));
  }
  if (room.phase === "finished" && room.standings.length) parts.push(resultsView(room));
  parts.push(arenaPanel(hooks, true)); // between races, the arena's standings (null outside one)
  return h("div", { class: `room phase-${room.phase}` }, parts);
}

function raceView(room) {
  const status = S.mine?.status ?? "racing";
  const note =
    status === "stuck"
      ? room.undo
        ? "Stuck: no legal move. Undo, or resign."
        : "Stuck: no legal move left."
      : status !== "racing"
        ? `You are ${status}.`
        : "";
  return h(
    "div",
    { class: "race" },
    h(
      "div",
      { class: "controls" },
      h("span", { class: "mine" }, `${S.board.progress}/52 home · ${S.mine?.moves ?? 0} moves`),
      room.undo && room.phase === "racing" ? h("button", { onclick: undo, disabled: !S.board.stack.length }, "Undo") : null,
      room.phase === "racing" && (status === "racing" || status === "stuck") ? h("button", { class: "quiet", onclick: () => confirm("Resign this race?") && resign() }, "Resign") : null,
      h("span", { class: `note ${status}`, role: "status" }, note),
    ),
    racersPanel(room),
    renderBoard(S.board, {
      label: "your board",
      selected: S.selected,
      legal: destinations(),
      interactive: racing(),
      onPick: pick,
      onClear: () => {
        S.selected = null;
        render();
      },
      onDrop: (from, area, index) => {
        S.selected = from;
        pick(area, index);
      },
    }),
  );
}

function spectatorView(room) {
  const focus = S.boards.get(S.focus);
  const racer = room.racers.find((r) => r.player === S.focus);
  return h(
    "div",
    { class: "race spectating" },
    racersPanel(room),
    h(
      "div",
      { class: "tabs", role: "tablist", "aria-label": "whose board" },
      room.racers.map((r) =>
        h("button", { role: "tab", "aria-selected": r.player === S.focus ? "true" : "false", onclick: () => ((S.focus = r.player), render()) }, r.name, racerMarks(r)),
      ),
    ),
    focus ? renderBoard(focus, { label: `${racer?.name ?? "racer"}'s board`, interactive: false }) : h("p", { class: "muted" }, "The boards show once the race starts."),
  );
}

function resultsView(room) {
  const reasons = { won: "a racer put all 52 cards home", "all-done": "every racer is done", "time-limit": "time ran out", abandoned: "nobody is left" };
  const me = room.racers.find((r) => r.player === room.you);
  return h(
    "section",
    { class: "card-panel results", "aria-labelledby": "results-h" },
    h("h2", { id: "results-h" }, "Results"),
    S.result?.reason ? h("p", { class: "muted" }, `The race is over: ${reasons[S.result.reason] ?? S.result.reason}.`) : null,
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ...["Place", "Racer", "Status", "Home", "Moves", "Time"].map((t) => h("th", {}, t)))),
      h(
        "tbody",
        {},
        room.standings.map((s) =>
          h("tr", { class: s.player === room.you ? "me" : "" }, h("td", {}, String(s.place)), h("td", { class: "who" }, s.name, racerMarks(s), ratingBadge(s, room.preset, room.you, S.ratings)), h("td", {}, s.status), h("td", {}, `${s.progress}/52`), h("td", {}, String(s.moves)), h("td", {}, formatTime(s.time_ms))),
        ),
      ),
    ),
    recordsLinks(),
    room.role === "racer" && me && S.result?.race_id ? challengeOffer(hooks, S.result.race_id) : null,
    room.role === "racer" && me && ghostChallenge(room) ? raceAgainButton(hooks, ghostChallenge(room)) : null,
    room.role === "racer" && me && !ghostChallenge(room)
      ? h("button", { id: "rematch", onclick: rematch, disabled: room.rematch.includes(room.you) }, room.rematch.includes(room.you) ? "Waiting for the others…" : "Rematch")
      : null,
    h("button", { class: "quiet", onclick: leave }, "Back to the lobby"),
  );
}

/** The race on record, the boards and my page (the records pages), each in a tab of its own so
 * the room stays open here for a rematch. */
function recordsLinks() {
  const raceId = S.result?.race_id;
  if (!raceId) return null;
  const link = (href, id, text) => h("a", { href, id, target: "_blank", rel: "noopener" }, text);
  return h(
    "p",
    { class: "row" },
    link(`/races/${raceId}`, "replay-link", "Replay this race"),
    link("/boards", "boards-link", "Leaderboards"),
    S.me ? link(`/players/${encodeURIComponent(S.me.player)}`, "my-page-link", "My page") : null,
  );
}

function helpView() {
  return h(
    "details",
    { class: "help" },
    h("summary", {}, "Keys"),
    h("dl", {}, KEYS_HELP.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
  );
}

function render() {
  const app = document.getElementById("app");
  const views = { name: nameView, account: () => accountView(hooks), challenge: () => challengeView(hooks, S.challenge) };
  const view = S.view === "room" && S.room ? roomView() : (views[S.view] ?? lobbyView)();
  app.replaceChildren(header(), view, S.view === "room" ? helpView() : "");
  tick();
  if (S.view === "name") document.getElementById("name")?.focus();
}

/** Quick match's wait while I am alone in the room: its rating window, widening each second. */
function matchText(room) {
  const m = S.match;
  if (!m || m.room !== room.room || room.phase !== "waiting" || room.racers.length !== 1) return "";
  const since = Date.now() - m.at;
  const waited = m.waited_ms + since;
  const secs = Math.floor(waited / 1000);
  if (waited >= m.anyone_after_ms) return `Looking for a racer: anyone now · waited ${secs} s`;
  const window = m.window + Math.floor((m.widens * since) / 1000);
  return `Looking for a racer near ${m.rating} ±${window} · waited ${secs} s · anyone from ${Math.floor(m.anyone_after_ms / 1000)} s`;
}

/** The clocks, every few hundred ms, without rebuilding the view. */
function tick() {
  const room = S.room;
  if (!room || !S.conn) return;
  const now = S.conn.now();
  const match = document.getElementById("match");
  if (match) match.textContent = matchText(room);
  const countdown = document.getElementById("countdown");
  if (countdown) countdown.textContent = room.phase === "countdown" && room.starts_at ? `Starting in ${Math.max(0, Math.ceil((room.starts_at - now) / 1000))}…` : "";
  const clock = document.getElementById("clock");
  if (clock && room.started_at) {
    if (room.phase === "finished") {
      const me = room.standings.find((s) => s.player === room.you);
      clock.textContent = me?.time_ms != null ? formatTime(me.time_ms) : "";
    } else {
      const left = room.ends_at ? ` · ${formatTime(room.ends_at - now)} left` : "";
      clock.textContent = formatTime(now - room.started_at) + left;
    }
  }
}

// -- start -------------------------------------------------------------------------------------

if (store.getItem(KEY.four)) document.body.classList.add("four-colour");
document.addEventListener("keydown", onKey);
setInterval(tick, 250);
setInterval(() => tickArena(hooks), 500);
setInterval(refreshRooms, 4000);
setInterval(() => S.conn?.online && S.conn.call("ping").catch(() => {}), 30000);
if (S.view === "lobby") connect(); // a challenge's page connects when its challenge is raced
render();
export { S, SUITS };
