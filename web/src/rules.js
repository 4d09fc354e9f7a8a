// The rules in the browser: a port of seahaven/board.py, moves.py and text.py, enough to play
// moves at once (optimistically) and highlight legal destinations. The server stays the judge;
// test/rules.test.js checks this file against the vectors seahaven/vectors.py writes.
import PRESETS from "./presets.json" with { type: "json" };

export { PRESETS };

export const SUITS = "CDHS";
export const SUIT_SYMBOLS = "♣♦♥♠";
export const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
export const RANKS = "A23456789TJQK";
export const RANK_WORDS = ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"];
export const COLUMN = 0;
export const CELL = 1;
export const FOUNDATION = 2;
export const COLUMN_TOKENS = "1234567890";
export const CELL_TOKENS = "abcdefgh";
const TOP_REL = 12;
const FOUNDATION_ORDER = [2, 0, 1, 3]; // H C D S, as the board text lists them

export const rankOf = (card) => (card >> 2) + 1;
export const suitOf = (card) => card & 3;
export const isRed = (card) => (card & 3) === 1 || (card & 3) === 2;
export const cardText = (card) => RANKS[rankOf(card) - 1] + SUITS[suitOf(card)];
export const cardName = (card) => `${RANK_WORDS[rankOf(card) - 1]} of ${SUIT_NAMES[suitOf(card)]}`;

export function parseCard(token) {
  let t = token.trim().toUpperCase();
  if (t.length === 3 && t.startsWith("10")) t = "T" + t[2];
  const rank = t.length === 2 ? RANKS.indexOf(t[0]) : -1;
  const suit = t.length === 2 ? SUITS.indexOf(t[1]) : -1;
  if (rank < 0 || suit < 0) throw new Error(`'${token}' is not a card`);
  return rank * 4 + suit;
}

// -- moves ----------------------------------------------------------------------------

/** A move: {sa, s, da, d, n}, areas COLUMN, CELL, FOUNDATION (a foundation source's index is its suit). */
export const mv = (sa, s, da, d, n = 1) => ({ sa, s, da, d, n });

export function moveText(m) {
  const src = m.sa === COLUMN ? COLUMN_TOKENS[m.s] : m.sa === CELL ? CELL_TOKENS[m.s] : "#" + SUITS[m.s];
  const dst = m.da === COLUMN ? COLUMN_TOKENS[m.d] : m.da === CELL ? CELL_TOKENS[m.d] : "#";
  return m.n === 1 ? src + dst : `${src}${dst}:${m.n}`;
}

export function parseMove(text) {
  const [body, countText] = text.trim().split(":");
  let n = 1;
  if (countText !== undefined) {
    n = /^\d+$/.test(countText) ? Number(countText) : 0;
    if (n < 1 || n > 52) throw new Error(`'${text}': the card count after ':' must be a number from 1 to 52`);
  }
  const read = (rest, source) => {
    const ch = rest[0];
    if (ch === undefined) throw new Error(`'${text}': the ${source ? "source" : "destination"} is missing`);
    if (COLUMN_TOKENS.includes(ch)) return [COLUMN, COLUMN_TOKENS.indexOf(ch), rest.slice(1)];
    if (CELL_TOKENS.includes(ch)) return [CELL, CELL_TOKENS.indexOf(ch), rest.slice(1)];
    if (ch === "#") {
      if (!source) return [FOUNDATION, 0, rest.slice(1)];
      const suit = rest.length > 1 ? SUITS.indexOf(rest[1].toUpperCase()) : -1;
      if (suit < 0) throw new Error(`'${text}': a foundation source names its suit, like #H`);
      return [FOUNDATION, suit, rest.slice(2)];
    }
    throw new Error(`'${text}': '${ch}' is not a ${source ? "source" : "destination"}`);
  };
  const [sa, s, rest] = read(body, true);
  const [da, d, tail] = read(rest, false);
  if (tail) throw new Error(`'${text}': unexpected '${tail}' after the destination`);
  if (n > 1 && !(sa === COLUMN && da === COLUMN)) throw new Error(`'${text}': only column-to-column moves carry more than one card`);
  return mv(sa, s, da, d, n);
}

export const placeName = (area, index) =>
  area === COLUMN ? `column ${index + 1}` : area === CELL ? `cell ${CELL_TOKENS[index]}` : "the foundation";

// -- the board ------------------------------------------------------------------------

export class Board {
  /** cols: arrays of cards deepest first; cells: card or null; home: cards home per suit (C D H S). */
  constructor(rules, cols, cells, home = [0, 0, 0, 0], base = 1) {
    this.rules = typeof rules === "string" ? PRESETS[rules] : rules;
    this.cols = cols.map((c) => [...c]);
    this.cells = [...cells];
    this.home = [...home];
    this.base = base;
    this.stack = [];
    this.kingOnly = this.rules.empty_column === "king";
  }

  static parse(text, rules) {
    const r = typeof rules === "string" ? PRESETS[rules] : rules;
    if (!r) throw new Error(`unknown preset ${rules}`);
    const tops = {};
    const cells = [];
    const cols = [];
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (!line) continue;
      const colon = line.indexOf(":");
      const key = colon >= 0 ? line.slice(0, colon).trim().toLowerCase() : "";
      const rest = colon >= 0 ? line.slice(colon + 1) : line;
      const tokens = rest.split(/\s+/).filter(Boolean);
      if (key === "foundations") {
        for (const token of tokens) {
          const [suitCh, rankCh] = token.split("-");
          tops[SUITS.indexOf(suitCh.toUpperCase())] = rankCh === "0" ? 0 : RANKS.indexOf(rankCh === "10" ? "T" : rankCh) + 1;
        }
      } else if (key === "freecells") {
        for (const token of tokens) cells.push(token === "-" ? null : parseCard(token));
      } else {
        cols.push(tokens.map(parseCard));
      }
    }
    while (cols.length < r.columns) cols.push([]);
    while (cells.length < r.cells) cells.push(null);
    if (cols.length !== r.columns || cells.length !== r.cells) throw new Error(`the board does not fit ${r.name}`);
    let base = 1;
    if (r.beak) {
      const present = new Set([...cols.flat(), ...cells.filter((c) => c !== null)]);
      const suit = Object.keys(tops).map(Number).find((s) => tops[s]);
      if (suit === undefined) throw new Error("a Penguin position needs a foundation card");
      let left = 0;
      for (const c of present) if (suitOf(c) === suit) left++;
      base = (((tops[suit] - (13 - left)) % 13) + 13) % 13 + 1;
    }
    const home = [0, 0, 0, 0];
    for (const [s, rank] of Object.entries(tops)) if (rank) home[s] = (((rank - base) % 13) + 13) % 13 + 1;
    return new Board(r, cols, cells, home, base);
  }

  copy() {
    const b = new Board(this.rules, this.cols, this.cells, this.home, this.base);
    b.stack = [...this.stack];
    return b;
  }

  text() {
    const founds = FOUNDATION_ORDER.map((s) => {
      const top = this.foundationTop(s);
      return `${SUITS[s]}-${top === null ? "0" : RANKS[rankOf(top) - 1]}`;
    });
    const cells = this.cells.map((c) => (c === null ? "-" : cardText(c))).join(" ");
    const lines = [`Foundations: ${founds.join(" ")}`, `Freecells: ${cells}`.trimEnd()];
    for (const col of this.cols) lines.push((": " + col.map(cardText).join(" ")).trimEnd());
    return lines.join("\n") + "\n";
  }

  rel(card) {
    return (((rankOf(card) - this.base) % 13) + 13) % 13;
  }

  /** May ``card`` be built on ``target`` in a column? */
  fits(card, target) {
    if (this.rel(target) !== this.rel(card) + 1) return false;
    return this.rules.build === "suit" ? suitOf(card) === suitOf(target) : isRed(card) !== isRed(target);
  }

  foundationTop(suit) {
    const count = this.home[suit];
    return count ? ((this.base - 1 + count - 1) % 13) * 4 + suit : null;
  }

  get progress() {
    return this.home.reduce((a, b) => a + b, 0);
  }

  /** Foundation moves no later play can regret (seahaven/board.py, safe_home_moves): building by
   * suit every one; in alternating colours aces, 2s and a card whose two lower cards of the other
   * colour are home. */
  safeHomeMoves() {
    const alternate = this.rules.build !== "suit";
    const sources = [...this.cols.map((col, i) => [COLUMN, i, col.length ? col[col.length - 1] : null]), ...this.cells.map((c, i) => [CELL, i, c])];
    const moves = [];
    for (const [area, index, card] of sources) {
      if (card === null || this.rel(card) !== this.home[suitOf(card)]) continue;
      if (alternate && this.rel(card) > 1) {
        const others = isRed(card) ? [0, 3] : [1, 2];
        if (Math.min(this.home[others[0]], this.home[others[1]]) < this.rel(card)) continue;
      }
      moves.push(mv(area, index, FOUNDATION, 0, 1));
    }
    return moves;
  }

  /** The next move auto-move plays (seahaven/board.py, auto_move; the server plays the same for a
   * racer who asks it to): the first safe foundation move; else, when nothing but foundation moves
   * is left to win, the first foundation move; else null. */
  autoMove() {
    const safe = this.safeHomeMoves();
    if (safe.length) return safe[0];
    if (this.rules.build === "suit" || !this.homeMoves().length) return null;
    const copy = this.copy();
    for (let moves = copy.homeMoves(); moves.length; moves = copy.homeMoves()) copy.push(moves[0]);
    return copy.isWon() ? this.homeMoves()[0] : null;
  }

  /** Every foundation move from a column or a cell, safe or not. */
  homeMoves() {
    const moves = [];
    this.cols.forEach((col, i) => {
      const top = col.length ? col[col.length - 1] : null;
      if (top !== null && this.rel(top) === this.home[suitOf(top)]) moves.push(mv(COLUMN, i, FOUNDATION, 0, 1));
    });
    this.cells.forEach((card, i) => {
      if (card !== null && this.rel(card) === this.home[suitOf(card)]) moves.push(mv(CELL, i, FOUNDATION, 0, 1));
    });
    return moves;
  }

  isWon() {
    return this.progress === 52;
  }

  isStuck() {
    return !this.isWon() && this.legalMoves().length === 0;
  }

  capacity(toEmptyColumn = false, wholeColumn = false) {
    const kind = this.rules.capacity;
    if (kind === "unlimited") return 52;
    const free = this.cells.filter((c) => c === null).length;
    if (kind === "sequential" && this.kingOnly) return free + 1;
    const empties = Math.max(this.cols.filter((c) => c.length === 0).length - (toEmptyColumn ? 1 : 0), 0);
    if (kind === "sequential" && wholeColumn && toEmptyColumn) {
      return free + 1 + Math.floor(free / 2) + (free + 1) * ((2 << empties) - 2);
    }
    return (free + 1) * 2 ** empties;
  }

  /** Why ``m`` is illegal here, or null when it is legal. */
  reason(m) {
    const { sa, s, da, d, n } = m;
    const cols = this.cols;
    let card;
    if (n < 1) return "a move carries at least one card";
    if (sa === COLUMN) {
      if (!(s >= 0 && s < cols.length)) return `there is no column ${s + 1}`;
      const col = cols[s];
      if (col.length < n) return col.length ? `${placeName(COLUMN, s)} has only ${col.length} card(s)` : `${placeName(COLUMN, s)} is empty`;
      card = col[col.length - n];
      if (n > 1) {
        if (da !== COLUMN) return "only single cards go to a cell or a foundation";
        for (let i = col.length - n; i < col.length - 1; i++) {
          if (!this.fits(col[i + 1], col[i])) return `the last ${n} cards of ${placeName(COLUMN, s)} are not a run`;
        }
      }
    } else if (sa === CELL) {
      if (!(s >= 0 && s < this.cells.length)) return `there is no ${placeName(CELL, s)}`;
      card = this.cells[s];
      if (card === null) return `${placeName(CELL, s)} is empty`;
      if (n !== 1) return "a cell holds a single card";
    } else if (sa === FOUNDATION) {
      if (!this.rules.foundation_takeback) return "cards on a foundation stay there in these rules";
      if (!(s >= 0 && s < 4)) return "there are four foundations";
      card = this.foundationTop(s);
      if (card === null) return `the ${SUIT_NAMES[s]} foundation is empty`;
      if (n !== 1) return "cards come back from a foundation one at a time";
    } else {
      return "unknown source";
    }
    if (da === COLUMN) {
      if (!(d >= 0 && d < cols.length)) return `there is no column ${d + 1}`;
      if (sa === COLUMN && s === d) return "source and destination are the same column";
      const dcol = cols[d];
      if (dcol.length) {
        const target = dcol[dcol.length - 1];
        if (!this.fits(card, target)) return `${cardText(card)} cannot go on ${cardText(target)}: columns build ${this.rules.build === "suit" ? "down by suit" : "down in alternating colours"}`;
      } else if (this.kingOnly && this.rel(card) !== TOP_REL) {
        return "an empty column takes only a King or a King-led run";
      }
      if (n > 1) {
        const room = this.capacity(!dcol.length, n === cols[s].length);
        if (n > room) return `a run of ${n} cards is too long: ${room} can move now`;
      }
    } else if (da === CELL) {
      if (!(d >= 0 && d < this.cells.length)) return `there is no ${placeName(CELL, d)}`;
      if (sa === CELL) return "a card does not move from cell to cell";
      if (this.cells[d] !== null) return `${placeName(CELL, d)} is occupied`;
    } else if (da === FOUNDATION) {
      if (sa === FOUNDATION) return "the card is already on its foundation";
      if (d !== 0) return "a foundation destination has index 0";
      if (this.rel(card) !== this.home[suitOf(card)]) return `${cardText(card)} cannot go home yet`;
    } else {
      return "unknown destination";
    }
    return null;
  }

  isLegal(m) {
    return this.reason(m) === null;
  }

  /** Every legal move, in the engine's order (see Board.legal_moves in seahaven/board.py). */
  legalMoves() {
    const cols = this.cols;
    const tops = new Map();
    const empties = [];
    cols.forEach((col, i) => (col.length ? tops.set(col[col.length - 1], i) : empties.push(i)));
    const free = [];
    this.cells.forEach((c, i) => c === null && free.push(i));
    const cap = this.capacity();
    let capEmpty = 0;
    let capWhole = 0;
    if (empties.length) {
      capEmpty = this.capacity(true);
      capWhole = this.capacity(true, true);
    }
    const onto = (card) => [...tops.keys()].filter((t) => this.fits(card, t)).sort((a, b) => a - b);
    const moves = [];
    cols.forEach((col, s) => {
      if (!col.length) return;
      const top = col[col.length - 1];
      if (this.rel(top) === this.home[suitOf(top)]) moves.push(mv(COLUMN, s, FOUNDATION, 0));
      const depth = col.length;
      let run = 1;
      for (let i = depth - 1; i > 0 && this.fits(col[i], col[i - 1]); i--) run++;
      const found = [];
      for (let n = 1; n <= Math.min(run, cap); n++) {
        for (const target of onto(col[depth - n])) found.push([tops.get(target), n]);
      }
      found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      for (const [d, n] of found) moves.push(mv(COLUMN, s, COLUMN, d, n));
      if (empties.length) {
        if (this.kingOnly) {
          const n = TOP_REL + 1 - this.rel(top);
          if (n <= run && n <= capEmpty) for (const d of empties) moves.push(mv(COLUMN, s, COLUMN, d, n));
        } else {
          for (let n = 1; n <= Math.min(run, capEmpty); n++) for (const d of empties) moves.push(mv(COLUMN, s, COLUMN, d, n));
          if (run === depth && capEmpty < run && run <= capWhole) for (const d of empties) moves.push(mv(COLUMN, s, COLUMN, d, run));
        }
      }
      for (const d of free) moves.push(mv(COLUMN, s, CELL, d));
    });
    const toColumns = (card) => {
      const dests = onto(card).map((t) => tops.get(t));
      if (empties.length && (!this.kingOnly || this.rel(card) === TOP_REL)) dests.push(...empties);
      return dests.sort((a, b) => a - b);
    };
    this.cells.forEach((card, s) => {
      if (card === null) return;
      if (this.rel(card) === this.home[suitOf(card)]) moves.push(mv(CELL, s, FOUNDATION, 0));
      for (const d of toColumns(card)) moves.push(mv(CELL, s, COLUMN, d));
    });
    if (this.rules.foundation_takeback) {
      for (let suit = 0; suit < 4; suit++) {
        const top = this.foundationTop(suit);
        if (top === null) continue;
        for (const d of toColumns(top)) moves.push(mv(FOUNDATION, suit, COLUMN, d));
        for (const d of free) moves.push(mv(FOUNDATION, suit, CELL, d));
      }
    }
    return moves;
  }

  /** Play ``m``; throws with the reason when the rules refuse it. */
  push(m) {
    const why = this.reason(m);
    if (why !== null) throw new Error(why);
    const { sa, s, da, d, n } = m;
    let moved;
    if (sa === COLUMN) moved = this.cols[s].splice(this.cols[s].length - n, n);
    else if (sa === CELL) {
      moved = [this.cells[s]];
      this.cells[s] = null;
    } else {
      moved = [this.foundationTop(s)];
      this.home[s] -= 1;
    }
    if (da === COLUMN) this.cols[d].push(...moved);
    else if (da === CELL) this.cells[d] = moved[0];
    else this.home[suitOf(moved[0])] += 1;
    this.stack.push([m, moved[0]]);
  }

  /** Take back the last move; the move, or null when there is none. */
  pop() {
    const last = this.stack.pop();
    if (!last) return null;
    const [m, card] = last;
    const { sa, s, da, d, n } = m;
    let moved;
    if (da === COLUMN) moved = this.cols[d].splice(this.cols[d].length - n, n);
    else if (da === CELL) {
      moved = [this.cells[d]];
      this.cells[d] = null;
    } else {
      moved = [card];
      this.home[suitOf(card)] -= 1;
    }
    if (sa === COLUMN) this.cols[s].push(...moved);
    else if (sa === CELL) this.cells[s] = card;
    else this.home[s] += 1;
    return m;
  }

  /** The double-click destination for the card(s) at (area, index), or null (seahaven/board.py smart_move). */
  smartMove(area, index) {
    const candidates = this.legalMoves().filter((m) => m.sa === area && m.s === index);
    if (!candidates.length) return null;
    const home = candidates.find((m) => m.da === FOUNDATION);
    if (home) return home;
    const best = (list, key) => list.reduce((a, b) => (key(b) > key(a) ? b : a));
    const onto = candidates.filter((m) => m.da === COLUMN && this.cols[m.d].length);
    if (onto.length) return best(onto, (m) => this.cols[m.d].length * 100 - m.d);
    const intoEmpty = candidates.filter((m) => m.da === COLUMN);
    if (intoEmpty.length) return best(intoEmpty, (m) => m.n * 100 - m.d);
    return candidates[0].da === CELL ? candidates[0] : null;
  }
}
