// Dealing and replays against the engine (vectors.json, written by python -m seahaven.vectors web).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dealBoard, msOrder, splitmixOrder } from "../src/dealing.js";
import { Replay } from "../src/replay.js";
import { Board, cardText, parseMove } from "../src/rules.js";

const vectors = JSON.parse(readFileSync(new URL("./vectors.json", import.meta.url), "utf8"));
// Deals' openings: a position made up for a rule (deal 0, such as auto-move's finishing board) is no deal's.
const openings = vectors.positions.filter((p) => p.played === 0 && p.deal > 0);

test("every preset's deals open as the engine deals them (both shuffles, Penguin's beak)", () => {
  assert.deepEqual(new Set(openings.map((p) => p.preset)), new Set(vectors.presets));
  assert.ok(openings.some((p) => p.deal > 2 ** 32), "a SplitMix64 deal past 32 bits");
  for (const p of openings) assert.equal(dealBoard(p.preset, p.deal).text(), p.board, `${p.preset} deal ${p.deal}`);
});

test("the shuffles give docs/deals.md's worked examples", () => {
  const first = "JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C";
  assert.equal(msOrder(1).slice(0, 26).map(cardText).join(" "), first);
  assert.equal(new Set(splitmixOrder(32001)).size, 52);
});

test("a bad deal is refused with the reason", () => {
  assert.throws(() => dealBoard("seahaven", 0), /deal numbers run from 1/);
  assert.throws(() => dealBoard("nope", 1), /unknown preset nope/);
});

test("stepping through a record's moves and undos builds the engine's board at every step", () => {
  assert.ok(vectors.replays.length >= 3);
  for (const r of vectors.replays) {
    assert.ok(r.actions.includes("undo"), `${r.preset}: the walk has undos`);
    const actions = r.actions.map((text, i) => [1000 * (i + 1), text]);
    const replay = new Replay(dealBoard(r.preset, r.deal), actions);
    assert.equal(replay.length, r.actions.length);
    for (let n = 0; n <= replay.length; n++) assert.equal(replay.seek(n).text(), r.boards[n], `${r.preset} forward to ${n}`);
    for (let n = replay.length; n >= 0; n--) assert.equal(replay.seek(n).text(), r.boards[n], `${r.preset} back to ${n}`);
    for (const n of [17, 3, replay.length, 0, 9]) assert.equal(replay.seek(n).text(), r.boards[n], `${r.preset} jump to ${n}`);
  }
});

test("the steps the server played (a record's auto) are marked, the rest are the racer's", () => {
  const r = vectors.replays[0];
  const actions = r.actions.map((text, i) => [1000 * (i + 1), text]);
  const replay = new Replay(dealBoard(r.preset, r.deal), actions, [1, 3]);
  assert.deepEqual(
    replay.steps.map((s) => s.auto),
    actions.map((_, i) => i === 1 || i === 3),
  );
  assert.ok(new Replay(dealBoard(r.preset, r.deal), actions).steps.every((s) => s.auto === false), "a record without marks: every step the racer's");
  for (let n = 0; n <= replay.length; n++) assert.equal(replay.seek(n).text(), r.boards[n], "the marks change nothing on the board");
});

test("seek clamps, and the opening board given is left as it is", () => {
  const r = vectors.replays[0];
  const opening = dealBoard(r.preset, r.deal);
  const replay = new Replay(opening, r.actions.map((text, i) => [i * 10, text]));
  assert.equal(replay.seek(-5).text(), r.boards[0]);
  assert.equal(replay.seek(10_000).text(), r.boards.at(-1));
  assert.equal(replay.at, r.actions.length);
  assert.equal(opening.text(), r.boards[0]);
});

test("times: each step's race time, and the wait before the next at recorded speed", () => {
  const r = vectors.replays[0];
  const opening = Board.parse(r.boards[0], r.preset);
  const replay = new Replay(opening, [
    [1200, r.actions[0]],
    [1500, r.actions[1]],
    [4000, r.actions[2]],
  ]);
  assert.equal(replay.timeAt(0), 0);
  assert.equal(replay.delayToNext(), 1200);
  replay.seek(1);
  assert.equal(replay.timeAt(1), 1200);
  assert.equal(replay.delayToNext(), 300);
  replay.seek(3);
  assert.equal(replay.delayToNext(), null);
});

test("a record that does not apply names the step", () => {
  const opening = dealBoard("seahaven", 1);
  assert.throws(() => new Replay(opening, [[5, "undo"]]), /step 1 \(undo\): there is no move to take back/);
  assert.throws(() => new Replay(opening, [[5, "zz"]]), /step 1 \(zz\): 'zz'/);
  assert.ok(!opening.isLegal(parseMove("1#")), "deal 1's first column is not an ace");
  assert.throws(() => new Replay(opening, [[5, "1#"]]), /step 1 \(1#\): .* cannot go home yet/);
});
