// Auto-move on the server, as the page uses it (docs/protocol.md, section 9, "Auto-move"): a move
// and its auto-moves played at once and sent as ONE move asking for them, checked against the
// reply; an undo takes the group back; refusals roll the group back exactly; the opening's safe
// cards come from the server; spectators play frames of several moves; solo practice the same.
// Deal 1 (frames.json's): "3c" then "3d" frees the 3 of clubs, and 3#, 3#, a# follow.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Board, moveText, parseMove } from "../src/rules.js";
import { applyEvent, autoOn, enterRoom, groupsOf, initialState } from "../src/state.js";
import { makeActions, sameAuto } from "../src/actions.js";

const FRAMES = JSON.parse(readFileSync(new URL("./frames.json", import.meta.url)));
const OPENING = FRAMES.ann.find(([type]) => type === "started")[2].board;
const AUTO = ["3#", "3#", "a#"]; // after 3c, 3d on deal 1

/** A racer's state mid-race on deal 1 (history played on it), its room as ``room`` adds, and
 * actions whose connection answers with ``answer(type, body)`` (a reply body, or a thrown error). */
function racer({ history = [], room = {}, answer = defaultAnswer } = {}) {
  const S = initialState();
  S.status = "online";
  const board = Board.parse(OPENING, "seahaven");
  for (const text of history) board.push(parseMove(text));
  const me = { player: "p1", name: "Ann", status: "racing", connected: true, progress: board.progress, moves: 0, time_ms: null };
  enterRoom(S, { room: "ABCD", you: "p1", role: "racer", preset: "seahaven", phase: "racing", undo: true, racers: [me], standings: [], rematch: [], deal: "SH1-ST-0001G", started_at: 1, board: board.text(), history, ...room }, { deal: "SH1-ST-0001G", board: OPENING });
  const calls = [];
  const said = [];
  let drops = 0;
  S.conn = {
    online: true,
    call: async (type, body) => {
      calls.push([type, body]);
      return answer(type, body, S);
    },
    drop: () => drops++,
  };
  const act = makeActions({ S, render: () => {}, say: (text) => said.push(text), url: () => {}, openingOf: () => null, keepAuto: () => {} });
  return { S, act, calls, said, drops: () => drops };
}

/** The server's replies for deal 1's first moves, as it answers them (auto-moves as asked). */
function defaultAnswer(type, body, S) {
  if (type === "move") {
    const auto = body.auto && body.move === "3d" ? { auto: AUTO } : {};
    return { move: body.move, undo: false, progress: S.board.progress, moves: (S.mine?.moves ?? 0) + 1, status: "racing", elapsed_ms: 5, ...auto };
  }
  if (type === "undo") {
    const last = S.pending.at(-1);
    return { move: "undo", undo: true, progress: S.board.progress, moves: (S.mine?.moves ?? 0) + 1, status: "racing", elapsed_ms: 6, ...(last.auto.length ? { undone: last.auto.length + 1 } : {}) };
  }
  return {};
}

test("a move that frees safe cards plays them at once and sends one move asking for auto-move", async () => {
  const { S, act, calls, drops } = racer({ history: ["3c"] });
  const before = S.board.text();
  await act.play(parseMove("3d"));
  assert.deepEqual(calls, [["move", { move: "3d", auto: true }]], "one request");
  assert.equal(S.board.progress, 3);
  assert.deepEqual(S.board.stack.slice(-3).map(([m]) => moveText(m)), AUTO);
  assert.deepEqual(S.groups, [0, 3]);
  assert.equal(drops(), 0, "the server played the same: in step");
  assert.equal(S.mine.moves, 1, "the reply's count: my own moves");

  await act.undo();
  assert.deepEqual(calls.at(-1), ["undo", {}]);
  assert.equal(S.board.text(), before, "the move and its three auto-moves taken back");
  assert.deepEqual(S.groups, [0]);
  assert.equal(drops(), 0, "undone 4, as here");
});

test("auto-move off, or a room without it, asks for none and plays none", async () => {
  for (const [autoMove, room] of [[false, {}], [true, { auto: false }]]) {
    const { S, act, calls } = racer({ history: ["3c"], room });
    S.autoMove = autoMove;
    assert.equal(autoOn(S), false);
    await act.play(parseMove("3d"));
    assert.deepEqual(calls, [["move", { move: "3d" }]]);
    assert.equal(S.board.progress, 0, "the freed card stays");
  }
});

test("a card taken off a foundation asks for no auto-move", async () => {
  // Deal 1 under rules that allow taking a card back: cards home and a free cell to take one back to.
  const { act, calls, S } = racer({ history: ["3c", "3d", ...AUTO], room: { preset: "seahaven-easy" } });
  const takeback = S.board.legalMoves().find((m) => m.sa === 2);
  assert.ok(takeback, "a take-back is legal here");
  const home = S.board.progress;
  await act.play(takeback);
  assert.deepEqual(calls, [["move", { move: moveText(takeback) }]]);
  assert.equal(S.board.progress, home - 1, "the card stays off its foundation");
});

test("the server's auto-moves differ from the page's: the room state is fetched again", async () => {
  const { S, act, said, drops } = racer({ history: ["3c"], answer: (type, body) => ({ move: body.move, undo: false, progress: 2, moves: 1, status: "racing", elapsed_ms: 5, auto: ["3#", "3#"] }) });
  const gen = S.gen;
  await act.play(parseMove("3d"));
  assert.equal(drops(), 1, "reconnects: the welcome's room frame rebuilds the board");
  assert.ok(S.gen > gen, "late replies to what was sent before are ignored");
  assert.deepEqual(S.pending, []);
  assert.match(said.at(-1), /out of step/);
  assert.ok(!sameAuto({ undo: true, auto: [] }, { undone: 2 }) && sameAuto({ undo: true, auto: [] }, {}));
});

test("a refused move rolls back its auto-moves and every later action exactly", async () => {
  const waiting = []; // each call's answer, given by the test: [resolve, reject]
  const { S, act } = racer({ history: ["3c"], answer: () => new Promise((resolve, reject) => waiting.push([resolve, reject])) });
  const before = S.board.text();
  const first = act.play(parseMove("3d")); // three auto-moves with it
  const next = S.board.legalMoves().find((m) => m.da === 0);
  const second = act.play(next); // on top of it, still waiting
  const third = act.undo(); // takes the second back
  assert.equal(S.pending.length, 3);
  assert.deepEqual(S.groups, [0, 3]);
  const refusal = Object.assign(new Error("no"), { code: "illegal-move" });
  waiting[0][1](refusal); // the first refused: all three rolled back, in reverse
  await first;
  assert.equal(S.board.text(), before);
  assert.deepEqual(S.groups, [0], "only 3c's group left");
  assert.deepEqual(S.pending, []);
  waiting[1][1](refusal); // the later ones' own refusals change nothing more
  waiting[2][1](refusal);
  await Promise.all([second, third]);
  assert.equal(S.board.text(), before);
  assert.deepEqual(S.groups, [0]);
});

test("an action the server accepts after the page rolled it back puts the board out of step", async () => {
  const waiting = [];
  const { S, act, drops } = racer({ history: ["3c"], answer: () => new Promise((resolve, reject) => waiting.push([resolve, reject])) });
  const first = act.play(parseMove("3d"));
  const second = act.play(S.board.legalMoves().find((m) => m.da === 0));
  waiting[0][1](Object.assign(new Error("no"), { code: "illegal-move" }));
  await first;
  waiting[1][0]({ move: "x", undo: false, progress: 0, moves: 2, status: "racing", elapsed_ms: 1 });
  await second;
  assert.equal(drops(), 1, "the server played what the page took back: the room state again");
});

test("the opening's safe cards come from the server, final, and are nobody's to undo", async () => {
  const { S, act, calls, said } = racer();
  // Any opening with cards the server can send home: here deal 1's after 3c and 3d, played as
  // if dealt so (no move of mine).
  S.board.push(parseMove("3c"));
  S.board.push(parseMove("3d"));
  S.groups = [];
  applyEvent(S, "progress", { player: "p1", progress: 3, moves: 0, status: "racing", elapsed_ms: 0, time_ms: null, move: null, auto: AUTO });
  assert.equal(S.board.progress, 3);
  assert.equal(S.resync, null);
  assert.equal(S.mine.progress, 3);
  await act.undo();
  assert.deepEqual(calls, [], "nothing asked: no move of mine");
  assert.equal(said.at(-1), "nothing to undo");
});

test("the opening's auto-moves arriving on top of a move of mine mark the board out of step", () => {
  const { S } = racer({ history: ["3c"] });
  S.pending.push({ move: parseMove("3d"), undo: false, auto: [] });
  applyEvent(S, "progress", { player: "p1", progress: 3, moves: 0, status: "racing", elapsed_ms: 0, time_ms: null, move: null, auto: AUTO });
  assert.match(S.resync, /out of step/);
});

test("ready and rematch ask the server for auto-move when it is on and the room allows it", async () => {
  const { S, act, calls } = racer({ history: ["3c", "3d"] }); // safe cards waiting
  S.room.phase = "waiting";
  S.room.racers[0].status = "waiting";
  await act.ready();
  assert.equal(calls.at(-1)[1].auto, true);
  assert.equal(S.autoAsked, "ABCD", "kept, with the room, for a reload before the start");
  S.room.phase = "racing";
  act.started(); // the server plays them (a progress follows): nothing sent here
  assert.equal(calls.length, 1);
  assert.equal(S.board.progress, 0);
  S.room.phase = "finished";
  await act.rematch();
  assert.equal(calls.at(-1)[0], "rematch");
  assert.equal(calls.at(-1)[1].auto, true);
  S.room.auto = false;
  await act.rematch();
  assert.equal(calls.at(-1)[1].auto, undefined);
  assert.equal(S.autoAsked, null);
});

test("a race the server was not asked to open (an arena's) sends the waiting safe cards as one move", async () => {
  const { S, act, calls } = racer({ history: ["3c", "3d"] });
  assert.equal(S.autoAsked, null);
  act.started();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(calls[0], ["move", { move: "3#", auto: true }], "the first safe card, the rest its auto-moves");
  assert.equal(S.board.progress, 3);
});

test("auto-move turned on mid-race sends the waiting safe cards; in a room without it, it stays off", async () => {
  const { S, act, calls, said } = racer({ history: ["3c", "3d"] });
  S.autoMove = false;
  act.toggleAuto();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(S.autoMove, true);
  assert.deepEqual(calls.map(([type]) => type), ["move"]);
  assert.equal(S.board.progress, 3);

  const other = racer({ history: ["3c", "3d"], room: { auto: false } });
  other.act.toggleAuto();
  assert.equal(other.S.autoMove, true, "the setting is kept for other rooms");
  assert.match(other.said.at(-1), /every card by hand/);
  assert.deepEqual(other.calls, []);
  assert.ok(said.length);
});

test("a room state's auto_played says what each undo takes back", () => {
  assert.deepEqual(groupsOf(0), []);
  assert.deepEqual(groupsOf(3, [0, 1]), [0], "the opening's two, then a move of mine");
  assert.deepEqual(groupsOf(7, [0, 2, 3, 5]), [2, 1, 0]);
  const { S } = racer({ history: ["3c", "3d", "3#", "3#", "a#"], room: { auto_played: [2, 3, 4] } });
  assert.deepEqual(S.groups, [0, 3]);
  const bare = racer({ history: ["3c"] });
  assert.deepEqual(bare.S.groups, [0]);
});

test("a spectator plays a move then its auto-moves, pops an undo's moves, and skips frames seen", () => {
  const S = initialState();
  S.status = "online";
  const racerOf = (player) => ({ player, name: player, status: "racing", connected: true, progress: 0, moves: 0, time_ms: null });
  enterRoom(S, { room: "ABCD", you: "s", role: "spectator", preset: "seahaven", phase: "racing", undo: true, racers: [racerOf("a")], standings: [], rematch: [], deal: "SH1-ST-0001G", started_at: 1, board: OPENING, history: [], watching: [{ player: "a", history: ["3c"], actions: 1 }] });
  const progress = (body) => applyEvent(S, "progress", { player: "a", status: "racing", elapsed_ms: 1, time_ms: null, auto: undefined, ...body });
  progress({ progress: 3, moves: 2, move: "3d", auto: AUTO, actions: 5 });
  const board = S.boards.get("a");
  assert.equal(board.progress, 3);
  assert.equal(S.actions.get("a"), 5);
  progress({ progress: 3, moves: 2, move: "3d", auto: AUTO, actions: 5 }); // a frame seen already
  assert.equal(board.stack.length, 5);
  progress({ progress: 0, moves: 3, move: "undo", undone: 4, actions: 9 });
  assert.equal(board.stack.length, 1);
  assert.equal(board.progress, 0);
  progress({ progress: 0, moves: 3, move: null, status: "resigned" }); // no move: nothing to play
  assert.equal(S.actions.get("a"), 9);
  assert.equal(S.resync, null);
  progress({ progress: 0, moves: 5, move: "3d", actions: 12 }); // 9 -> 11 missed
  assert.match(S.resync, /out of step/);
  assert.equal(board.stack.length, 1, "nothing played on a board that missed frames");
});

test("a spectator plays the opening's auto-moves the server played at the start", () => {
  const S = initialState();
  S.status = "online";
  const racerOf = (player) => ({ player, name: player, status: "racing", connected: true, progress: 0, moves: 0, time_ms: null });
  enterRoom(S, { room: "ABCD", you: "s", role: "spectator", preset: "seahaven", phase: "racing", undo: true, racers: [racerOf("a")], standings: [], rematch: [], deal: "SH1-ST-0001G", started_at: 1, board: OPENING, history: [], watching: [{ player: "a", history: ["3c", "3d"], actions: 2 }] });
  applyEvent(S, "progress", { player: "a", progress: 3, moves: 2, status: "racing", elapsed_ms: 0, time_ms: null, move: null, auto: AUTO, actions: 5 });
  assert.equal(S.boards.get("a").progress, 3);
  assert.equal(S.resync, null);
});

test("solo practice plays auto-moves with a move that asks and takes them back with its undo", async () => {
  const { SoloConnection } = await import("../src/solo.js");
  const heard = [];
  const conn = new SoloConnection("SH1-ST-0001G", "Sol", { onEvent: (type, body) => heard.push([type, body]), onLeave: () => {} });
  conn.begin(true);
  assert.deepEqual(heard.map(([type]) => type), ["room"], "deal 1 opens with no safe card: no progress");
  await conn.call("move", { move: "3c", auto: true });
  const moved = await conn.call("move", { move: "3d", auto: true });
  assert.deepEqual([moved.auto, moved.progress, moved.moves], [AUTO, 3, 2]);
  const undone = await conn.call("undo", {});
  assert.deepEqual([undone.undone, undone.progress, undone.moves], [4, 0, 3]);
  await conn.call("undo", {});
  await assert.rejects(conn.call("undo", {}), (e) => e.code === "nothing-to-undo");
  const plain = await conn.call("move", { move: "3c" });
  assert.equal(plain.auto, undefined);
});

test("solo practice sends the opening's safe cards as the server does, after the room", async () => {
  const { SoloConnection } = await import("../src/solo.js");
  const heard = [];
  const conn = new SoloConnection("SH1-ST-0002E", "Sol", { onEvent: (type, body) => heard.push([type, body]), onLeave: () => {} });
  conn.begin(true);
  assert.deepEqual(heard.map(([type]) => type), ["room", "progress"]);
  const [, progress] = heard[1];
  assert.deepEqual(progress.auto, ["2#", "9#"]);
  assert.equal(progress.moves, 0);
  const S = initialState();
  S.status = "online";
  enterRoom(S, heard[0][1]);
  applyEvent(S, "progress", progress);
  assert.equal(S.board.progress, 2);
  assert.deepEqual(S.groups, []);
  await assert.rejects(conn.call("undo", {}), (e) => e.code === "nothing-to-undo");
});
