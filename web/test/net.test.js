// The room's address the connection moves to once seated (docs/protocol.md, "Room addresses").
import assert from "node:assert/strict";
import { test } from "node:test";

import { roomUrl } from "../src/net.js";

test("a room's address is /r/CODE under the server's, without its query", () => {
  assert.equal(roomUrl("ws://127.0.0.1:8765/", "K2ZP9R"), "ws://127.0.0.1:8765/r/K2ZP9R");
  assert.equal(roomUrl("wss://race.example/", "K2ZP9R"), "wss://race.example/r/K2ZP9R");
  assert.equal(roomUrl("wss://example.org/seahaven/?x=1", "K2ZP9R"), "wss://example.org/seahaven/r/K2ZP9R");
  // Another room replaces the first (the base is always the server's own address).
  assert.notEqual(roomUrl("ws://h/", "AAAA"), roomUrl("ws://h/", "BBBB"));
});

test("once the server says it removes us, the close is final even when it comes as an abort", async () => {
  const { Connection } = await import("../src/net.js");
  const said = [];
  const conn = new Connection("ws://h/", { onEvent() {}, onStatus: (state, why) => said.push([state, why]), onWelcome() {}, onKey() {} });
  const ws = {};
  conn.ws = ws;
  conn.removed("room K2ZP9R was closed by a moderator: cheating");
  conn.closed(ws, { code: 1006, reason: "" });
  assert.deepEqual(said, [["closed", "room K2ZP9R was closed by a moderator: cheating"]]);
  assert.equal(conn.retry, null, "no reconnection is planned");
  // Without that word, an abort is a drop: said offline, and a reconnection planned.
  const other = new Connection("ws://h/", { onEvent() {}, onStatus: (state) => said.push([state]), onWelcome() {}, onKey() {} });
  other.ws = ws;
  other.closed(ws, { code: 1006, reason: "" });
  assert.deepEqual(said.at(-1), ["offline"]);
  assert.notEqual(other.retry, null);
  clearTimeout(other.retry);
});
