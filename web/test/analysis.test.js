// The analysis in words (issue 40): a position's verdict, a player's mistakes summed up.
import assert from "node:assert/strict";
import { test } from "node:test";

import { verdictWords } from "../src/analysis_view.js";
import { setLanguage } from "../src/i18n.js";
import { mistakesWords } from "../src/player_page.js";

const none = { cell: 0, column: 0, "empty-column": 0, foundation: 0, undo: 0 };

test("a player's mistakes in words, most frequent kind first; nothing before an analysed race", () => {
  setLanguage("en");
  assert.deepEqual(mistakesWords("Bob", { analysed: 0, lost: 0, lost_by: none, detours: none }), []);
  const m = { analysed: 12, lost: 5, lost_by: { ...none, cell: 3, "empty-column": 2 }, detours: { ...none, column: 1 } };
  assert.deepEqual(mistakesWords("Bob", m), [
    "In Bob's last 12 analysed races, the deal was lost 5 times: 3 by moves to a cell and 2 by moves into an empty column.",
    "The moves that made the winning line longer: 1 move onto a column.",
  ]);
  assert.deepEqual(mistakesWords("Cleo", { analysed: 1, lost: 0, lost_by: none, detours: none }), ["In Cleo's one analysed race, the deal was never lost."]);
  setLanguage("fr");
  assert.equal(mistakesWords("Bob", m)[0], "Sur les 12 dernières courses analysées de Bob, la donne a été perdue 5 fois : 3 par des coups vers une cellule et 2 par des coups vers une colonne vide.");
  setLanguage("en");
});

test("a position's verdict in words", () => {
  setLanguage("en");
  assert.equal(verdictWords({ verdict: "winnable", line: 40 }), "winnable in 40 moves");
  assert.equal(verdictWords({ verdict: "lost", line: null }), "lost: no win left");
  assert.equal(verdictWords(null), null);
});
