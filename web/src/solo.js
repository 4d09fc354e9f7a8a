// Practice alone on any deal: /solo/DEALCODE opens that deal on the page, no server in the loop.
// A stand-in for the connection (net.js) answers the same requests a race room would (move, undo,
// resign, rematch: the deal again, leave), judging moves with rules.js, so the race views, keys
// and auto-move work unchanged: a move asking for auto-move brings the same auto-moves the server
// would play (rules.js autoMove), an undo takes them back with it, and the opening's safe cards
// come as the server's do (a progress about me, after the room). Deal codes as docs/deals.md defines them (seahaven/codes.py).
import { dealBoard, MAX_DEAL } from "./dealing.js";
import { PRESETS, moveText, parseMove } from "./rules.js";
import { t } from "./i18n.js";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ALIASES = { O: "0", I: "1", L: "1" };
const BY_TAG = Object.fromEntries(Object.values(PRESETS).map((p) => [p.tag, p.name]));

/** The preset and deal number a deal code names ("SH1-ST-0001G": seahaven #1); throws with the reason. */
export function dealOfCode(code) {
  const text = [...code.toUpperCase().replace(/\s+/g, "")].map((ch) => ALIASES[ch] ?? ch).join("");
  const parts = text.split("-");
  if (parts.length !== 3 || parts[0] !== "SH1") throw new Error(t("a deal code reads SH1-TAG-DIGITS"));
  const [, tag, rest] = parts;
  if (!(tag in BY_TAG)) throw new Error(t("unknown preset tag {tag}", { tag }));
  if (rest.length < 5 || rest.length > 9) throw new Error(t("a deal code has 4 to 8 digits and a check character"));
  const digits = rest.slice(0, -1);
  for (const ch of rest) if (!ALPHABET.includes(ch)) throw new Error(t("{ch} is not a deal code character", { ch }));
  if (checkChar(tag + digits) !== rest.at(-1)) throw new Error(t("the check character does not match: a mistyped code?"));
  const number = [...digits].reduce((n, ch) => n * 32 + ALPHABET.indexOf(ch), 0);
  if (number < 1 || number > MAX_DEAL) throw new Error(t("that deal number is out of range"));
  return { preset: BY_TAG[tag], number };
}

/** Luhn mod 32 over ``body``: from the right, values times 2, 1, 2, ...; each product's two base-32 digits summed. */
function checkChar(body) {
  let total = 0;
  [...body].reverse().forEach((ch, i) => {
    const p = ALPHABET.indexOf(ch) * (i % 2 === 0 ? 2 : 1);
    total += Math.floor(p / 32) + (p % 32);
  });
  return ALPHABET[(32 - (total % 32)) % 32];
}

// -- a player's games alone, kept in this browser ---------------------------------------------

const STATS = "seahaven.solo"; // localStorage: preset -> {played, won, best, streak, bestStreak}

/** Every preset's solo statistics kept in ``store`` (its localStorage). */
function allStats(store) {
  try {
    const all = JSON.parse(store.getItem(STATS) ?? "{}");
    return all && typeof all === "object" ? all : {};
  } catch {
    return {};
  }
}

/** My games alone on ``preset``: played (won or given up), won, the best time (ms or null), the
 * wins in a row now and at best. */
export function soloStats(store, preset) {
  return { played: 0, won: 0, best: null, streak: 0, bestStreak: 0, ...allStats(store)[preset] };
}

/** A game alone over: counted in ``store``. ``won``: all 52 home, in ``ms``. The new statistics. */
export function noteSolo(store, preset, won, ms) {
  const all = allStats(store);
  const s = soloStats(store, preset);
  s.played++;
  if (won) {
    s.won++;
    s.best = s.best === null ? ms : Math.min(s.best, ms);
    s.streak++;
    s.bestStreak = Math.max(s.bestStreak, s.streak);
  } else s.streak = 0;
  all[preset] = s;
  store.setItem(STATS, JSON.stringify(all));
  return s;
}

/** Another deal of ``preset`` to practise (not ``current``): one of its published winnable deals
 * (``listText``, the records API's deal list), else any deal of the classic numbers. */
export function anotherDeal(preset, current, listText, random = Math.random) {
  let numbers = [];
  try {
    numbers = listText ? winnableNumbers(listText).filter((n) => n !== current) : [];
  } catch {
    numbers = [];
  }
  if (numbers.length) return numbers[Math.floor(random() * numbers.length)];
  let n = current;
  while (n === current) n = 1 + Math.floor(random() * 32000);
  return n;
}

/** The deal numbers of a published list's text (seahaven/winnable.py's format: "NUMBER GRADE"). */
const winnableNumbers = (text) => text.split(/\r?\n/).flatMap((line) => (/^\d+\s+[gtf]\s*$/.test(line) ? [Number(line.split(/\s+/)[0])] : []));

/** The deal code a /solo/ path names, or null. */
export const soloOfPath = (path) => /^\/solo\/([0-9A-Za-z-]{10,16})$/.exec(path)?.[1] ?? null; // SH1-ST- and 5 to 9 characters

const ME = "solo";

/** The connection's stand-in for a solo game of ``code`` (a deal code): ``onEvent`` hears the room
 * and the result as a race's would be heard; ``onLeave`` when the player leaves. */
export class SoloConnection {
  constructor(code, name, { onEvent, onLeave }) {
    const { preset, number } = dealOfCode(code);
    this.code = code.toUpperCase();
    this.preset = preset;
    this.number = number;
    this.name = name || t("you");
    this.onEvent = onEvent;
    this.onLeave = onLeave;
    this.online = true;
    this.stopped = false;
    this.key = null;
  }

  now() {
    return Date.now();
  }

  /** The room frame of a new game (the page's `room` event): racing from now; with ``auto``, then
   * the opening's auto-moves (a `progress` about me, as the server sends them after `ready.auto`). */
  begin(auto = false) {
    this.board = dealBoard(this.preset, this.number);
    this.moves = 0;
    this.groups = []; // for each of my moves in effect, the auto-moves after it
    this.status = "racing";
    this.started = Date.now();
    const opening = this.board.text();
    this.onEvent("room", {
      room: "SOLO",
      solo: true,
      you: ME,
      role: "racer",
      preset: this.preset,
      seats: 1,
      public: false,
      time_limit: null,
      undo: true,
      hints: false,
      phase: "racing",
      racers: [this.racer()],
      spectators: 0,
      server_time: this.started,
      starts_at: null,
      started_at: this.started,
      deal: this.code,
      board: opening,
      history: [],
      standings: [],
      rematch: [],
      watching: [],
    });
    const played = auto ? this.autoMoves() : [];
    if (played.length) this.onEvent("progress", { ...this.racer(), elapsed_ms: 0, move: null, auto: played });
  }

  /** Play auto-move's moves until it gives none (the server's rule); their notation. */
  autoMoves() {
    const played = [];
    for (let next = this.board.autoMove(); next; next = this.board.autoMove()) {
      this.board.push(next);
      played.push(moveText(next));
    }
    return played;
  }

  racer() {
    return { player: ME, name: this.name, progress: this.board.progress, moves: this.moves, status: this.status, connected: true, time_ms: null };
  }

  /** As Connection.call: the reply's body, or a rejection with the reason. */
  async call(type, body = {}) {
    if (type === "move" || type === "undo") {
      if (this.status !== "racing" && !(type === "undo" && this.status === "stuck")) throw refusal("not-racing", "this game is over");
      const reply = {};
      if (type === "move") {
        const move = parseMove(body.move);
        const why = this.board.reason(move);
        if (why !== null) throw refusal("illegal-move", why);
        this.board.push(move);
        const auto = body.auto ? this.autoMoves() : [];
        this.groups.push(auto.length);
        Object.assign(reply, { move: moveText(move), undo: false }, auto.length ? { auto } : {});
      } else {
        if (!this.groups.length) throw refusal("nothing-to-undo", "no move of yours to take back");
        const undone = this.groups.pop() + 1;
        for (let i = 0; i < undone; i++) this.board.pop();
        Object.assign(reply, { move: "undo", undo: true }, undone > 1 ? { undone } : {});
      }
      this.moves++;
      this.status = this.board.isWon() ? "finished" : this.board.isStuck() ? "stuck" : "racing";
      if (this.status === "finished") setTimeout(() => this.finish("won"), 0);
      return { ...reply, progress: this.board.progress, moves: this.moves, status: this.status, elapsed_ms: Date.now() - this.started };
    }
    if (type === "resign") {
      this.status = "resigned";
      setTimeout(() => this.finish("all-done"), 0);
      return {};
    }
    if (type === "rematch") {
      setTimeout(() => this.begin(Boolean(body.auto)), 0);
      return {};
    }
    if (type === "leave") {
      this.onLeave();
      return {};
    }
    if (type === "ping") return {};
    throw refusal("solo", "not in solo practice");
  }

  finish(reason) {
    const time = Date.now() - this.started;
    // As the server counts them: an undo is in `moves`, and the undos are said apart.
    const undos = (this.moves - this.groups.length) / 2;
    const standing = { place: 1, player: ME, name: this.name, status: this.status, progress: this.board.progress, moves: this.moves, time_ms: time, ...(undos ? { undos } : {}) };
    this.onEvent("progress", { ...this.racer(), time_ms: time, move: null });
    this.onEvent("result", { reason, standings: [standing] });
  }

  open() {}
  retire() {}
  drop() {}
}

function refusal(code, message) {
  return Object.assign(new Error(message), { code });
}
