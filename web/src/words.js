// Cards and places in the player's language, for the page and screen readers ("ten of spades",
// "dix de pique", "schoppen tien"; "column 4", "free cell b"). rules.js keeps the engine's
// English words, which its refusals (the server's too) are written in.
import { CELL, CELL_TOKENS, COLUMN, rankOf, suitOf } from "./rules.js";
import { t } from "./i18n.js";

// Functions: each word is looked up in the language of the moment.
const RANKS = [
  () => t("ace"),
  () => t("two"),
  () => t("three"),
  () => t("four"),
  () => t("five"),
  () => t("six"),
  () => t("seven"),
  () => t("eight"),
  () => t("nine"),
  () => t("ten"),
  () => t("jack"),
  () => t("queen"),
  () => t("king"),
];
const SUITS = [() => t("clubs"), () => t("diamonds"), () => t("hearts"), () => t("spades")];

/** "ten of spades". */
export const cardName = (card) => t("{rank} of {suit}", { rank: RANKS[rankOf(card) - 1](), suit: SUITS[suitOf(card)]() });

/** "column 4", "cell b", "the foundation". */
export const placeName = (area, index) =>
  area === COLUMN ? t("column {n}", { n: index + 1 }) : area === CELL ? t("cell {cell}", { cell: CELL_TOKENS[index] }) : t("the foundation");

/** "spades foundation". */
export const foundationName = (suit) => t("{suit} foundation", { suit: SUITS[suit]() });
