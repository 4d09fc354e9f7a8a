// Deal numbers to opening boards, as seahaven/deals.py deals them (docs/deals.md): a race record
// names its deal by number, and the replay page starts each racer's moves from that deal.
// test/replay.test.js checks every preset's deals against the engine's opening positions.
import { Board, CELL_TOKENS, COLUMN_TOKENS, PRESETS, rankOf, suitOf } from "./rules.js";

export const MAX_DEAL = 2 ** 40 - 1;
const MASK64 = (1n << 64n) - 1n;

/** The 52 cards in the order Microsoft's FreeCell generator deals deal ``number``. */
export function msOrder(number) {
  let state = number;
  const cards = [];
  for (let c = 51; c >= 0; c--) cards.push(c);
  for (let i = 0; i < 52; i++) {
    // state * 214013 stays below 2^53, so the product is exact before the 31-bit mask.
    state = (state * 214013 + 2531011) & 0x7fffffff;
    const j = 51 - ((state >> 16) % (52 - i));
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** The 52 cards shuffled by Fisher-Yates over SplitMix64 seeded with ``number`` (BigInt arithmetic). */
export function splitmixOrder(number) {
  let state = BigInt(number) & MASK64;
  const cards = [];
  for (let c = 0; c < 52; c++) cards.push(c);
  for (let i = 51; i > 0; i--) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z ^= z >> 31n;
    const j = Number(z % BigInt(i + 1));
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** The opening board of deal ``number`` under ``preset`` (a name); throws for an unknown preset or number. */
export function dealBoard(preset, number) {
  const rules = PRESETS[preset];
  if (!rules) throw new Error(`unknown preset ${preset}`);
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_DEAL) throw new Error(`deal numbers run from 1 to ${MAX_DEAL}, not ${number}`);
  const order = number < rules.ms_deal_limit ? msOrder(number) : splitmixOrder(number);
  const cols = Array.from({ length: rules.columns }, () => []);
  const cells = new Array(rules.cells).fill(null);
  const home = [0, 0, 0, 0];
  let base = 1;
  let rest = order;
  if (rules.beak) {
    // Penguin: the first card is the beak; its three mates start on the foundations.
    const beak = order[0];
    base = rankOf(beak);
    rest = [beak, ...order.slice(1).filter((c) => rankOf(c) !== base)];
    for (const card of order.slice(1)) if (rankOf(card) === base) home[suitOf(card)] = 1;
  }
  if (rest.length !== rules.layout.length) throw new Error(`${preset}: the layout places ${rules.layout.length} cards, the deal has ${rest.length}`);
  rest.forEach((card, i) => {
    const token = rules.layout[i];
    const column = COLUMN_TOKENS.indexOf(token);
    if (column >= 0) cols[column].push(card);
    else cells[CELL_TOKENS.indexOf(token)] = card;
  });
  return new Board(rules, cols, cells, home, base);
}
