// Cards, places and deal grades in the player's language, for the page and screen readers ("ten of spades",
// "dix de pique", "schoppen tien"; "column 4", "free cell b"). rules.js keeps the engine's
// English words, which its refusals (the server's too) are written in.
import { CELL, CELL_TOKENS, COLUMN, FOUNDATION, RANKS, SUITS as SUIT_LETTERS, SUIT_SYMBOLS, moveText, parseMove, rankOf, suitOf } from "./rules.js";
import { number, t, tn } from "./i18n.js";

// Functions: each word is looked up in the language of the moment; the pips' ranks are numbers.
const FACES = { 1: () => t("ace"), 11: () => t("jack"), 12: () => t("queen"), 13: () => t("king") };
const rankName = (rank) => FACES[rank]?.() ?? number(rank);
const SUITS = [() => t("clubs"), () => t("diamonds"), () => t("hearts"), () => t("spades")];

// TRANSLATORS: the letters in a card's corner for the ace, jack, queen and king, in that order and
// separated by spaces, as decks in your language print them (French decks: A V D R).
const faceLetters = () => t("A J Q K").split(" ");
const FACE_AT = { 1: 0, 11: 1, 12: 2, 13: 3 };

/** The rank in a card's corner: "K", "R" in French; the pips' ranks are numbers. */
export const rankIndex = (rank) => (rank in FACE_AT ? (faceLetters()[FACE_AT[rank]] ?? "?") : number(rank));

/** ``text`` with the engine's card tokens (``4S``, ``TH``) as the board draws them (``4♠``, ``10♥``):
 * the engine's reasons (and the rules port's) name cards by their tokens. */
export const withSymbols = (text) => text.replace(/\b(10|[2-9TJQKA])([CDHS])\b/g, (_, rank, suit) => rankIndex(rank === "10" ? 10 : RANKS.indexOf(rank) + 1) + SUIT_SYMBOLS[SUIT_LETTERS.indexOf(suit)]);

const card = (token) => withSymbols(token);
// The engine's reasons (and the rules port's, in the same words), each said in the player's
// language: [its English, as a pattern; the message with the pattern's parts].
const BUILDS = { "down by suit": () => t("down by suit"), "down in alternating colours": () => t("down in alternating colours") };
const REASONS = [
  [/^(\S+) cannot go on (\S+): columns build (down by suit|down in alternating colours)$/, (m) => t("{card} cannot go on {target}: columns build {build}", { card: card(m[1]), target: card(m[2]), build: BUILDS[m[3]]() })],
  [/^an empty column takes only a King or a King-led run$/, () => t("an empty column takes only a King or a King-led run")],
  [/^a run of (\d+) cards is too long: (\d+) can move now$/, (m) => t("a run of {n} cards is too long: {room} can move now", { n: number(Number(m[1])), room: number(Number(m[2])) })],
  [/^cell ([a-h]) is occupied$/, (m) => t("{place} is occupied", { place: t("cell {cell}", { cell: m[1] }) })],
  [/^(\S+) cannot go home yet$/, (m) => t("{card} cannot go home yet", { card: card(m[1]) })],
  [/^a card does not move from cell to cell$/, () => t("a card does not move from cell to cell")],
  [/^only single cards go to a cell or a foundation$/, () => t("only single cards go to a cell or a foundation")],
];

/** A refusal's reason (the engine's English) in the player's language, or null for one not known here. */
export function reasonWords(why) {
  for (const [pattern, say] of REASONS) {
    const m = pattern.exec(why);
    if (m) return say(m);
  }
  return null;
}

/** "ten of spades". */
export const cardName = (card) => t("{rank} of {suit}", { rank: rankName(rankOf(card)), suit: SUITS[suitOf(card)]() });

/** A drawn card's accessible name: its words, after what its corner shows when they do not say
 * it (an ace or a court card: "A♦ ace of diamonds", "R♦ roi de carreau"), so that a player who
 * speaks to the page names the card they see (WCAG 2.5.3, label in name). */
export const cardLabel = (card) => (rankOf(card) in FACE_AT ? `${rankIndex(rankOf(card))}${SUIT_SYMBOLS[suitOf(card)]} ${cardName(card)}` : cardName(card));

/** "column 4", "cell b", "the foundation". */
export const placeName = (area, index) =>
  area === COLUMN ? t("column {n}", { n: index + 1 }) : area === CELL ? t("cell {cell}", { cell: CELL_TOKENS[index] }) : t("the foundation");

const GRADES = { any: () => t("any"), gentle: () => t("gentle"), tricky: () => t("tricky"), fiendish: () => t("fiendish"), winnable: () => t("winnable") };
/** A deal grade (the solver's: gentle, tricky, fiendish) in words. */
export const gradeName = (grade) => GRADES[grade]?.() ?? grade;

/** "spades foundation". */
export const foundationName = (suit) => t("{suit} foundation", { suit: SUITS[suit]() });

/** A card as its corner shows it: "7♥", "R♦" in French. */
export const cardFace = (card) => `${rankIndex(rankOf(card))}${SUIT_SYMBOLS[suitOf(card)]}`;

/** A move in words, read on the board before it (never notation: issue 38): "six of diamonds to
 * column 7", "ten of spades and 2 below to cell b", "ace of hearts to hearts foundation".
 * ``name``: how the card is named (cardFace: "7♥ to cell b", as the analysis says a move). */
export function moveWords(board, m, name = cardName) {
  const col = m.sa === COLUMN ? board.cols[m.s] : null;
  const card = col ? col[col.length - m.n] : m.sa === CELL ? board.cells[m.s] : board.foundationTop(m.s);
  if (card === null || card === undefined) return moveText(m);
  const what = m.n > 1 ? tn("{card} and {n} below", "{card} and {n} below", m.n - 1, { card: name(card) }) : name(card);
  const to = m.da === FOUNDATION ? foundationName(suitOf(card)) : placeName(m.da, m.d);
  return t("{cards} to {place}", { cards: what, place: to });
}

/** A hint (its notation, as the server sends it) as a move on ``board``: null when it does not read. */
export function hintMove(text) {
  try {
    return parseMove(text);
  } catch {
    return null;
  }
}

/** A hint in words on ``board`` (its notation when it does not read: a server newer than this page). */
export const hintWords = (board, text) => {
  const move = hintMove(text);
  return move ? moveWords(board, move) : text;
};
