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
