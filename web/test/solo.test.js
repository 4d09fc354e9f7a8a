// Solo practice's pure parts: another deal to practise, and the games alone kept in the browser.
import assert from "node:assert/strict";
import { test } from "node:test";

import { anotherDeal, noteSolo, soloStats } from "../src/solo.js";

/** A localStorage stand-in. */
const store = () => {
  const items = new Map();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => items.set(k, String(v)) };
};

test("a new deal is one of the published winnable deals, never the one on the table", () => {
  const list = "# Winnable seahaven deals\npreset seahaven\n1 g\n4 t\n9 f\n";
  const picks = new Set([0, 0.3, 0.6, 0.99].map((r) => anotherDeal("seahaven", 4, list, () => r)));
  assert.deepEqual([...picks].sort(), [1, 9]);
  assert.equal(anotherDeal("seahaven", 1, "1 g\n", () => 0.5), 16001, "only this deal listed: any other");
  assert.notEqual(anotherDeal("seahaven", 7, null, () => 0), 7);
});

test("games alone are counted per rules: played, won, the best time and wins in a row", () => {
  const s = store();
  assert.deepEqual(soloStats(s, "seahaven"), { played: 0, won: 0, best: null, streak: 0, bestStreak: 0 });
  noteSolo(s, "seahaven", true, 90_000);
  noteSolo(s, "seahaven", true, 80_000);
  noteSolo(s, "freecell", false, null);
  assert.deepEqual(noteSolo(s, "seahaven", false, null), { played: 3, won: 2, best: 80_000, streak: 0, bestStreak: 2 });
  assert.deepEqual(soloStats(s, "freecell"), { played: 1, won: 0, best: null, streak: 0, bestStreak: 0 });
  s.setItem("seahaven.solo", "not json");
  assert.equal(soloStats(s, "seahaven").played, 0, "a spoilt entry starts again");
});
