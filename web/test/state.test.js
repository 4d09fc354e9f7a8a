// The race client's state (state.js) and keys (keys.js) under node: no DOM, no timers. Driven by the
// frames two pages got in a real race (frames.json, from scripts/record_web_frames.py): Ann plays
// three moves, is refused one, undoes one and resigns; Bob watches his bars and leaves.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Board, parseMove } from "../src/rules.js";
import { applyEvent, canHint, canUndo, enterRoom, initialState, racing, resultLine, roomOfPath, settled, standingTime, statusText } from "../src/state.js";
import { keyAction } from "../src/keys.js";
import { makeActions } from "../src/actions.js";

const FRAMES = JSON.parse(readFileSync(new URL("./frames.json", import.meta.url)));

/** A page's state after its frames: replies as the actions take them, events as they come. */
function replay(frames, { upTo = frames.length } = {}) {
  const S = initialState();
  S.status = "online";
  const sent = []; // Ann's moves, in the order her page played them
  for (const [type, re, body] of frames.slice(0, upTo)) {
    if (re === null) applyEvent(S, type, body, 0);
    else if (type === "welcome") S.me = body;
    else if (type === "room") enterRoom(S, body);
    else if (type === "moved") {
      settled(S, body);
      sent.push(body);
    }
  }
  return { S, sent };
}

test("the state module imports without a page: no DOM, no timers, no connection", () => {
  assert.equal(typeof globalThis.document, "undefined");
  const S = initialState();
  assert.equal(S.conn, null);
  assert.equal(S.view, "lobby");
  assert.equal(S.autoMove, true, "auto-move is on by default");
});

test("a room link names its room, upper-cased, and whether to watch", () => {
  assert.deepEqual(roomOfPath("/r/ab12cd", ""), { code: "AB12CD", watch: false });
  assert.deepEqual(roomOfPath("/r/AB12CD", "?watch"), { code: "AB12CD", watch: true });
  assert.equal(roomOfPath("/r/!!", ""), null);
  assert.equal(roomOfPath("/", ""), null);
});

test("Ann's page follows her room from waiting to the result", () => {
  const frames = FRAMES.ann;
  const started = frames.findIndex(([type]) => type === "started");
  const before = replay(frames, { upTo: started }).S;
  assert.equal(before.view, "room");
  assert.equal(before.room.phase, "countdown");
  assert.deepEqual(before.room.racers.map((r) => [r.name, r.status]), [["Ann", "ready"], ["Bob", "ready"]]);
  assert.equal(before.board, null);

  const racingNow = replay(frames, { upTo: started + 1 }).S;
  assert.equal(racingNow.room.phase, "racing");
  assert.equal(racingNow.board.text(), frames[started][2].board, "the dealt board");
  assert.deepEqual(racingNow.opening, { deal: frames[started][2].deal, board: frames[started][2].board }, "kept for undo after a reload");
  assert.ok(racing(racingNow) && canUndo(racingNow) && !canHint(racingNow), "undo on, hints off in this room");

  const { S } = replay(frames);
  assert.equal(S.room.phase, "finished");
  assert.equal(S.mine.status, "resigned");
  assert.ok(!racing(S) && !canUndo(S), "a resigned racer plays and undoes no more");
  assert.equal(S.result.race_id, frames.at(-1)[2].race_id);
  assert.equal(resultLine(S.room), "Nobody finished · you are 2nd of 2");
  const bob = S.room.standings.find((s) => s.name === "Bob");
  assert.equal(bob.time_ms, 0, "the server's time of his last move");
  assert.equal(standingTime(bob), null, "shown as a dash: he did not finish");
});

test("an unfinished racer is 'did not finish' once the race is over, and the winner is named", () => {
  assert.equal(statusText("racing", true), "did not finish");
  assert.equal(statusText("racing", false), "racing");
  assert.equal(statusText("resigned", true), "resigned");
  const room = { you: "b", standings: [{ place: 1, player: "a", name: "Ann", status: "finished" }, { place: 2, player: "b", name: "Bob", status: "racing" }] };
  assert.equal(resultLine(room), "Ann won · you are 2nd of 2");
  assert.equal(resultLine({ ...room, you: "a" }), "You won!");
});

test("Bob's page moves Ann's bar with her progress and keeps his own board", () => {
  const frames = FRAMES.bob;
  const { S } = replay(frames.slice(0, -1)); // before his leave's answer
  const ann = S.room.racers.find((r) => r.name === "Ann");
  assert.deepEqual([ann.status, ann.moves], ["resigned", 4]);
  const dealt = frames.find(([type]) => type === "started")[2].board;
  assert.equal(S.board.text(), dealt, "others' progress does not touch my board");
});

test("the keys pick, and a double press resigns", () => {
  const frames = FRAMES.ann;
  const started = frames.findIndex(([type]) => type === "started");
  const { S } = replay(frames, { upTo: started + 1 });
  assert.deepEqual(keyAction(S, "3"), ["pick", 0, 2, S.board.cols[2].length - 1]);
  assert.deepEqual(keyAction(S, "R"), ["say", "press R again to resign"]);
  assert.deepEqual(keyAction(S, "R"), ["resign"]);
  assert.deepEqual(keyAction(S, "m"), ["toggleAuto"]);
  assert.deepEqual(keyAction(S, "?"), ["say", "No hints in this room: it was made without them"], "no hints in this room: said");
});

test("a refused move is rolled back with its reason, and the board is as before", async () => {
  const frames = FRAMES.ann;
  const started = frames.findIndex(([type]) => type === "started");
  const { S } = replay(frames, { upTo: started + 1 });
  const said = [];
  let renders = 0;
  const refusal = Object.assign(new Error("that is not a legal move here"), { code: "illegal-move" });
  S.conn = { call: async () => Promise.reject(refusal) };
  S.autoMove = false;
  const act = makeActions({ S, render: () => renders++, say: (t) => said.push(t), url: () => {}, openingOf: () => null, keepAuto: () => {} });
  const before = S.board.text();
  const move = S.board.legalMoves()[0];
  await act.play(move);
  assert.equal(S.board.text(), before);
  assert.equal(S.pending.length, 0);
  assert.match(said.at(-1), /refused: that is not a legal move here$/);
  assert.ok(renders > 0);
});

test("a drag let go on a card it cannot go to says why and selects nothing", async () => {
  const { S } = replay(FRAMES.ann, { upTo: FRAMES.ann.findIndex(([type]) => type === "started") + 1 });
  const said = [];
  S.conn = { call: async () => assert.fail("nothing is sent") };
  const act = makeActions({ S, render: () => {}, say: (t) => said.push(t), url: () => {}, openingOf: () => null, keepAuto: () => {} });
  const board = S.board;
  const illegal = [...Array(board.rules.columns).keys()].flatMap((s) => [...Array(board.rules.columns).keys()].map((d) => ({ s, d }))).find(({ s, d }) => s !== d && !board.isLegal({ sa: 0, s, da: 0, d, n: 1 }));
  await act.drop({ area: 0, index: illegal.s, n: 1 }, 0, illegal.d);
  assert.equal(S.selected, null);
  assert.equal(said.length, 1);
  assert.ok(said[0].length > 5, said[0]);
});

test("auto-finish: once only foundation moves are left, auto-move plays them", () => {
  const board = Board.parse("Foundations: H-Q C-K D-K S-K\nFreecells: KH - - -\n:\n:\n:\n:\n:\n:\n:\n:\n:\n:\n", "seahaven");
  const next = board.autoMove();
  assert.deepEqual([next.sa, next.s, next.da], [1, 0, 2]);
  const opening = Board.parse(FRAMES.ann.find(([type]) => type === "started")[2].board, "seahaven");
  assert.equal(opening.autoMove(), null, "deal 1 opens with no card to send home");
  assert.equal(parseMove("3c").sa, 0);
});

test("deal codes read as docs/deals.md defines them, and a mistyped one is refused", async () => {
  const { dealOfCode, soloOfPath } = await import("../src/solo.js");
  assert.deepEqual(dealOfCode("SH1-ST-0001G"), { preset: "seahaven", number: 1 });
  assert.deepEqual(dealOfCode("sh1-fc-0bpeh"), { preset: "freecell", number: 11982 });
  assert.deepEqual(dealOfCode("SH1-PG-3NQK8NA"), { preset: "penguin", number: 123456789 });
  assert.throws(() => dealOfCode("SH1-ST-0001H"), /check character/);
  assert.throws(() => dealOfCode("SH1-XX-0001G"), /unknown preset tag/);
  assert.equal(soloOfPath("/solo/SH1-ST-0001G"), "SH1-ST-0001G");
  assert.equal(soloOfPath("/solo/"), null);
});

test("solo practice judges moves on the page and ends with a result", async () => {
  const { SoloConnection } = await import("../src/solo.js");
  const heard = [];
  const conn = new SoloConnection("SH1-ST-0001G", "Sol", { onEvent: (type, body) => heard.push([type, body]), onLeave: () => heard.push(["left"]) });
  conn.begin();
  const S = initialState();
  S.status = "online";
  enterRoom(S, heard[0][1]);
  const opening = FRAMES.ann.find(([type]) => type === "started")[2].board;
  assert.equal(S.board.text(), opening, "the same deal the server deals as deal 1");
  const reply = await conn.call("move", { move: "3c" });
  assert.deepEqual({ ...reply, elapsed_ms: 0 }, { move: "3c", undo: false, progress: 0, moves: 1, status: "racing", elapsed_ms: 0 });
  await assert.rejects(conn.call("move", { move: "3c" }), (e) => e.code === "illegal-move");
  await conn.call("resign");
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(heard.at(-1)[0], "result");
  await conn.call("leave");
  assert.deepEqual(heard.at(-1), ["left"]);
});

test("the lost notice is said, and shown until the next race", () => {
  const frames = FRAMES.ann;
  const started = frames.findIndex(([type]) => type === "started");
  const { S } = replay(frames, { upTo: started + 1 });
  applyEvent(S, "lost", { moves: 2 });
  assert.equal(S.lost, true);
  assert.equal(S.said.at(-1), "No win is left from this position: undo, or resign.");
  applyEvent(S, "started", frames[started][2]);
  assert.equal(S.lost, false);
});

test("a bot is named in the page's language, in the room, its members and its results", async () => {
  const { setLanguage } = await import("../src/i18n.js");
  setLanguage("fr");
  try {
    const S = initialState();
    S.status = "online";
    const bot = { player: "bot-3fa29c0e", name: "Computer (brisk)", status: "ready", connected: true, progress: 0, moves: 0, time_ms: null, bot: true };
    const ann = { ...bot, player: "p1", name: "Ann", bot: false };
    enterRoom(S, { room: "ABC123", role: "racer", you: "p1", phase: "waiting", preset: "seahaven", racers: [ann, bot], standings: [], history: [] });
    assert.deepEqual(S.room.racers.map((r) => r.name), ["Ann", "Ordinateur (vif)"]);
    applyEvent(S, "members", { racers: [ann, { ...bot, name: "Computer (sprint)" }], spectators: 0, rematch: [] }, 0);
    assert.equal(S.room.racers[1].name, "Ordinateur (sprint)");
    const standing = { place: 1, player: bot.player, name: "Computer (brisk)", status: "finished", progress: 52, moves: 90, time_ms: 1000, bot: true };
    applyEvent(S, "result", { reason: "won", standings: [standing], histories: [], race_id: null }, 0);
    assert.equal(S.result.standings[0].name, "Ordinateur (vif)");
    assert.equal(S.room.standings[0].name, "Ordinateur (vif)");
  } finally {
    setLanguage("en");
  }
});

test("the same room's frame again keeps a picked card; a changed one drops it", async () => {
  const { SoloConnection } = await import("../src/solo.js");
  const heard = [];
  const conn = new SoloConnection("SH1-ST-0001G", "Sol", { onEvent: (type, body) => heard.push([type, body]), onLeave() {} });
  conn.begin();
  const room = heard[0][1];
  const S = initialState();
  S.status = "online";
  enterRoom(S, structuredClone(room));
  const picked = { area: "column", index: 2, n: 1 };
  S.selected = picked;
  enterRoom(S, structuredClone(room)); // sent again after the connection moved to the room's address
  assert.deepEqual(S.selected, picked);
  enterRoom(S, { ...structuredClone(room), history: ["3c"] }); // the board changed meanwhile
  assert.equal(S.selected, null);
  S.selected = picked;
  enterRoom(S, { ...structuredClone(room), room: "ZZZZZZ" });
  assert.equal(S.selected, null);
});
