// The browser's rules against the engine's vectors (written by python -m seahaven.vectors web).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Board, CELL, COLUMN, FOUNDATION, PRESETS, moveText, mv, parseMove } from "../src/rules.js";

const vectors = JSON.parse(readFileSync(new URL("./vectors.json", import.meta.url), "utf8"));

/** Every move the notation can name on this board, legal or not. */
function everyMove(board) {
  const { columns, cells } = board.rules;
  const moves = [];
  const sources = [];
  for (let i = 0; i < columns; i++) sources.push([COLUMN, i]);
  for (let i = 0; i < cells; i++) sources.push([CELL, i]);
  for (let i = 0; i < 4; i++) sources.push([FOUNDATION, i]);
  for (const [sa, s] of sources) {
    for (let d = 0; d < columns; d++) for (let n = 1; n <= (sa === COLUMN ? 13 : 1); n++) moves.push(mv(sa, s, COLUMN, d, n));
    for (let d = 0; d < cells; d++) moves.push(mv(sa, s, CELL, d));
    moves.push(mv(sa, s, FOUNDATION, 0));
  }
  return moves;
}

test("every preset the engine has is in presets.json", () => {
  assert.deepEqual(Object.keys(PRESETS), vectors.presets);
});

test("positions read and write back as the same text", () => {
  for (const p of vectors.positions) assert.equal(Board.parse(p.board, p.preset).text(), p.board);
});

test("legal moves, in order, and every other move refused", () => {
  for (const p of vectors.positions) {
    const board = Board.parse(p.board, p.preset);
    const where = `${p.preset} deal ${p.deal} after ${p.played}`;
    assert.deepEqual(board.legalMoves().map(moveText), p.legal, where);
    const legal = new Set(p.legal);
    for (const m of everyMove(board)) assert.equal(board.isLegal(m), legal.has(moveText(m)), `${where}: ${moveText(m)}`);
    assert.equal(board.progress, p.progress, where);
    assert.equal(board.isWon(), p.won, where);
    assert.equal(board.isStuck(), p.stuck, where);
  }
});

test("each legal move gives the engine's board, and undoing it gives the position back", () => {
  for (const p of vectors.positions) {
    const board = Board.parse(p.board, p.preset);
    for (const [text, after] of Object.entries(p.results)) {
      board.push(parseMove(text));
      assert.equal(board.text(), after, `${p.preset}: ${text}`);
      board.pop();
      assert.equal(board.text(), p.board, `${p.preset}: undo ${text}`);
    }
  }
});

test("double-click picks the engine's smart move", () => {
  for (const p of vectors.positions) {
    const board = Board.parse(p.board, p.preset);
    for (const [source, expected] of Object.entries(p.smart)) {
      const [area, index] = source.split(":").map(Number);
      const found = board.smartMove(area, index);
      assert.equal(found === null ? null : moveText(found), expected, `${p.preset} ${source}`);
    }
  }
});

test("auto-move plays the engine's safe foundation moves, in its order", () => {
  let some = 0;
  for (const p of vectors.positions) {
    const safe = Board.parse(p.board, p.preset).safeHomeMoves().map(moveText);
    assert.deepEqual(safe, p.safe, `${p.preset}: ${p.board}`);
    some += safe.length;
  }
  assert.ok(some > 0, "the vectors hold safe moves");
});

test("auto-move's next move is the engine's, a finishing move where no move is safe", () => {
  let finishing = 0;
  for (const p of vectors.positions) {
    const board = Board.parse(p.board, p.preset);
    const auto = board.autoMove();
    assert.equal(auto === null ? null : moveText(auto), p.auto, `${p.preset}: ${p.board}`);
    if (auto !== null && !p.safe.length) finishing++;
    assert.equal(board.text(), Board.parse(p.board, p.preset).text(), "auto-move only looks");
  }
  assert.ok(finishing > 0, "the vectors hold a board only foundation moves finish");
});

test("move notation reads and writes canonically", () => {
  assert.equal(moveText(parseMove(" #h5 ")), "#H5");
  assert.equal(moveText(parseMove("37:1")), "37");
  assert.equal(moveText(parseMove("37:3")), "37:3");
  assert.throws(() => parseMove("3A"));
  assert.throws(() => parseMove("ab:2"));
});
